import { describe, expect, it } from '@jest/globals';
import { accessToken, call, identities, stack, type Problem } from '../support/stack.js';

async function problem(response: Response, status: number, code: string): Promise<Problem> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const body = (await response.json()) as Problem;
  expect(body).toMatchObject({ status, code, requestId: response.headers.get('x-request-id') });
  expect(body.type).toMatch(/^https:\/\//);
  expect(body.title).toBeTruthy();
  expect(body.detail).toBeTruthy();
  return body;
}

/** The three credentials of contoso-full and a JSON Content-Type, for a request built by hand. */
async function headersOf(): Promise<Record<string, string>> {
  return {
    authorization: `Bearer ${await accessToken('contoso-full')}`,
    'ocp-apim-subscription-key': identities.subscriptionKeys[0]!,
    'x-api-key': identities.apiKeys[0]!,
    'content-type': 'application/json',
    accept: 'application/json',
  };
}

describe('request errors over HTTP', () => {
  it('answers malformed JSON with INVALID_JSON', async () => {
    await problem(await call('contracts', { rawBody: '{"createdFrom": ' }), 400, 'INVALID_JSON');
  });

  it('answers an array body with INVALID_BODY', async () => {
    await problem(await call('contracts', { rawBody: '[1,2]' }), 400, 'INVALID_BODY');
  });

  it('treats an empty body as no filters', async () => {
    expect((await call('contracts', { rawBody: '' })).status).toBe(200);
  });

  it('answers a non-JSON Content-Type on a body with 415', async () => {
    await problem(await call('contracts', { rawBody: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers a body with a Content-Encoding (any: it is never decoded) with 415, and takes identity', async () => {
    const { gzipSync } = await import('node:zlib');
    const body = JSON.stringify({ createdFrom: '2025-03-01', createdTo: '2025-03-31' });
    const gzipped = await fetch(`${stack.baseUrl}/v1/contracts/summary`, { method: 'POST', headers: { ...(await headersOf()), 'content-encoding': 'gzip' }, body: gzipSync(body) });
    const refused = await problem(gzipped, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(refused.detail).toMatch(/Content-Encoding is not decoded/);
    await problem(await call('contracts', { rawBody: body, headers: { 'content-encoding': 'br' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect((await call('contracts', { rawBody: body, headers: { 'content-encoding': 'identity' } })).status).toBe(200);
  });

  it('sends no referrer from any answer, success or problem (Referrer-Policy)', async () => {
    expect((await call('contracts', { body: { pageSize: 1 } })).headers.get('referrer-policy')).toBe('no-referrer');
    expect((await call('contracts', { rawBody: '[' })).headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('answers a body over 64 KiB with 413 REQUEST_TOO_LARGE', async () => {
    const rawBody = JSON.stringify({ contractId: 'x'.repeat(70 * 1024) });
    await problem(await call('invoices', { rawBody }), 413, 'REQUEST_TOO_LARGE');
  });

  it('answers an unsupported Accept with 406, and honours q-values', async () => {
    await problem(await call('contracts', { headers: { accept: 'text/csv' } }), 406, 'NOT_ACCEPTABLE');
    expect((await call('contracts', { headers: { accept: 'text/csv;q=0.5, application/*;q=0.1' } })).status).toBe(200);
  });

  it('answers a wrong method with 405 and Allow: POST', async () => {
    const response = await call('contracts', { method: 'GET' });
    expect(response.headers.get('allow')).toBe('POST');
    await problem(response, 405, 'METHOD_NOT_ALLOWED');
  });

  it('answers an unknown path with 404', async () => {
    await problem(await call('contracts', { path: '/v1/suppliers/summary' }), 404, 'NOT_FOUND');
  });

  it('lists each problem with its member, the first deciding the code', async () => {
    const body = await problem(await call('contracts', { body: { createdFrom: '2025-02-30', createdTo: '2025-03-01', Page: 1 } }), 400, 'UNKNOWN_FILTER');
    expect(body.errors).toEqual(expect.arrayContaining([
      expect.objectContaining({ member: 'createdFrom', code: 'INVALID_DATE' }),
      expect.objectContaining({ member: 'Page', code: 'UNKNOWN_FILTER' }),
    ]));
  });

  it.each([
    [{ createdFrom: '2025-01-15', createdTo: '2025-02-16' }, 'DATE_RANGE_TOO_LONG'],
    [{ createdFrom: '2025-01-15' }, 'DATE_RANGE_INCOMPLETE'],
    [{ updatedFrom: '2025-02-15', updatedTo: '2025-01-15' }, 'DATE_RANGE_REVERSED'],
    [{ orderBy: 'contractAmount' }, 'INVALID_ORDER_BY'],
    [{ pageSize: 1001 }, 'PAGE_SIZE_TOO_LARGE'],
    [{ page: '2' }, 'INVALID_FILTER'],
    [{ contractWorkspaceID: 'WS-1' }, 'INVALID_FILTER'],
  ])('answers %p with %s', async (body, code) => {
    await problem(await call('contracts', { as: 'contoso-basic', body }), 400, code);
  });

  it('reads filters from the query string too', async () => {
    await problem(await call('contracts', { query: 'createdFrom=2025-01-01&createdTo=2025-03-01' }), 400, 'DATE_RANGE_TOO_LONG');
  });

});
