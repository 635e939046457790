import { CONTRACTS } from '../../shared/model/contracts.js';
import { describe, expect, it } from '@jest/globals';
import azureFunctions from '@azure/functions';
import { loadConfig } from '../../shared/config/load-config.js';
import { createAuthenticator, createSummaryDeps } from '../../shared/app/create-summary-deps.js';
import { handleSummary } from '../../shared/http/handle-summary.js';
import { summaryEndpoint } from '../../shared/http/summary-endpoint.js';
import { ApiError } from '../../shared/errors/api-error.js';
import type { RecordStore } from '../../shared/store/record-store.js';
import { createExportSlots } from '../../shared/admission/export-slots.js';
import { resourceNamed } from '../../shared/model/resources.js';
import { accessToken, identities } from '../support/stack.js';

type Resource = 'contracts' | 'invoices';

// The export's size limit and faults, in-process against the real local stack, with a fixed
// clock and request id so that the same export has the same size every time. The credentials are
// checked by the machine's clock: the tokens are today's.
const FIXED = new Date('2026-11-01T00:00:00.000Z');
const silent = { request: () => {}, fault: () => {}, warning: () => {} };

function depsWith(settings: Record<string, string>, store?: (real: RecordStore) => RecordStore) {
  const config = loadConfig({ ...process.env, ...settings });
  const deps = createSummaryDeps(config, { clock: () => FIXED.getTime(), authenticate: createAuthenticator(config), log: silent });
  return store ? { ...deps, store: store(deps.store) } : deps;
}

async function exportRequest(resource: Resource, client = 'contoso-full') {
  return new azureFunctions.HttpRequest({
    method: 'POST',
    url: `http://localhost/api/v1/${resource}/summary`,
    headers: {
      authorization: `Bearer ${await accessToken(client)}`,
      'x-api-key': identities.apiKeys[0]!,
      'content-type': 'application/json',
      accept: 'application/vnd.apache.parquet',
      'x-request-id': 'fixed-request-id',
    },
    body: { string: JSON.stringify({ updatedFrom: '2025-06-01', updatedTo: '2025-06-30' }) },
  });
}

describe.each<Resource>(['contracts', 'invoices'])('the %s export', (resource) => {
  it('passes at exactly the limit and answers 413 RESULT_TOO_LARGE one byte under it, with no Parquet', async () => {
    const full = await handleSummary(summaryEndpoint(resourceNamed(resource), depsWith({})), await exportRequest(resource));
    expect(full.status).toBe(200);
    const size = (full.body as Uint8Array).byteLength;
    expect(size).toBeGreaterThan(1000);

    const atLimit = await handleSummary(summaryEndpoint(resourceNamed(resource), depsWith({ PARQUET_MAX_BYTES: String(size) })), await exportRequest(resource));
    expect(atLimit.status).toBe(200);
    expect(Buffer.from(atLimit.body as Uint8Array)).toEqual(Buffer.from(full.body as Uint8Array));

    const over = await handleSummary(summaryEndpoint(resourceNamed(resource), depsWith({ PARQUET_MAX_BYTES: String(size - 1) })), await exportRequest(resource));
    expect(over.status).toBe(413);
    expect(over.headers['Content-Type']).toBe('application/problem+json');
    expect(over.headers['X-Request-ID']).toBe('fixed-request-id');
    const problem = JSON.parse(over.body as string) as { code: string; detail: string };
    expect(problem.code).toBe('RESULT_TOO_LARGE');
    expect(problem.detail).toMatch(/narrow the filters/);
  });

  it('answers a store fault in the middle of the export with a clean 503, never a truncated file', async () => {
    const failing = (real: RecordStore): RecordStore => ({
      ...real,
      async *stream(scope, query) {
        for await (const page of real.stream(scope, query)) {
          yield page.slice(0, 9);
          throw new ApiError('STORE_UNAVAILABLE', 'injected', { headers: { 'Retry-After': '5' } });
        }
      },
    });
    const response = await handleSummary(summaryEndpoint(resourceNamed(resource), depsWith({}, failing)), await exportRequest(resource));
    expect(response.status).toBe(503);
    expect(response.headers['Retry-After']).toBe('5');
    expect(response.headers['Content-Type']).toBe('application/problem+json');
    expect(JSON.parse(response.body as string)).toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});

describe('concurrent exports', () => {
  const slow = (real: RecordStore, opened: { count: number }): RecordStore => ({
    ...real,
    async *stream(scope, query, meter) {
      opened.count++;
      await new Promise((resolve) => setTimeout(resolve, 300));
      yield* real.stream(scope, query, meter);
    },
  });

  it('runs one export per client at once: a second waits briefly for its slot, then answers 503 EXPORTS_BUSY, and recovers', async () => {
    const opened = { count: 0 };
    const deps = { ...depsWith({}, (real) => slow(real, opened)), exportSlots: createExportSlots({ total: 2, perClient: 1, waitMs: 50 }) };
    const answers = await Promise.all([0, 1].map(async () => handleSummary(summaryEndpoint(CONTRACTS, deps), await exportRequest('contracts'))));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 503]);
    const busy = answers.find((answer) => answer.status === 503)!;
    expect(JSON.parse(busy.body as string)).toMatchObject({ code: 'EXPORTS_BUSY' });
    expect(busy.headers['Retry-After']).toMatch(/^\d+$/);
    expect(opened.count).toBe(1);
    expect((await handleSummary(summaryEndpoint(CONTRACTS, deps), await exportRequest('contracts'))).status).toBe(200);
  });

  it('never answers EXPORTS_BUSY to a client exporting one after another while another client hammers', async () => {
    const deps = { ...depsWith({}, (real) => slow(real, { count: 0 })), exportSlots: createExportSlots({ total: 2, perClient: 1, waitMs: 100 }) };
    let done = false;
    const hammered: number[] = [];
    const hammer = async () => {
      while (!done) hammered.push((await handleSummary(summaryEndpoint(CONTRACTS, deps), await exportRequest('contracts'))).status);
    };
    const hammers = [hammer(), hammer(), hammer(), hammer()];
    const sequential: number[] = [];
    for (let i = 0; i < 4; i++) sequential.push((await handleSummary(summaryEndpoint(CONTRACTS, deps), await exportRequest('contracts', 'fabrikam-full'))).status);
    done = true;
    await Promise.all(hammers);
    expect(sequential).toEqual([200, 200, 200, 200]);
    // The hammering client did run into its own limit (so the test had contention to show).
    expect(hammered).toContain(503);
    expect(hammered).toContain(200);
  });

  it('serves a second client while the first one exports', async () => {
    const opened = { count: 0 };
    const deps = { ...depsWith({}, (real) => slow(real, opened)), exportSlots: createExportSlots({ total: 2, perClient: 1, waitMs: 50 }) };
    const answers = await Promise.all([
      handleSummary(summaryEndpoint(CONTRACTS, deps), await exportRequest('contracts')),
      handleSummary(summaryEndpoint(CONTRACTS, deps), await exportRequest('contracts', 'fabrikam-full')),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(opened.count).toBe(2);
  });
});
