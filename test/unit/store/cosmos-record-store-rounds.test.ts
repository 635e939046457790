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
// SDK's query pipeline (@azure/cosmos 4.10: GroupByValueEndpointComponent, OrderBy merging) hands
// over rounds with nothing in them yet, their `resources` undefined rather than [], before the
// aggregate's value or the merged page comes. These rounds stand in for the SDK's QueryIterator
// at the store's edge; the same store runs against the real SDK and server in
// test/integration/cosmos-record-store.test.ts.
// A round's continuation token `cN` resumes the query at round N, as a new iterator given it does.
interface Round { resources: unknown[] | undefined; continuationToken?: string; requestCharge: number }

function storeOver(rounds: (query: string) => Round[]) {
  const client = {
    database: () => ({
      container: () => ({
        items: {
          query: (sql: { query: string }, options: { continuationToken?: string }) => {
            const all = rounds(sql.query);
            let next = options.continuationToken ? Number(options.continuationToken.slice(1)) : 0;
            return {
              fetchNext: async () => all[next++]!,
              hasMoreResults: () => next < all.length,
            };
          },
        },
      }),
    }),
  } as unknown as CosmosClient;
  return { store: createCosmosRecordStore(client, { timeoutMs: 5_000 }) };
}

const view = buildAllowlist(DATAPOINTS).view(CONTRACTS, Object.keys(DATAPOINTS));
const scope = { tenant: 'contoso', view };
const query = parseFilters({ body: { createdFrom: '2025-03-01', createdTo: '2025-03-31' }, query: new URLSearchParams(), view, members: filterMembers(CONTRACTS), maxPageSize: 1000 });
const meter = (): StoreMeter => ({ documents: 0, requestCharge: 0 });

describe('the Cosmos record store over rounds with nothing in them yet (a tenant across partitions)', () => {
  it('reads an aggregate past the empty rounds to its value, counting their charge and no document', async () => {
    const { store } = storeOver((sql) => [
      { resources: undefined, requestCharge: 2 },
      { resources: undefined, requestCharge: 2 },
      { resources: [sql.includes('COUNT') ? 41 : 1_790_000_000], requestCharge: 1 },
    ]);
    const metered = meter();
    expect(await store.version(scope, query, metered)).toEqual({ records: 41, latestWrite: 1_790_000_000 });
    expect(metered).toEqual({ documents: 0, requestCharge: 10 });
  });

  it('takes a query that ends with no value as nothing matched', async () => {
    const { store } = storeOver(() => [{ resources: undefined, requestCharge: 1 }, { resources: [], requestCharge: 1 }]);
    expect(await store.version(scope, query)).toEqual({ records: 0, latestWrite: 0 });
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
