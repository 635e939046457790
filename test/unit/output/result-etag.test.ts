import { describe, expect, it } from '@jest/globals';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { fieldSpec } from '../../../shared/model/resource-definition.js';
import type { SummaryQuery } from '../../../shared/model/summary-query.js';
import { QUIET_SECONDS, resultEtag, schemaTag, type ResultEtagInput } from '../../../shared/output/result-etag.js';

const allowlist = buildAllowlist(DATAPOINTS);
const full = allowlist.view(CONTRACTS, Object.keys(DATAPOINTS));
const basic = allowlist.view(CONTRACTS, ['Data.Read']);
const NOW = new Date('2026-11-26T12:00:00.000Z');
const nowSeconds = NOW.getTime() / 1000;
const query: SummaryQuery = {
  resource: CONTRACTS, orderBy: 'createdDate', order: 'asc', page: 1, pageSize: 25, matchesNothing: false, given: {},
  filters: [{ kind: 'dayRange', field: fieldSpec(CONTRACTS, 'createdDate'), from: '2025-03-01', to: '2025-03-31' }],
};
const input: ResultEtagInput = {
  scope: { tenant: 'contoso', view: full }, query, format: 'json', now: NOW, requestId: 'r1',
  version: { records: 3, latestWrite: nowSeconds - 3600 },
};

describe('resultEtag', () => {
  it('is a weak tag of 32 hex digits, the same for the same result whoever asks and whenever', () => {
    const etag = resultEtag(input);
    expect(etag).toMatch(/^W\/"[0-9a-f]{32}"$/);
    expect(resultEtag({ ...input, requestId: 'r2', now: new Date(NOW.getTime() + 86_400_000), query: { ...query, page: 7, pageSize: 1000 } })).toBe(etag);
  });

  it('differs for every part of the result: tenant, view, format, filters, order and version', () => {
    const variants: ResultEtagInput[] = [
      { ...input, scope: { tenant: 'fabrikam', view: full } },
      { ...input, scope: { tenant: 'contoso', view: basic } },
      { ...input, format: 'parquet' },
      { ...input, query: { ...query, filters: [{ ...query.filters[0]!, to: '2025-03-30' } as SummaryQuery['filters'][0]] } },
      { ...input, query: { ...query, order: 'desc' } },
      { ...input, query: { ...query, orderBy: 'title' } },
      { ...input, version: { ...input.version, records: 4 } },
      { ...input, version: { ...input.version, latestWrite: input.version.latestWrite + 1 } },
    ];
    const tags = new Set([input, ...variants].map(resultEtag));
    expect(tags.size).toBe(variants.length + 1);
  });

  it(`is an answer's own while the latest write is ${QUIET_SECONDS} s old or newer (or ahead of the clock), and the result's once older`, () => {
    const at = (age: number, requestId: string) => resultEtag({ ...input, requestId, version: { ...input.version, latestWrite: nowSeconds - age } });
    expect(at(QUIET_SECONDS + 1, 'a')).toBe(at(QUIET_SECONDS + 1, 'b'));
    for (const age of [QUIET_SECONDS, 1, 0, -30]) expect([age, at(age, 'a') === at(age, 'b')]).toEqual([age, false]);
    // The same request id a moment later is still another answer.
    expect(resultEtag({ ...input, version: { ...input.version, latestWrite: nowSeconds } })).not.toBe(resultEtag({ ...input, now: new Date(NOW.getTime() + 1), version: { ...input.version, latestWrite: nowSeconds } }));
  });
});

describe('schemaTag', () => {
  it('changes with the columns and the format, not with anything else', () => {
    expect(schemaTag(full, 'json')).toBe(schemaTag(allowlist.view(CONTRACTS, [...Object.keys(DATAPOINTS)].reverse()), 'json'));
    expect(new Set([schemaTag(full, 'json'), schemaTag(basic, 'json'), schemaTag(full, 'parquet')]).size).toBe(3);
    // Drafts add records, not columns.
    expect(schemaTag(allowlist.view(CONTRACTS, ['Data.Read', 'Data.Read.Drafts']), 'json')).toBe(schemaTag(basic, 'json'));
  });
});
