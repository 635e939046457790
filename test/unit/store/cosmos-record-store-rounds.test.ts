import { describe, expect, it } from '@jest/globals';
import type { CosmosClient } from '@azure/cosmos';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { filterMembers } from '../../../shared/filters/filter-members.js';
import { parseFilters } from '../../../shared/filters/parse-filters.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { createCosmosRecordStore } from '../../../shared/store/cosmos-record-store.js';
import type { StoreMeter } from '../../../shared/store/record-store.js';

// What cannot exist here: a tenant spread over several physical partitions of Cosmos. There the
// SDK's query pipeline (@azure/cosmos 4.10: its GROUP BY stages, OrderBy merging) hands
// over rounds with nothing in them yet, their `resources` undefined rather than [], before the
// aggregate's value or the merged page comes. These rounds stand in for the SDK's QueryIterator
// at the store's edge; the same store runs against the real SDK and server in
// test/integration/cosmos-record-store.test.ts.
// A round's continuation token `cN` resumes the query at round N, as a new iterator given it does;
// a round that is an Error is thrown by fetchNext, as the SDK throws.
interface Round { resources: unknown[] | undefined; continuationToken?: string; requestCharge: number }

function storeOver(rounds: (query: string) => (Round | Error)[], timeoutMs = 5_000) {
  const asked: string[] = [];
  const warnings: string[] = [];
  const client = {
    database: () => ({
      container: () => ({
        items: {
          query: (sql: { query: string }, options: { continuationToken?: string }) => {
            asked.push(sql.query.slice(0, sql.query.indexOf(' FROM ')));
            const all = rounds(sql.query);
            let next = options.continuationToken ? Number(options.continuationToken.slice(1)) : 0;
            return {
              fetchNext: async () => {
                const round = all[next++]!;
                if (round instanceof Error) throw round;
                return round;
              },
              hasMoreResults: () => next < all.length,
            };
          },
        },
      }),
    }),
  } as unknown as CosmosClient;
  return { store: createCosmosRecordStore(client, { timeoutMs, warn: (message) => warnings.push(message) }), asked, warnings };
}

const ONE_QUERY = 'SELECT COUNT(1) AS records, MAX(c._ts) AS latestWrite';
/** What each version query answers at the end: the one query's row, or each VALUE aggregate's value. */
const valueOf = (sql: string) => (sql.startsWith(ONE_QUERY) ? { records: 41, latestWrite: 1_790_000_000 } : sql.includes('COUNT') ? 41 : 1_790_000_000);
/** The error @azure/cosmos 4.10 throws where a query plan lists aggregates without VALUE (queryIterator.js). */
const sdkRefusal = () => new Error('Aggregate queries must use the VALUE keyword');

const view = buildAllowlist(DATAPOINTS).view(CONTRACTS, Object.keys(DATAPOINTS));
const scope = { tenant: 'contoso', view };
const query = parseFilters({ body: { createdFrom: '2025-03-01', createdTo: '2025-03-31' }, query: new URLSearchParams(), view, members: filterMembers(CONTRACTS), maxPageSize: 1000 });
const meter = (): StoreMeter => ({ documents: 0, requestCharge: 0 });

