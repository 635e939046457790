import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { connect as tlsConnect } from 'node:tls';
import { accessToken, call, identities, stack, type Envelope, type Problem } from '../support/stack.js';

// OWASP API4/API8 (resource consumption, misconfiguration) and injection: every bad request is a
// clear 4xx problem, never a 5xx, and the service stays healthy.
async function status(options: Parameters<typeof call>[1], resource: 'contracts' | 'invoices' = 'contracts') {
  const response = await call(resource, options);
  const text = await response.text();
  const body = response.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as Problem & Envelope) : undefined;
  if (response.status >= 400) {
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(body?.requestId).toBe(response.headers.get('x-request-id'));
  }
  return { status: response.status, code: body?.code, body };
}

describe('error answers never amplify their input', () => {
  // Names as long as each place allows: a body is at most 64 KiB, a request head (URL) 16 KiB.
  const name = (size: number) => 'n'.repeat(size);
  it.each([
    ['an unknown body member of 60 kB', { rawBody: JSON.stringify({ [name(60_000)]: 1 }) }],
    ['an unknown query parameter of 12 kB', { query: `${name(12_000)}=1` }],
    ['a query parameter of 6 kB given twice', { query: `${name(6_000)}=1&${name(6_000)}=2` }],
    ['a body member of 30 kB given twice', { rawBody: `{"${name(30_000)}":1,"${name(30_000)}":2}` }],
    ['30 unknown members of 2 kB', { rawBody: JSON.stringify(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`${name(2000)}${i}`, i]))) }],
  ])('answers %s with a short problem quoting a short piece of it', async (_label, options) => {
    const response = await call('invoices', options);
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(text.length).toBeLessThan(8 * 1024);
    const problem = JSON.parse(text) as Problem;
    for (const error of problem.errors ?? []) expect(error.member.length).toBeLessThanOrEqual(64);
  });

  it('answers a 12 kB unknown path with a short 404', async () => {
    const response = await fetch(`${stack.baseUrl}/${'p'.repeat(12_000)}`, { method: 'POST', headers: { 'ocp-apim-subscription-key': identities.subscriptionKeys[0]! } });
    expect(response.status).toBe(404);
    expect((await response.text()).length).toBeLessThan(2048);
  });
});

