import { describe, expect, it } from '@jest/globals';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import fc from 'fast-check';
import { buildJsonEnvelope, jsonEnvelopeBytes } from '../../../shared/output/json-envelope.js';
import { paginate } from '../../../shared/output/pagination.js';

const view = buildAllowlist(DATAPOINTS).view(CONTRACTS, ['Data.Read']);
const meta = { requestId: 'r', generatedAt: new Date('2026-01-01T00:00:00Z') };

describe('the JSON envelope', () => {
  it('has a next page while one exists within the result window', () => {
    const envelope = buildJsonEnvelope([], paginate({ page: 9, pageSize: 1000, totalRecords: 50_000, resultWindow: 10_000 }), meta);
    expect(envelope.pagination).toMatchObject({ hasNext: true, totalPages: 50 });
    expect(envelope.meta.warning).toBeUndefined();
  });

  it('says there is no next page at the edge of the result window, and why', () => {
    const envelope = buildJsonEnvelope([], paginate({ page: 10, pageSize: 1000, totalRecords: 50_000, resultWindow: 10_000 }), meta);
    expect(envelope.pagination.hasNext).toBe(false);
    expect(envelope.meta.warning).toMatch(/Parquet/);
  });

  it('has no next page when a jump to it would reach past the window (its last record, not its first)', () => {
    // Window 40, pages of 15, 50 records: page 3 would read records 31–45, past 40.
    const envelope = buildJsonEnvelope([], paginate({ page: 2, pageSize: 15, totalRecords: 50, resultWindow: 40 }), meta);
    expect(envelope.pagination.hasNext).toBe(false);
    // A last page that ends within the window is reachable, however deep it starts.
    expect(buildJsonEnvelope([], paginate({ page: 2, pageSize: 15, totalRecords: 40, resultWindow: 40 }), meta).pagination.hasNext).toBe(true);
    expect(buildJsonEnvelope([], paginate({ page: 2, pageSize: 15, totalRecords: 50, resultWindow: 40, nextReachable: true }), meta).pagination.hasNext).toBe(true);
  });

  it('warns about a page past the end', () => {
    const envelope = buildJsonEnvelope([], paginate({ page: 3, pageSize: 10, totalRecords: 15, resultWindow: 10_000 }), meta);
    expect(envelope).toMatchObject({ data: [], pagination: { hasNext: false, totalPages: 2 } });
    expect(envelope.meta.warning).toMatch(/past the last page/);
  });

  it('is written as the bytes of JSON.stringify of it, whatever its records, links and warnings', () => {
    const full = buildAllowlist(DATAPOINTS).view(CONTRACTS, Object.keys(DATAPOINTS));
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    const record = fc.record(Object.fromEntries(full.fields.map((field) => [field.name, fc.oneof(text, fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }))])));
    fc.assert(fc.property(fc.array(record, { maxLength: 30 }), fc.nat({ max: 5 }), fc.option(text, { nil: undefined }), fc.option(text, { nil: undefined }), (records, page, warning, nextLink) => {
      const envelope = buildJsonEnvelope(records, paginate({ page: page + 1, pageSize: 10, totalRecords: records.length, resultWindow: 20 }), { ...meta, ...(warning === undefined ? {} : { warning }) });
      if (nextLink !== undefined) envelope.pagination.nextLink = nextLink;
      expect(jsonEnvelopeBytes(envelope).toString('utf8')).toBe(JSON.stringify(envelope));
      expect(Buffer.compare(jsonEnvelopeBytes(envelope), Buffer.from(JSON.stringify(envelope), 'utf8'))).toBe(0);
    }), { numRuns: 300 });
  });
});
