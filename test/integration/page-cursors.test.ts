import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Envelope, Problem } from '../support/stack.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { stack } from '../support/stack.js';
import { storeRecords } from '../support/store-records.js';
import { accessClaims, callService, startTestService, type TestService } from '../support/test-service.js';

// Sequential paging at the cost of one page, against the real Cosmos SDK and the embedded server:
// a walk reads each record exactly once, past MAX_RESULT_WINDOW, and a failing cursor store only
// costs the shortcut. The service's log line carries the documents each request read.
const WINDOW = { MAX_RESULT_WINDOW: '120', MAX_PAGE_SIZE: '100' };

interface LogLine { status: number; records: number; storeDocuments: number | null; requestCharge: number | null }

async function walk(service: TestService, client: string, body: Record<string, unknown>, pages = Infinity): Promise<{ envelopes: Envelope[]; logs: LogLine[] }> {
  const token = await service.idp!.signToken(accessClaims(service, client));
  const envelopes: Envelope[] = [];
  const before = service.logs.length;
  for (let page = 1; page <= pages; page++) {
    const response = await callService(service, 'contracts', { headers: { authorization: `Bearer ${token}`, 'x-api-key': service.identities.apiKeys[0]! }, body: JSON.stringify({ ...body, page }) });
    expect(response.status).toBe(200);
    const envelope = (await response.json()) as Envelope;
    envelopes.push(envelope);
    if (!envelope.pagination.hasNext) break;
  }
  const logs = service.logs.slice(before).map((line) => JSON.parse(line) as LogLine & { level?: string; operation?: string }).filter((line) => line.operation === 'contracts.summary');
  return { envelopes, logs };
}

let service: TestService;
beforeAll(async () => {
  // A walk past the window needs every page's cursor: the store is given time on a loaded machine.
  service = await startTestService({ settings: WINDOW, cursorDeadlineMs: 30_000 });
});
afterAll(async () => {
  await service.stop();
});

describe('walking a result page by page', () => {
  it('reads each record exactly once: documents read = records returned, and the total stays the walk\'s', async () => {
    const { envelopes, logs } = await walk(service, 'contoso-full', { pageSize: 7, createdFrom: '2025-03-01', createdTo: '2025-03-31' });
    const expected = (await storeRecords('contracts', 'contoso')).filter((record) => record.createdDate >= '2025-03-01' && record.createdDate < '2025-04-01');
    const returned = envelopes.flatMap((envelope) => envelope.data.map((record) => record.contractId));
    expect(returned.length).toBe(expected.length);
    expect(new Set(returned).size).toBe(returned.length);
    expect(returned.sort()).toEqual(expected.map((record) => record.contractId).sort());
    expect(envelopes.length).toBe(Math.ceil(expected.length / 7));
    expect(new Set(envelopes.map((envelope) => envelope.pagination.totalRecords))).toEqual(new Set([expected.length]));
    expect(logs.map((line) => line.storeDocuments)).toEqual(envelopes.map((envelope) => envelope.data.length));
    expect(logs.reduce((sum, line) => sum + line.storeDocuments!, 0)).toBe(expected.length);
  });

  it('is never refused past MAX_RESULT_WINDOW, while a jump there is', async () => {
    const { envelopes } = await walk(service, 'contoso-full', { pageSize: 50 });
    const total = envelopes[0]!.pagination.totalRecords;
    expect(total).toBeGreaterThan(120 * 3);
    expect(envelopes.length).toBe(Math.ceil(total / 50));
    expect(envelopes.every((envelope) => envelope.meta.warning === undefined)).toBe(true);
    expect(envelopes.flatMap((envelope) => envelope.data).length).toBe(total);

    const token = await service.idp!.signToken(accessClaims(service, 'contoso-full'));
    // (Not page 5 of the walk above: its cursor is stored, so that page is reachable.)
    const jump = await callService(service, 'contracts', { headers: { authorization: `Bearer ${token}`, 'x-api-key': service.identities.apiKeys[0]! }, body: JSON.stringify({ pageSize: 60, page: 5 }) });
    expect(jump.status).toBe(400);
    expect(((await jump.json()) as Problem).code).toBe('RESULT_WINDOW_EXCEEDED');
  });

  it('does not hand one client\'s or one view\'s cursor to another', async () => {
    const body = { pageSize: 40, createdFrom: '2025-05-01', createdTo: '2025-05-31' };
    await walk(service, 'contoso-full', body, 1);
    // The same page 2 for another client with other roles: no cursor, so it counts and reads 80 documents.
    const other = await walk(service, 'contoso-basic', { ...body, page: undefined }, 1);
    expect(other.logs[0]!.storeDocuments).toBe(other.envelopes[0]!.data.length);
    const token = await service.idp!.signToken(accessClaims(service, 'contoso-basic'));
    const before = service.logs.length;
    const second = await callService(service, 'contracts', { headers: { authorization: `Bearer ${token}`, 'x-api-key': service.identities.apiKeys[0]! }, body: JSON.stringify({ ...body, page: 2 }) });
    expect(second.status).toBe(200);
    const line = JSON.parse(service.logs.slice(before).find((entry) => entry.includes('contracts.summary'))!) as LogLine;
    // contoso-basic's own page 1 left a cursor, so its page 2 reads one page only.
    expect(line.storeDocuments).toBe(((await second.json()) as Envelope).data.length);
  });
});

