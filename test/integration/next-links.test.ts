/**
 * Next links (issue 22), proved with clients nobody here wrote: got's paginate (it follows
 * `Link: <…>; rel="next"` by default, keeping the method and the body) and parse-link-header from
 * npm, walking a month of the local stack page by page through its gateway. Every record exactly
 * once, the last page without a next link, and links only on the public base URL.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import got from 'got';
import parseLinkHeader from 'parse-link-header';
import { accessToken, call, identities, stack, type Envelope } from '../support/stack.js';
import { storeRecords } from '../support/store-records.js';
import { accessClaims, callService, startTestService, type TestService } from '../support/test-service.js';

const MARCH = { createdFrom: '2025-03-01', createdTo: '2025-03-31' };

async function credentials(): Promise<Record<string, string>> {
  return {
    authorization: `Bearer ${await accessToken('contoso-full')}`,
    'ocp-apim-subscription-key': identities.subscriptionKeys[0]!,
    'x-api-key': identities.apiKeys[0]!,
    accept: 'application/json',
  };
}

async function marchIds(): Promise<string[]> {
  return (await storeRecords('contracts', 'contoso'))
    .filter((record) => record.createdDate >= '2025-03-01' && record.createdDate < '2025-04-01')
    .map((record) => record.contractId as string)
    .sort();
}

describe('got paginate, following Link rel="next" with the same body', () => {
  it('gets every record of the month exactly once, and stops where the last page has no next link', async () => {
    const pages: Envelope[] = [];
    const links: (string | undefined)[] = [];
    const records = await got.paginate.all<Record<string, unknown>>(`${stack.baseUrl}/v1/contracts/summary`, {
      method: 'POST',
      headers: await credentials(),
      json: { ...MARCH, pageSize: 9 },
      pagination: {
        transform: (response) => {
          const envelope = JSON.parse(response.body as string) as Envelope;
          pages.push(envelope);
          links.push(String(response.headers.link ?? "") || undefined);
          return envelope.data;
        },
        requestLimit: 100,
      },
    });
    const expected = await marchIds();
    expect(expected.length).toBeGreaterThan(9 * 3);
    const ids = records.map((record) => record.contractId as string);
    expect(ids.length).toBe(expected.length);
    expect([...ids].sort()).toEqual(expected);
    expect(pages.map((page) => page.pagination.page)).toEqual(Array.from({ length: Math.ceil(expected.length / 9) }, (_, index) => index + 1));
    const last = pages.at(-1)!;
    expect(last.pagination.hasNext).toBe(false);
    expect(last.pagination.nextLink).toBeUndefined();
    expect(parseLinkHeader(links.at(-1)!)?.next).toBeUndefined();
    expect(parseLinkHeader(links.at(-1)!)?.first?.page).toBe('1');
  });
});

describe('got paginate, following Link rel="next" with an empty body', () => {
  it('walks the same result as the first page\'s body asked for: a link carries its filters and order', async () => {
    const pages: Envelope[] = [];
    const records = await got.paginate.all<Record<string, unknown>>(`${stack.baseUrl}/v1/contracts/summary`, {
      method: 'POST',
      headers: await credentials(),
      json: { ...MARCH, orderBy: 'contractId', order: 'desc', pageSize: 7 },
      pagination: {
        // Every request after the first: the next link alone, with an empty JSON body.
        paginate: ({ response }) => {
          const next = parseLinkHeader(String(response.headers.link ?? ''))?.next?.url;
          return next === undefined ? false : { url: new URL(next), json: {} };
        },
        transform: (response) => {
          const envelope = JSON.parse(response.body as string) as Envelope;
          pages.push(envelope);
          return envelope.data;
        },
        requestLimit: 100,
      },
    });
    const expected = await marchIds();
    const ids = records.map((record) => record.contractId as string);
    expect(ids).toEqual([...expected].reverse());
    expect(pages.every((page) => page.pagination.totalRecords === expected.length)).toBe(true);
    expect(pages.length).toBe(Math.ceil(expected.length / 7));
    expect(pages[0]!.pagination.nextLink).toBe(`${stack.baseUrl}/v1/contracts/summary?createdFrom=2025-03-01&createdTo=2025-03-31&orderBy=contractId&order=desc&page=2&pageSize=7`);
  });
});

describe('a walk by parse-link-header', () => {
  it('follows next from page 1 to the last: links on the public base URL with page and pageSize, the same URL as nextLink, first and last', async () => {
    const headers = { ...(await credentials()), 'content-type': 'application/json', 'x-forwarded-host': 'attacker.example', 'x-forwarded-proto': 'http' };
    const body = JSON.stringify({ ...MARCH, pageSize: 10 });
    let url: string | undefined = `${stack.baseUrl}/v1/contracts/summary`;
    const ids: string[] = [];
    let pages = 0;
    while (url !== undefined) {
      const response: Response = await fetch(url, { method: 'POST', headers, body });
      expect(response.status).toBe(200);
      const envelope = (await response.json()) as Envelope;
      const links = parseLinkHeader(response.headers.get('link'));
      pages += 1;
      ids.push(...envelope.data.map((record) => record.contractId as string));
      expect(links?.first).toMatchObject({ page: '1', pageSize: '10', url: `${stack.baseUrl}/v1/contracts/summary?createdFrom=2025-03-01&createdTo=2025-03-31&page=1&pageSize=10` });
      expect(links?.last).toMatchObject({ page: String(envelope.pagination.totalPages), pageSize: '10' });
      expect(links?.next?.url).toBe(envelope.pagination.nextLink);
      if (envelope.pagination.hasNext) expect(links?.next).toMatchObject({ page: String(pages + 1), pageSize: '10' });
      url = links?.next?.url;
    }
    expect(ids.sort()).toEqual(await marchIds());
  });

  it('carries the query string\'s filters into the links (less page, pageSize and the Functions key code)', async () => {
    const response = await call('contracts', { query: 'createdFrom=2025-03-01&createdTo=2025-03-31&code=functions-key-never-echoed&pageSize=4', body: {} });
    const envelope = (await response.json()) as Envelope;
    expect(envelope.pagination.pageSize).toBe(4);
    expect(envelope.pagination.nextLink).toBe(`${stack.baseUrl}/v1/contracts/summary?createdFrom=2025-03-01&createdTo=2025-03-31&page=2&pageSize=4`);
    expect(response.headers.get('link')).not.toContain('functions-key');
    const next = await call('contracts', { path: new URL(envelope.pagination.nextLink!).pathname.replace(/^\/api/, ''), query: new URL(envelope.pagination.nextLink!).search.slice(1), body: {} });
    const second = (await next.json()) as Envelope;
    expect(second.pagination.page).toBe(2);
    expect(second.pagination.totalRecords).toBe(envelope.pagination.totalRecords);
    expect(second.data.map((record) => record.contractId)).not.toEqual(envelope.data.map((record) => record.contractId));
  });

  it('gives no link at all when the body carries page (the body beats the query: a link would answer the same page for ever)', async () => {
    const response = await call('contracts', { body: { ...MARCH, page: 1, pageSize: 5 } });
    const envelope = (await response.json()) as Envelope;
    expect(envelope.pagination.hasNext).toBe(true);
    expect(response.headers.has('link')).toBe(false);
    expect(Object.keys(envelope.pagination)).not.toContain('nextLink');
  });

  it('gives no link to a Parquet export', async () => {
    const response = await call('contracts', { body: MARCH, headers: { accept: 'application/vnd.apache.parquet' } });
    expect(response.status).toBe(200);
    expect(response.headers.has('link')).toBe(false);
  });
});

describe('links past the result window, on a configured public base URL', () => {
  let service: TestService;
  beforeAll(async () => {
    // Pages past the window need their cursors: the store is given time on a loaded machine.
    service = await startTestService({ settings: { MAX_RESULT_WINDOW: '40', MAX_PAGE_SIZE: '20', PUBLIC_BASE_URL: 'https://gateway.example.com/summary/' }, cursorDeadlineMs: 30_000 });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('links on the setting, never the Host; no rel="last" past the window; next stays while a cursor reaches it', async () => {
    const token = await service.idp!.signToken(accessClaims(service, 'contoso-full'));
    const headers = { authorization: `Bearer ${token}`, 'x-api-key': service.identities.apiKeys[0]!, 'x-forwarded-host': 'attacker.example' };
    let query = 'pageSize=20';
    for (let page = 1; page <= 4; page++) {
      const response = await callService(service, 'contracts', { headers, body: '{}', query });
      const envelope = (await response.json()) as Envelope;
      expect(envelope.pagination.page).toBe(page);
      expect(envelope.pagination.totalRecords).toBeGreaterThan(40);
      const links = parseLinkHeader(response.headers.get('link'))!;
      expect(links.last).toBeUndefined();
      expect(links.first?.url).toBe('https://gateway.example.com/summary/v1/contracts/summary?page=1&pageSize=20');
      expect(links.next?.url).toBe(`https://gateway.example.com/summary/v1/contracts/summary?page=${page + 1}&pageSize=20`);
      expect(envelope.pagination.nextLink).toBe(links.next?.url);
      query = new URL(links.next!.url).search.slice(1);
    }
  });
});

describe('a walk by links whose next cursor cannot be stored', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      settings: { MAX_RESULT_WINDOW: '40', MAX_PAGE_SIZE: '20', PUBLIC_BASE_URL: 'https://gateway.example.com/summary' },
      cursors: (real) => ({ get: real.get, put: async () => { throw new Error('cursor store down'); } }),
    });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('is a retryable 503 where the links would stop early, never a silent end; without links the page says why it ends', async () => {
    const token = await service.idp!.signToken(accessClaims(service, 'contoso-full'));
    const headers = { authorization: `Bearer ${token}`, 'x-api-key': service.identities.apiKeys[0]! };
    // Page 1 reaches page 2 by a jump (records 21–40, within the window); page 2 needs its cursor.
    const first = await callService(service, 'contracts', { headers, body: '{}', query: 'pageSize=20' });
    expect(((await first.json()) as Envelope).pagination.nextLink).toBe('https://gateway.example.com/summary/v1/contracts/summary?page=2&pageSize=20');
    const second = await callService(service, 'contracts', { headers, body: '{}', query: 'page=2&pageSize=20' });
    expect([second.status, second.headers.get('retry-after'), ((await second.json()) as { code: string }).code]).toEqual([503, '1', 'STORE_UNAVAILABLE']);
    const paged = await callService(service, 'contracts', { headers, body: JSON.stringify({ page: 2, pageSize: 20 }) });
    const envelope = (await paged.json()) as Envelope;
    expect([paged.status, envelope.pagination.hasNext]).toEqual([200, false]);
    expect(envelope.meta.warning).toMatch(/first 40/);
  });
});
