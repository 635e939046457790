import { describe, expect, it } from '@jest/globals';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { buildJsonEnvelope } from '../../../shared/output/json-envelope.js';

const view = buildAllowlist(DATAPOINTS).view(CONTRACTS, ['Data.Read']);
const meta = { requestId: 'r', generatedAt: new Date('2026-01-01T00:00:00Z') };

describe('the JSON envelope', () => {
  it('has a next page while one exists within the result window', () => {
    const envelope = buildJsonEnvelope([], view, { page: 9, pageSize: 1000, totalRecords: 50_000, resultWindow: 10_000 }, meta);
    expect(envelope.pagination).toMatchObject({ hasNext: true, totalPages: 50 });
    expect(envelope.meta.warning).toBeUndefined();
  });

  it('says there is no next page at the edge of the result window, and why', () => {
    const envelope = buildJsonEnvelope([], view, { page: 10, pageSize: 1000, totalRecords: 50_000, resultWindow: 10_000 }, meta);
    expect(envelope.pagination.hasNext).toBe(false);
    expect(envelope.meta.warning).toMatch(/Parquet/);
  });

  it('warns about a page past the end', () => {
    const envelope = buildJsonEnvelope([], view, { page: 3, pageSize: 10, totalRecords: 15, resultWindow: 10_000 }, meta);
    expect(envelope).toMatchObject({ data: [], pagination: { hasNext: false, totalPages: 2 } });
    expect(envelope.meta.warning).toMatch(/past the last page/);
  });
});
