import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../shared/config/load-config.js';
import { createSummaryDeps } from '../../shared/app/create-summary-deps.js';
import { respondJson } from '../../shared/http/output-stages/respond-json.js';
import { respondParquet } from '../../shared/http/output-stages/respond-parquet.js';
import type { OutputStageInput } from '../../shared/http/output-stages/output-stage.js';
import { CONTRACTS } from '../../shared/model/contracts.js';
import { INVOICES } from '../../shared/model/invoices.js';
import type { ResourceDefinition } from '../../shared/model/resource-definition.js';
import type { JsonEnvelope } from '../../shared/output/json-envelope.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';
import { readParquet, unzip } from '../support/parquet.js';
import { stageInput } from '../support/stage-input.js';

// The two output stages called directly, with the production collaborators over the stack's
// seeded Cosmos store (and its page cursors): what each reads, answers and leaves behind.
const silent = { request: () => {}, fault: () => {}, warning: () => {} };
// The service's clock a little ahead, so that the seeding is past the quiet period (result-etag.ts)
// and a result has one ETag.
const clock = () => Date.now() + (QUIET_SECONDS + 3) * 1000;
const deps = createSummaryDeps(loadConfig({ ...process.env, LOG_REQUESTS: 'false' }), { log: silent, clock });

function input(resource: ResourceDefinition, body: Record<string, unknown>, options: { ifNoneMatch?: string; exporting?: boolean; roles?: readonly string[] } = {}): OutputStageInput {
  return stageInput(deps, resource, body, options);
}

const envelopeOf = (body: string | Uint8Array) => JSON.parse(Buffer.from(body).toString('utf8')) as JsonEnvelope;
const MARCH = { createdFrom: '2025-03-01', createdTo: '2025-03-31', orderBy: 'createdDate', order: 'asc' };

describe('the JSON output stage', () => {
  it('answers a page, then the next one from its cursor, reading exactly a page of documents', async () => {
    const first = input(CONTRACTS, { ...MARCH, pageSize: 4 });
    const one = await respondJson(first);
    const page1 = envelopeOf(one.body);
    const { records } = await deps.store.version(first.scope, first.query);
    expect(page1.pagination).toMatchObject({ page: 1, pageSize: 4, totalRecords: records, hasNext: records > 4 });
    expect(page1.data).toHaveLength(Math.min(4, records));
    expect(records).toBeGreaterThan(8);
    expect(one.headers.ETag).toMatch(/^W\/"[0-9a-f]+"$/);
    // Page 2 of the same walk: its cursor was stored by page 1 (same client, view, filters, size).
    const second = { ...input(CONTRACTS, { ...MARCH, pageSize: 4, page: 2 }), clientId: first.clientId };
    const two = await respondJson(second);
    expect(second.meter.documents).toBe(4);
    expect(two.headers.ETag).toBe(one.headers.ETag);
    const ids = [...page1.data, ...envelopeOf(two.body).data].map((record) => record.contractId);
    const all = envelopeOf((await respondJson(input(CONTRACTS, { ...MARCH, pageSize: 8 }))).body).data.map((record) => record.contractId);
    expect(ids).toEqual(all);
  });

  it('answers 412 RESULT_UNCHANGED for its own ETag without reading a record', async () => {
    const etag = (await respondJson(input(CONTRACTS, { ...MARCH, pageSize: 4 }))).headers.ETag!;
    const again = input(CONTRACTS, { ...MARCH, pageSize: 4 }, { ifNoneMatch: etag });
    await expect(respondJson(again)).rejects.toMatchObject({ code: 'RESULT_UNCHANGED' });
    // One aggregate was read: its one result document, never a record.
    expect(again.meter.documents).toBeLessThanOrEqual(2);
  });

  it('refuses a jump past the result window, before reading the page', async () => {
    const narrow = createSummaryDeps(loadConfig({ ...process.env, LOG_REQUESTS: 'false', MAX_RESULT_WINDOW: '50', MAX_PAGE_SIZE: '20' }), { log: silent, clock });
    const far = { ...input(CONTRACTS, { pageSize: 20, page: 3 }), deps: narrow };
    await expect(respondJson(far)).rejects.toMatchObject({ code: 'RESULT_WINDOW_EXCEEDED' });
    expect(far.meter.documents).toBeLessThanOrEqual(2);
    // Within it, the same jump answers.
    expect((await respondJson({ ...input(CONTRACTS, { pageSize: 20, page: 2 }), deps: narrow })).status).toBe(200);
  });

  it('answers a jump past the result window 400 with a holding If-None-Match too: the bad request first (RFC 9110 §13.2.1)', async () => {
    const narrow = createSummaryDeps(loadConfig({ ...process.env, LOG_REQUESTS: 'false', MAX_RESULT_WINDOW: '50', MAX_PAGE_SIZE: '20' }), { log: silent, clock });
    const etag = (await respondJson({ ...input(CONTRACTS, { pageSize: 20, page: 1 }), deps: narrow })).headers.ETag!;
    await expect(respondJson({ ...input(CONTRACTS, { pageSize: 20, page: 3 }, { ifNoneMatch: etag }), deps: narrow })).rejects.toMatchObject({ code: 'RESULT_WINDOW_EXCEEDED' });
    await expect(respondJson({ ...input(CONTRACTS, { pageSize: 20, page: 2 }, { ifNoneMatch: etag }), deps: narrow })).rejects.toMatchObject({ code: 'RESULT_UNCHANGED' });
  });
});

describe('the Parquet output stage', () => {
  it('exports the whole result as one file, every record the JSON pages have, and frees its slot', async () => {
    const all = envelopeOf((await respondJson(input(CONTRACTS, { ...MARCH, pageSize: 1000 }))).body).data;
    for (let i = 0; i < 2; i++) {
      const answer = await respondParquet(input(CONTRACTS, MARCH, { exporting: true }));
      expect(answer.headers['Content-Type']).toBe('application/vnd.apache.parquet');
      expect(answer.headers['Content-Disposition']).toMatch(/^attachment; filename="contracts-stage-\d+\.parquet"$/);
      const file = await readParquet(answer.body as Uint8Array);
      expect(file.rows.map((row) => row.contractId)).toEqual(all.map((record) => record.contractId));
      expect(file.metadata['summary.resource']).toBe('contracts');
    }
  });

  it('exports invoices as a zip of both tables, every line with its invoice', async () => {
    const answer = await respondParquet(input(INVOICES, MARCH, { exporting: true }));
    const entries = unzip(answer.body as Uint8Array);
    expect(Object.keys(entries).sort()).toEqual(['invoice_tables.parquet', 'invoices.parquet']);
    const invoices = await readParquet(entries['invoices.parquet']!);
    const lines = await readParquet(entries['invoice_tables.parquet']!);
    expect(invoices.numRows).toBe(answer.records);
    const ids = new Set(invoices.rows.map((row) => row.invoiceId));
    expect(lines.numRows).toBeGreaterThan(0);
    for (const line of lines.rows) expect(ids.has(line.invoiceId)).toBe(true);
  });

  it('answers 412 for an unchanged result without taking a slot or reading a record', async () => {
    const etag = (await respondParquet(input(CONTRACTS, MARCH, { exporting: true }))).headers.ETag!;
    const again = input(CONTRACTS, MARCH, { exporting: true, ifNoneMatch: etag });
    await expect(respondParquet(again)).rejects.toMatchObject({ code: 'RESULT_UNCHANGED' });
    expect(again.meter.documents).toBeLessThanOrEqual(2);
  });
});