describe('a failing cursor store', () => {
  it('costs the walk its shortcut only: the same pages, never a 5xx; hung writes are cancelled, and after three failures it is not asked for a while', async () => {
    const writes: AbortSignal[] = [];
    let reads = 0;
    const failing = await startTestService({
      settings: WINDOW,
      cursors: () => ({
        get: async () => {
          reads++;
          throw new Error('cursor store down');
        },
        put: (_tenant, _key, _cursor, signal) => new Promise(() => void writes.push(signal!)),
      }),
    });
    try {
      const body = { pageSize: 30, createdFrom: '2025-03-01', createdTo: '2025-03-31' };
      const started = Date.now();
      const degraded = await walk(failing, 'contoso-full', body);
      const elapsed = Date.now() - started;
      const healthy = await walk(service, 'contoso-full', body);
      expect(degraded.envelopes.length).toBeGreaterThanOrEqual(3);
      // Page 1's write hangs (1 s, cancelled), page 2's read fails and its write hangs: three
      // failures, then the store is skipped: no page waits a deadline any more.
      expect(writes.length).toBe(2);
      expect(writes.every((signal) => signal.aborted)).toBe(true);
      expect(reads).toBe(1);
      // No page after the third failure waited a deadline: the pages after it asked the store
      // nothing (two writes and one read above, however many pages). The walk's time is only a
      // safety bound: 3.5 s failed on a loaded machine for no fault of the guard.
      expect(elapsed).toBeLessThan(60_000);
      const warnings = failing.logs.filter((line) => line.includes('"level":"warn"'));
      expect(warnings.map((line) => (JSON.parse(line) as { warning: string }).warning)).toEqual(expect.arrayContaining([
        'page cursor put failed (timeout); the page is read without it',
        'page cursor get failed (error): Error; the page is read without it',
        'page cursor get failed (breaker open); the page is read without it',
      ]));
      expect(degraded.envelopes.map((envelope) => envelope.data)).toEqual(healthy.envelopes.map((envelope) => envelope.data));
      // Without cursors, page p reads p × pageSize documents (the TOP path), bounded by the window.
      expect(degraded.logs.map((line) => line.storeDocuments)).toEqual(degraded.envelopes.map((envelope, index) => index * 30 + envelope.data.length));
    } finally {
      await failing.stop();
    }
  });

  it('cancels a hung cursor request in the store itself, through the production stores (its deadline reaches the SDK)', async () => {
    // The service as it runs in production (createSummaryDeps: the lazily loaded Cosmos stores),
    // its store behind a proxy that hangs every request to the cursors container only.
    const proxy = await startFaultProxy(stack.cosmosEndpoint);
    proxy.hangWhere(/\/colls\/pageCursors\//);
    const hung = await startTestService({ settings: { ...WINDOW, COSMOS_ENDPOINT: proxy.endpoint } });
    try {
      const started = Date.now();
      const { envelopes } = await walk(hung, 'contoso-full', { pageSize: 30, createdFrom: '2025-03-01', createdTo: '2025-03-31' }, 2);
      expect(envelopes).toHaveLength(2);
      // Each hung call is given up at its 1 s deadline, and the SDK's request with it: the proxy
      // sees the client close, long before the store's own timeout (STORE_TIMEOUT_MS, 10 s).
      // The proxy sees the close as it comes: waited for, not timed.
      while (proxy.abandoned.count === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      await hung.stop();
      await proxy.stop();
    }
  });
});
