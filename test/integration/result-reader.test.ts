import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../shared/config/load-config.js';
import { createSummaryDeps } from '../../shared/app/create-summary-deps.js';
import { respondJson } from '../../shared/http/output-stages/respond-json.js';
import { respondParquet } from '../../shared/http/output-stages/respond-parquet.js';
import { readResult, type ResultInput } from '../../shared/results/result-reader.js';
import type { OutputStageInput } from '../../shared/http/output-stages/output-stage.js';
import { CONTRACTS } from '../../shared/model/contracts.js';
import { INVOICES } from '../../shared/model/invoices.js';
import type { ResourceDefinition } from '../../shared/model/resource-definition.js';
import type { JsonEnvelope } from '../../shared/output/json-envelope.js';
import { exportParquet } from '../../shared/output/export-parquet.js';
import { cleanRecord, newCleaningReport } from '../../shared/output/record-cleaner.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';
import { readParquet, unzip } from '../support/parquet.js';
import { stageInput } from '../support/stage-input.js';

// A consumer of results outside the HTTP pipeline (as an export job's window, a kick-off's check
// and the delta feed are): it reads through the same result reader the two HTTP stages use and
// renders with a renderer of its own or theirs, copying neither. What it gets is what the stages
// answer; what is not records comes back as an outcome, never as an HTTP problem.
const silent = { request: () => {}, fault: () => {}, warning: () => {} };
const clock = () => Date.now() + (QUIET_SECONDS + 3) * 1000;
const deps = createSummaryDeps(loadConfig({ ...process.env, LOG_REQUESTS: 'false' }), { log: silent, clock });
const MARCH = { createdFrom: '2025-03-01', createdTo: '2025-03-31' };

/** The reader's input of a stage's input, in `format`. */
function asRead(stage: OutputStageInput, format: 'json' | 'parquet'): ResultInput {
  return { ...stage, format, schemaTag: stage.schemaTags[format] };
}

function input(resource: ResourceDefinition, body: Record<string, unknown>, options: { ifNoneMatch?: string; exporting?: boolean; roles?: readonly string[] } = {}): OutputStageInput {
  return stageInput(deps, resource, body, options);
}

describe('the result reader, driven from outside the HTTP pipeline', () => {
  it('hands a consumer\'s own renderer the records the Parquet handler exports, with the same validators', async () => {
    for (const resource of [CONTRACTS, INVOICES]) {
      const job = input(resource, MARCH, { exporting: true });
      const read = await readResult(asRead(job, 'parquet')).whole((records, signal) => exportParquet(records, job.cleaning, { maxBytes: 1 << 28, metadata: [], generatedAt: new Date(0), signal }), { deadlineMs: 60_000 });
      if (read.kind !== 'records') throw new Error(`read ${read.kind}`);
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
    const read = await readResult(asRead(job, 'json')).page();
    if (read.kind !== 'page') throw new Error(`read ${read.kind}`);
    const report = newCleaningReport();
    const lines = read.records.map((record) => cleanRecord(job.cleaning, record, report)!.contractId).join('\n');
    const answered = JSON.parse(Buffer.from((await respondJson(input(CONTRACTS, { ...MARCH, pageSize: 7 }))).body).toString()) as JsonEnvelope;
    expect(lines).toBe(answered.data.map((record) => record.contractId).join('\n'));
    expect(read.totalRecords).toBe(answered.pagination.totalRecords);
  });

  it('answers unchanged for a holding If-None-Match before rendering, and reads nothing for a query that matches nothing', async () => {
    const first = await readResult(asRead(input(CONTRACTS, MARCH, { exporting: true }), 'parquet')).whole(async () => 'rendered', { deadlineMs: 60_000 });
    if (first.kind !== 'records') throw new Error(`read ${first.kind}`);
    let rendered = false;
    const held = input(CONTRACTS, MARCH, { exporting: true, ifNoneMatch: first.validators.etag });
    const again = await readResult(asRead(held, 'parquet')).whole(async () => { rendered = true; }, { deadlineMs: 60_000 });
    expect([again.kind, rendered, held.meter.documents]).toEqual(['unchanged', false, 0]);
    // The check says the same, with the same validators, and no slot or record read.
    const checked = await readResult(asRead(input(CONTRACTS, MARCH, { exporting: true, ifNoneMatch: first.validators.etag }), 'parquet')).check();
    expect([checked.kind, checked.validators.etag]).toEqual(['unchanged', first.validators.etag]);
    // A page answers the JSON result's ETag, not the Parquet one: the precondition does not hold for it.
    expect((await readResult(asRead(input(CONTRACTS, MARCH, { ifNoneMatch: first.validators.etag }), 'json')).page()).kind).toBe('page');
    // Drafts for a caller without the Drafts role match nothing: no store read at all.
    const nothing = input(INVOICES, { ...MARCH, status: 'Draft' }, { roles: ['Data.Read'] });
    expect(nothing.query.matchesNothing).toBe(true);
    const read = await readResult(asRead(nothing, 'json')).page();
    if (read.kind !== 'page') throw new Error(`read ${read.kind}`);
    expect([read.records.length, read.totalRecords, nothing.meter.documents, nothing.meter.requestCharge]).toEqual([0, 0, 0, 0]);
    const whole = await readResult(asRead(input(INVOICES, { ...MARCH, status: 'Draft' }, { roles: ['Data.Read'], exporting: true }), 'parquet')).whole(async (records) => {
      let count = 0;
      for await (const page of records) count += page.length;
      return count;
    }, { deadlineMs: 60_000 });
    expect(whole.kind === 'records' && whole.rendered).toBe(0);
  });

  it('answers busy to a background export while its tenant runs one, reading nothing, and overDeadline to one past its deadline', async () => {
    let running!: () => void;
    const holding = new Promise<void>((resolve) => { running = resolve; });
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => { finish = resolve; });
    // A request's export holds its tenant's slot until told to finish.
    const first = readResult(asRead(input(CONTRACTS, MARCH, { exporting: true }), 'parquet')).whole(async () => {
      running();
      await finished;
      return 'done';
    }, { deadlineMs: 60_000 });
    await holding;
    const guest = input(CONTRACTS, MARCH, { exporting: true });
    const refused = await readResult(asRead(guest, 'parquet')).whole(async () => 'read', { deadlineMs: 60_000, background: true });
    expect(refused).toEqual({ kind: 'busy', retryAfterSeconds: expect.any(Number) });
    expect([guest.meter.documents, guest.meter.requestCharge]).toEqual([0, 0]);
    finish();
    expect((await first).kind).toBe('records');
    // Past its deadline the render's signal fires: the outcome says so, and the slot is free again.
    const late = await readResult(asRead(input(CONTRACTS, MARCH, { exporting: true }), 'parquet')).whole((_records, signal) => new Promise((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason));
    }), { deadlineMs: 50 });
    expect(late).toEqual({ kind: 'overDeadline', deadlineMs: 50 });
    const after = await readResult(asRead(input(CONTRACTS, MARCH, { exporting: true }), 'parquet')).whole(async () => 'read', { deadlineMs: 60_000, background: true });
    expect(after.kind).toBe('records');
  });
});