describe('the Cosmos record store over rounds with nothing in them yet (a tenant across partitions)', () => {
  it('reads the version\'s one query past the empty rounds to its row, counting their charge and no document', async () => {
    const { store, asked } = storeOver((sql) => [
      { resources: undefined, requestCharge: 2 },
      { resources: undefined, requestCharge: 2 },
      { resources: [valueOf(sql)], requestCharge: 1 },
    ]);
    const metered = meter();
    expect(await store.version(scope, query, metered)).toEqual({ records: 41, latestWrite: 1_790_000_000 });
    expect(metered).toEqual({ documents: 0, requestCharge: 5 });
    expect(asked).toEqual([ONE_QUERY]);
  });

  it('takes a query that ends with no row, or a row without MAX, as nothing matched', async () => {
    for (const last of [[], [{ records: 0 }]]) {
      const { store } = storeOver(() => [{ resources: undefined, requestCharge: 1 }, { resources: last, requestCharge: 1 }]);
      expect(await store.version(scope, query)).toEqual({ records: 0, latestWrite: 0 });
    }
  });

  it('asks two VALUE aggregates where the SDK refuses the one query, from then on, reading them past empty rounds', async () => {
    const { store, asked, warnings } = storeOver((sql) => (sql.startsWith(ONE_QUERY) ? [sdkRefusal()] : [
      { resources: undefined, requestCharge: 2 },
      { resources: [valueOf(sql)], requestCharge: 1 },
    ]));
    const metered = meter();
    expect(await store.version(scope, query, metered)).toEqual({ records: 41, latestWrite: 1_790_000_000 });
    expect(metered).toEqual({ documents: 0, requestCharge: 6 });
    expect(await store.version(scope, query)).toEqual({ records: 41, latestWrite: 1_790_000_000 });
    expect(asked).toEqual([ONE_QUERY, 'SELECT VALUE COUNT(1)', 'SELECT VALUE MAX(c._ts)', 'SELECT VALUE COUNT(1)', 'SELECT VALUE MAX(c._ts)']);
    // Said once, with what refused it.
    expect(warnings).toEqual([expect.stringContaining('Aggregate queries must use the VALUE keyword')]);
  });

  it('keeps asking the one query when the two VALUE aggregates fail as well (the refusal is not the form\'s)', async () => {
    let broken = true;
    const { store, asked, warnings } = storeOver((sql) => (broken
      ? [Object.assign(new Error('Cross partition query only supports \'VALUE <AggreateFunc>\' for aggregates.'), { code: 400 })]
      : [{ resources: [valueOf(sql)], requestCharge: 1 }]));
    await expect(store.version(scope, query)).rejects.toMatchObject({ code: 400 });
    broken = false;
    expect(await store.version(scope, query)).toEqual({ records: 41, latestWrite: 1_790_000_000 });
    expect(asked.at(-1)).toBe(ONE_QUERY);
    expect(warnings).toEqual([]);
  });

  it('takes a 400 that does not name the form for what it is, not a refusal of the form', async () => {
    const { store, asked } = storeOver(() => [Object.assign(new Error('One of the specified inputs is invalid'), { code: 400 })]);
    await expect(store.version(scope, query)).rejects.toMatchObject({ code: 400 });
    expect(asked).toEqual([ONE_QUERY]);
  });

  it('answers an aggregate whose rounds never end with 503 at the deadline', async () => {
    const { store } = storeOver(() => Array.from({ length: 1_000_000 }, () => ({ resources: [], requestCharge: 0 })), 50);
    await expect(store.version(scope, query)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });

  it('asks two VALUE aggregates where the gateway refuses the one query (400)', async () => {
    const { store, asked } = storeOver((sql) => (sql.startsWith(ONE_QUERY) ? [Object.assign(new Error('Cross partition query only supports \'VALUE <AggreateFunc>\' for aggregates.'), { code: 400 })] : [{ resources: [valueOf(sql)], requestCharge: 1 }]));
    expect(await store.version(scope, query)).toEqual({ records: 41, latestWrite: 1_790_000_000 });
    expect(asked).toEqual([ONE_QUERY, 'SELECT VALUE COUNT(1)', 'SELECT VALUE MAX(c._ts)']);
  });

  it('answers a store that is busy or down with 503, and keeps asking the one query', async () => {
    let down = true;
    const { store, asked } = storeOver((sql) => (down ? [Object.assign(new Error('throttled'), { code: 429, retryAfterInMs: 2000 })] : [{ resources: [valueOf(sql)], requestCharge: 1 }]));
    await expect(store.version(scope, query)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    down = false;
    expect(await store.version(scope, query)).toEqual({ records: 41, latestWrite: 1_790_000_000 });
    expect(asked).toEqual([ONE_QUERY, ONE_QUERY]);
  });

  it('fills a page past an empty round, and keeps the continuation where the page ends', async () => {
    const row = (id: string) => ({ id, contractId: id, createdDate: '2025-03-02T00:00:00.000Z' });
    const { store } = storeOver(() => [
      { resources: undefined, continuationToken: 'c1', requestCharge: 1 },
      { resources: [row('a'), row('b')], continuationToken: 'c2', requestCharge: 1 },
      { resources: [row('c')], requestCharge: 1 },
    ]);
    const metered = meter();
    const page = await store.page(scope, query, { skip: 0, take: 2 }, metered);
    expect(page.records.map((record) => record.contractId)).toEqual(['a', 'b']);
    expect(page.continuation).toBe('c2');
    expect(metered.documents).toBe(2);
  });

  it('streams past an empty round', async () => {
    const { store } = storeOver(() => [{ resources: undefined, requestCharge: 1 }, { resources: [{ id: 'a', contractId: 'a' }], requestCharge: 1 }]);
    const batches: (readonly unknown[])[] = [];
    for await (const batch of store.stream(scope, query)) batches.push(batch);
    expect(batches).toEqual([[], [{ id: 'a', contractId: 'a' }]]);
  });
});