describe('malformed bodies', () => {
  it.each([
    ['malformed JSON', '{"page": 1,', 400, 'INVALID_JSON'],
    ['a trailing comma', '{"page": 1,}', 400, 'INVALID_JSON'],
    ['a JSON array', '[{"page":1}]', 400, 'INVALID_BODY'],
    ['a JSON string', '"page"', 400, 'INVALID_BODY'],
    ['JSON null', 'null', 400, 'INVALID_BODY'],
    ['a duplicate member', '{"pageSize":5,"pageSize":2000}', 400, 'INVALID_BODY'],
    ['__proto__', '{"__proto__":{"tenantId":"fabrikam"}}', 400, 'UNKNOWN_FILTER'],
    ['constructor', '{"constructor":{"prototype":{}}}', 400, 'UNKNOWN_FILTER'],
    ['tenantId', '{"tenantId":"fabrikam"}', 400, 'UNKNOWN_FILTER'],
    ['a lone UTF-16 surrogate', '{"contractWorkspaceID":"\\ud800"}', 400, 'INVALID_FILTER'],
  ])('answers %s with %i %s', async (_label, rawBody, expected, code) => {
    expect(await status({ rawBody })).toMatchObject({ status: expected, code });
  });

  it('answers deeply nested JSON without falling over', async () => {
    const depth = 20_000;
    expect((await status({ rawBody: `${'['.repeat(depth)}${']'.repeat(depth)}` })).code).toBe('INVALID_BODY');
    expect((await status({ rawBody: `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}` })).code).toBe('UNKNOWN_FILTER');
  });

  it.each([
    ['text/plain', 415],
    ['application/xml', 415],
    ['application/json; charset=latin1', 415],
    ['multipart/form-data; boundary=x', 415],
    ['application/merge-patch+json', 200],
    ['application/json; charset=UTF-8', 200],
  ])('answers Content-Type %s with %i', async (contentType, expected) => {
    expect((await status({ rawBody: '{"pageSize":1}', headers: { 'content-type': contentType } })).status).toBe(expected);
  });

  it('answers a body without Content-Type with 415, and an empty one without it with 200', async () => {
    expect((await status({ rawBody: '{}', headers: { 'content-type': undefined } })).status).toBe(415);
    expect((await status({ headers: { 'content-type': undefined } })).status).toBe(200);
  });

  it('refuses a huge body before reading it whole', async () => {
    const started = Date.now();
    const answer = await status({ rawBody: JSON.stringify({ contractId: 'x'.repeat(8 * 1024 * 1024) }) }, 'invoices');
    expect(answer).toMatchObject({ status: 413, code: 'REQUEST_TOO_LARGE' });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('the host layer', () => {
  it('answers every oversized body with 413, never a reset connection', async () => {
    // As a red team sent them: 1 to 8 MB, 24 in a row (8 of 24 were once a reset connection).
    const sizes = [200_000, ...Array.from({ length: 24 }, (_, index) => [1, 2, 4, 8][index % 4]! * 1_000_000)];
    for (const size of sizes) {
      const answer = await status({ rawBody: JSON.stringify({ contractId: 'x'.repeat(size) }) }, 'invoices');
      expect(answer).toMatchObject({ status: 413, code: 'REQUEST_TOO_LARGE' });
    }
  });

  it('answers an oversized body sent a piece at a time with 413 once it is all sent, never a reset connection', async () => {
    // A caller that writes 8 MB in 64 KiB pieces, each after the last went out, and reads the answer
    // only then (as many HTTP clients do): answered and closed while it still sends, it would be reset.
    const url = new URL(stack.baseUrl);
    const token = await accessToken('contoso-full');
    const size = 8 * 1024 * 1024;
    let answeredEarly: boolean | undefined;
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(url, async () => {
        socket.write([
          `POST ${url.pathname}/v1/contracts/summary HTTP/1.1`, `Host: ${url.host}`, `Authorization: Bearer ${token}`,
          `Ocp-Apim-Subscription-Key: ${identities.subscriptionKeys[0]}`, `X-Api-Key: ${identities.apiKeys[0]}`,
          'Content-Type: application/json', `Content-Length: ${size}`, '', '',
        ].join('\r\n'));
        const piece = Buffer.alloc(64 * 1024, 0x20);
        try {
          for (let sent = 0; sent < size; sent += piece.length) {
            // Answered before the body was all sent: the rest was left unread, and the close resets.
            if (sent + piece.length >= size) answeredEarly = text.length > 0;
            await new Promise<void>((done, failed) => socket.write(piece, (error) => (error ? failed(error) : done())));
          }
        } catch (error) {
          reject(error);
        }
      });
      socket.on('data', (chunk) => { text += chunk.toString(); });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answeredEarly).toBe(false);
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toMatch(/REQUEST_TOO_LARGE/);
  });

  it('answers a Host header that is not a host with a problem, not a bare 500', async () => {
    const url = new URL(stack.baseUrl);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(url, () => {
        socket.write(`POST ${url.pathname}/v1/contracts/summary HTTP/1.1\r\nHost: a b\r\nOcp-Apim-Subscription-Key: ${identities.subscriptionKeys[0]}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (chunk) => { text += chunk.toString(); });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 401/);
    expect(raw).toMatch(/application\/problem\+json/);
  });
});

/** A raw connection to the stack's gateway, which is https as API Management is (the local CA is trusted in this process). */
function connect(url: URL, ready: () => void) {
  return tlsConnect({ port: Number(url.port), host: url.hostname }, ready);
}

describe('what Node\'s HTTP parser refuses before the gateway', () => {
  /** Sends `head` as it is and reads the whole answer (the server closes the connection). */
  const raw = (head: string) => new Promise<string>((resolve, reject) => {
    const url = new URL(stack.baseUrl);
    const socket = connect(url, () => socket.write(head));
    let text = '';
    socket.on('data', (chunk) => { text += chunk.toString(); });
    socket.on('end', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  const path = `${new URL(stack.baseUrl).pathname}/v1/contracts/summary`;

  it.each([
    ['a query of 20,000 characters', `POST ${path}?${'q'.repeat(20_000)}=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
    ['a query of 70,000 characters', `POST ${path}?${'q'.repeat(70_000)}=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
    ['a header of 40,000 characters', `POST ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(40_000)}\r\nContent-Length: 0\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
    ['the method FOO', `FOO ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`, 400, 'MALFORMED_REQUEST'],
    ['a request line that is no HTTP', 'hello there\r\n\r\n', 400, 'MALFORMED_REQUEST'],
    ['an HTTP/1.1 request without Host', `POST ${path} HTTP/1.1\r\nContent-Length: 0\r\n\r\n`, 400, 'MALFORMED_REQUEST'],
    ['CONNECT', 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n', 405, 'METHOD_NOT_ALLOWED'],
  ])('answers %s with a problem document and a request id, never an empty answer or a reset', async (_what, head, status, code) => {
    const answer = await raw(head);
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(answer).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
    expect(answer).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
    const problem = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Problem;
    expect(problem).toMatchObject({ status, code });
    expect(problem.detail).toBeTruthy();
    expect((await call('contracts', { body: {} })).status).toBe(200);
  });
});

describe('a bad request pipelined after a good one', () => {
  it('is answered with its problem after the good one\'s answer, not closed without a word', async () => {
    const url = new URL(stack.baseUrl);
    const path = `${url.pathname}/v1/contracts/summary`;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(url, () => socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\nhello there\r\n\r\n`));
      let said = '';
      socket.on('data', (chunk) => { said += chunk.toString(); });
      socket.on('close', () => resolve(said));
      socket.on('error', reject);
    });
    const answers = [...text.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].map((match) => Number(match[1]));
    expect(answers).toEqual([401, 400]);
    expect(text.slice(text.lastIndexOf('\r\n\r\n') + 4)).toMatch(/"code":"MALFORMED_REQUEST"/);
  });
});

describe('echoed names', () => {
  it('are quoted with control, bidi and zero-width characters escaped', async () => {
    const answer = await status({ body: { ['evil\u202e\u200bname\u0007']: 'x' } });
    expect(answer.status).toBe(400);
    const text = JSON.stringify(answer.body);
    expect(text).not.toMatch(/[\u202e\u200b\u0007]/);
    expect(answer.body?.errors?.[0]?.member).toBe('evil\\u202e\\u200bname\\u0007');
  });
});

describe('numbers at every edge', () => {
  // Raw JSON text, so that values JSON.stringify cannot write (1e400) are sent as they are.
  it.each(['0', '-1', '1.5', '"1"', '"2"', 'true', 'null', '[]', '{}', '1e400', '-0.0001', '9007199254740993', '1.0', '1e0', '0.99999999999999999'])('refuses page %s', async (page) => {
    expect((await status({ rawBody: `{"page":${page}}` })).code).toBe('INVALID_FILTER');
  });

  it.each([['0', 'INVALID_FILTER'], ['-5', 'INVALID_FILTER'], ['2.5', 'INVALID_FILTER'], ['"10"', 'INVALID_FILTER'], ['1001', 'PAGE_SIZE_TOO_LARGE'], ['1e9', 'INVALID_FILTER'], ['1e400', 'INVALID_FILTER'], ['0.99999999999999999', 'INVALID_FILTER'], ['1.0', 'INVALID_FILTER'], ['25.000000000000001', 'INVALID_FILTER']])('refuses pageSize %s with %s', async (pageSize, code) => {
    expect((await status({ rawBody: `{"pageSize":${pageSize}}` })).code).toBe(code);
  });

  it('answers the largest safe page with an empty page and a warning', async () => {
    const answer = await status({ body: { page: Number.MAX_SAFE_INTEGER } });
    expect(answer.status).toBe(200);
    expect(answer.body?.data).toEqual([]);
    expect(answer.body?.meta.warning).toBeTruthy();
  });
});

describe('dates that are not dates', () => {
  it.each(['2025-02-29', '2025-04-31', '2025-00-01', '2025-1-1', '02025-01-01', '2025-01-01T00:00:00Z', '2025-01-01 ', '２０２５-０１-０１', '٢٠٢٥-٠١-٠١', '2025/01/01', '', '0000-01-01', '+2025-01-01'])('refuses %p', async (date) => {
    expect((await status({ body: { createdFrom: date, createdTo: '2025-01-31' } })).code).toBe('INVALID_DATE');
  });
});

describe('injection', () => {
  it.each(['title DESC, c.tenantId', 'title; DROP', 'c.tenantId', '(SELECT 1)', 'tenantId', 'id', 'contractAmount'])('refuses orderBy %p from a basic caller', async (orderBy) => {
    expect((await status({ as: 'contoso-basic', body: { orderBy } })).code).toBe('INVALID_ORDER_BY');
  });

  it.each([
    "x' OR '1'='1",
    'x" OR c.tenantId != "contoso',
    'IS_DEFINED(c.id)',
    '") OR true --',
    'ENDSWITH(c.id, "1")',
    '@tenant',
  ])('binds filter value %p as a plain value: 200, no match', async (value) => {
    const answer = await status({ body: { contractId: value, supplierId: value } }, 'invoices');
    expect(answer.status).toBe(200);
    expect(answer.body?.pagination.totalRecords).toBe(0);
  });
});

describe('arbitrary bodies (property)', () => {
  const filterNames = ['contractWorkspaceID', 'createdFrom', 'createdTo', 'updatedFrom', 'updatedTo', 'invoiceDateFrom', 'invoiceDateTo', 'contractId', 'supplierId', 'status', 'orderBy', 'order', 'page', 'pageSize'];
  const value = fc.oneof(
    fc.string({ maxLength: 20 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null),
    fc.constantFrom('2025-01-01', '2025-01-31', '2025-02-30', 'asc', 'desc', 'title', 'Paid', 'CW1234', '1', '25'),
    fc.array(fc.integer(), { maxLength: 3 }),
  );
  const body = fc.oneof(
    fc.dictionary(fc.constantFrom(...filterNames), value, { maxKeys: 6 }),
    fc.dictionary(fc.string({ maxLength: 12 }), value, { maxKeys: 4 }),
    fc.jsonValue({ maxDepth: 3 }),
  );

  it('answers 200 or a 4xx problem, never a 5xx, and stays healthy', async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('contracts', 'invoices'), fc.constantFrom('application/json', 'application/vnd.apache.parquet'), async (candidate, resource, accept) => {
        const response = await call(resource as 'contracts' | 'invoices', { rawBody: JSON.stringify(candidate), headers: { accept } });
        const text = await response.text();
        expect(response.status).toBeLessThan(500);
        if (response.status >= 400) expect((JSON.parse(text) as Problem).code).toMatch(/^[A-Z_]+$/);
      }),
      { numRuns: 150 },
    );
    expect((await call('contracts')).status).toBe(200);
  });

  it('answers arbitrary query strings the same way', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 })), { maxLength: 4 }), async (pairs) => {
        const response = await call('contracts', { query: new URLSearchParams(pairs).toString() });
        await response.arrayBuffer();
        expect(response.status).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
    expect((await call('contracts')).status).toBe(200);
  });
});
