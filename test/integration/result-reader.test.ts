import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../shared/config/load-config.js';
import { createSummaryDeps } from '../../shared/app/create-summary-deps.js';
import { respondJson } from '../../shared/http/handlers/respond-json.js';
import { respondParquet } from '../../shared/http/handlers/respond-parquet.js';
import { resultReader } from '../../shared/http/handlers/result-reader.js';
import type { OutputStageInput } from '../../shared/http/handlers/output-stage.js';
import { CONTRACTS } from '../../shared/model/contracts.js';
import { INVOICES } from '../../shared/model/invoices.js';
import type { ResourceDefinition } from '../../shared/model/resource-definition.js';
import type { JsonEnvelope } from '../../shared/output/json-envelope.js';
import { exportParquet } from '../../shared/output/export-parquet.js';
import { cleanRecord, newCleaningReport } from '../../shared/output/record-cleaner.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';
import { readParquet, unzip } from '../support/parquet.js';
import { stageInput } from '../support/stage-input.js';

// A third consumer of results, outside the HTTP pipeline (as a background export job would be):
// it reads through the same result reader the two handlers use and renders with a renderer of its
// own or theirs, copying neither. What it gets is what the handlers answer.
const silent = { request: () => {}, fault: () => {}, warning: () => {} };
const clock = () => Date.now() + (QUIET_SECONDS + 3) * 1000;
const deps = createSummaryDeps(loadConfig({ ...process.env, LOG_REQUESTS: 'false' }), { log: silent, clock });
const MARCH = { createdFrom: '2025-03-01', createdTo: '2025-03-31' };

function input(resource: ResourceDefinition, body: Record<string, unknown>, options: { ifNoneMatch?: string; exporting?: boolean; roles?: readonly string[] } = {}): OutputStageInput {
  return stageInput(deps, resource, body, options);
}

describe('the result reader, driven from outside the HTTP pipeline', () => {
  it('hands a consumer\'s own renderer the records the Parquet handler exports, with the same validators', async () => {
    for (const resource of [CONTRACTS, INVOICES]) {
      const job = input(resource, MARCH, { exporting: true });
      const read = await resultReader(job).whole((records, signal) => exportParquet(records, job.cleaning, { maxBytes: 1 << 28, metadata: [], generatedAt: new Date(0), signal }));
      const answered = await respondParquet(input(resource, MARCH, { exporting: true }));
      expect(read.validators.etag).toBe(answered.headers.ETag);
      const rows = async (body: Uint8Array) => (resource === INVOICES ? (await readParquet(unzip(body)['invoices.parquet']!)).rows : (await readParquet(body)).rows);
      expect(await rows(read.rendered.body)).toEqual(await rows(answered.body as Uint8Array));
      expect(read.rendered.records).toBeGreaterThan(0);
      expect(job.meter.documents).toBeGreaterThanOrEqual(read.rendered.records);
    }
  });

  it('reads a page for a renderer of its own (ids, one per line) that the JSON handler answers the same', async () => {
    const job = input(CONTRACTS, { ...MARCH, pageSize: 7 });
    const read = await resultReader(job).page();
    const report = newCleaningReport();
    const lines = read.records.map((record) => cleanRecord(job.cleaning, record, report)!.contractId).join('\n');
    const answered = JSON.parse(Buffer.from((await respondJson(input(CONTRACTS, { ...MARCH, pageSize: 7 }))).body).toString()) as JsonEnvelope;
    expect(lines).toBe(answered.data.map((record) => record.contractId).join('\n'));
    expect(read.totalRecords).toBe(answered.pagination.totalRecords);
  });

  it('answers 412 for a holding If-None-Match before rendering, and reads nothing for a query that matches nothing', async () => {
    const etag = (await resultReader(input(CONTRACTS, MARCH, { exporting: true })).whole(async () => 'rendered')).validators.etag;
    let rendered = false;
    await expect(resultReader(input(CONTRACTS, MARCH, { exporting: true, ifNoneMatch: etag })).whole(async () => { rendered = true; })).rejects.toMatchObject({ code: 'RESULT_UNCHANGED' });
    expect(rendered).toBe(false);
    // Drafts for a caller without the Drafts role match nothing: no store read at all.
    const nothing = input(INVOICES, { ...MARCH, status: 'Draft' }, { roles: ['Data.Read'] });
    expect(nothing.query.matchesNothing).toBe(true);
    const read = await resultReader(nothing).page();
    expect([read.records.length, read.totalRecords, nothing.meter.documents, nothing.meter.requestCharge]).toEqual([0, 0, 0, 0]);
    const whole = await resultReader(input(INVOICES, { ...MARCH, status: 'Draft' }, { roles: ['Data.Read'], exporting: true })).whole(async (records) => {
      let count = 0;
      for await (const page of records) count += page.length;
      return count;
    });
    expect(whole.rendered).toBe(0);
  });
});
