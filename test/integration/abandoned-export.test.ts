import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RecordStore } from '../../shared/store/record-store.js';
import { accessClaims, callService, startTestService, type TestService } from '../support/test-service.js';

// An export whose caller disconnects 50 ms in, on the local host (which, unlike the Functions host
// in Azure, tells the handler): the store is read no further, the slot is free at once, and the
// log line says 499. The store hands the export many slow pages, counted at its seam.
let service: TestService;
let pagesRead = 0;

const slowPages = (real: RecordStore): RecordStore => ({
  ...real,
  async *stream(scope, query, meter) {
    for await (const page of real.stream(scope, query, meter)) {
      // The same records again and again, a page every 100 ms: an export of tens of seconds.
      for (let i = 0; i < 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        pagesRead++;
        yield page;
      }
    }
  },
});

beforeAll(async () => {
  service = await startTestService({ store: slowPages });
});

afterAll(async () => {
  await service?.stop();
});

async function exportRequest(signal?: AbortSignal): Promise<Response> {
  const token = await service.idp!.signToken(accessClaims(service, 'contoso-full'));
  return callService(service, 'contracts', {
    headers: { authorization: `Bearer ${token}`, 'x-api-key': service.identities.apiKeys[0]!, accept: 'application/vnd.apache.parquet' },
    body: JSON.stringify({ createdFrom: '2025-03-01', createdTo: '2025-03-31' }),
    ...(signal ? { signal } : {}),
  });
}

describe('an export whose caller has gone', () => {
  it('stops reading the store, frees its slot at once and is logged 499', async () => {
    const controller = new AbortController();
    const abandoned = exportRequest(controller.signal).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 250));
    controller.abort();
    expect((await abandoned as { name?: string }).name).toBe('AbortError');
    // The request's log line is written once the export has stopped: wait for it (on a slow
    // machine the export may only start after the abort), then no page may be read any more.
    const logged = () => service.logs.some((text) => (JSON.parse(text) as { operation?: string }).operation === 'contracts.summary');
    for (let waited = 0; !logged() && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    const readWhenStopped = pagesRead;
    expect(readWhenStopped).toBeLessThan(10);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(pagesRead).toBe(readWhenStopped);
    const line = service.logs.map((text) => JSON.parse(text) as { operation?: string; status?: number; code?: unknown }).find((entry) => entry.operation === 'contracts.summary');
    expect(line).toMatchObject({ status: 499, code: null });
    // The same client's next export finds its slot free (no 2 s wait, no EXPORTS_BUSY): it runs.
    const second = new AbortController();
    const next = exportRequest(second.signal);
    // Waited for, within the 2 s a request would wait for a slot still held (then EXPORTS_BUSY, no page read).
    for (let waited = 0; pagesRead === readWhenStopped && waited < 1900; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pagesRead).toBeGreaterThan(readWhenStopped);
    second.abort();
    await next.catch(() => undefined);
  });
});
