import { afterAll, describe, expect, it } from '@jest/globals';
import { buildAllowlist } from '../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../shared/access/datapoints.js';
import { filterMembers } from '../../shared/filters/filter-members.js';
import { parseFilters } from '../../shared/filters/parse-filters.js';
import { CONTRACTS } from '../../shared/model/contracts.js';
import { INVOICES } from '../../shared/model/invoices.js';
import type { ResourceDefinition } from '../../shared/model/resource-definition.js';
import type { Scope, StoredRecord } from '../../shared/model/view.js';
import { createCosmosRecordStore } from '../../shared/store/cosmos-record-store.js';
import type { StoreMeter } from '../../shared/store/record-store.js';
import { directStore } from '../support/stack.js';

// The Cosmos record store alone, through the real SDK against the stack's seeded embedded server:
// the seam's contract (record-store.ts) held directly, not through the pipeline.
const client = directStore();
const store = createCosmosRecordStore(client, { timeoutMs: 20_000 });
const allowlist = buildAllowlist(DATAPOINTS);

afterAll(() => client.dispose());

function read(resource: ResourceDefinition, tenant: string, body: Record<string, unknown>, roles = Object.keys(DATAPOINTS)) {
  const view = allowlist.view(resource, roles);
  const scope: Scope = { tenant, view };
  const query = parseFilters({ body, query: new URLSearchParams(), view, members: filterMembers(resource), maxPageSize: 1000 });
  return { scope, query };
}

async function streamed(...args: Parameters<typeof store.stream>): Promise<StoredRecord[]> {
  const all: StoredRecord[] = [];
  for await (const page of store.stream(...args)) all.push(...page);
  return all;
}

const meter = (): StoreMeter => ({ documents: 0, requestCharge: 0 });
const MARCH = { createdFrom: '2025-03-01', createdTo: '2025-03-31', orderBy: 'contractAmount', order: 'desc' };

describe('the Cosmos record store', () => {
  it('counts what it streams, and streams the result in order with ties broken by id', async () => {
    const { scope, query } = read(CONTRACTS, 'contoso', MARCH);
    const all = await streamed(scope, query);
    expect(all.length).toBeGreaterThan(20);
    expect((await store.version(scope, query)).records).toBe(all.length);
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [all[i - 1]!, all[i]!];
      const ordered = (a.contractAmount as number) > (b.contractAmount as number) || (a.contractAmount === b.contractAmount && String(a.contractId) < String(b.contractId));
      expect([i, ordered]).toEqual([i, true]);
    }
  });

  it('reads exactly skip + take documents for a page, and a continuation that starts the next page', async () => {
    const { scope, query } = read(CONTRACTS, 'contoso', MARCH);
    const all = await streamed(scope, query);
    const jump = meter();
    const page = await store.page(scope, query, { skip: 5, take: 3 }, jump);
    expect(page.records).toEqual(all.slice(5, 8));
    expect(jump.documents).toBe(8);
    const next = meter();
    const after = await store.page(scope, query, { skip: 0, take: 6, continuation: page.continuation! }, next);
    expect(after.records).toEqual(all.slice(8, 14));
    expect(next.documents).toBe(6);
  });

  it('returns only the view\'s fields (and lines), never a storage key or system property', async () => {
    const { scope, query } = read(INVOICES, 'contoso', { createdFrom: '2025-03-01', createdTo: '2025-03-31' }, ['Data.Read']);
    const [first] = await store.page(scope, query, { skip: 0, take: 1 }).then((page) => page.records);
    const allowed = [...scope.view.fields.map((field) => field.name), INVOICES.lines!.member];
    for (const key of Object.keys(first!)) expect([key, allowed.includes(key)]).toEqual([key, true]);
    for (const line of first![INVOICES.lines!.member] as StoredRecord[]) {
      for (const key of Object.keys(line)) expect([key, scope.view.lineFields.some((field) => field.name === key)]).toEqual([key, true]);
    }
  });

  it('never reads another tenant\'s records', async () => {
    const ofTenant = (tenant: string) => {
      const { scope, query } = read(CONTRACTS, tenant, MARCH);
      return streamed(scope, query);
    };
    const contoso = await ofTenant('contoso');
    const fabrikam = await ofTenant('fabrikam');
    expect(fabrikam.length).toBeGreaterThan(0);
    const ids = new Set(contoso.map((record) => record.contractId));
    expect(fabrikam.filter((record) => ids.has(record.contractId))).toEqual([]);
    const nobody = read(CONTRACTS, 'nobody', MARCH);
    expect((await store.version(nobody.scope, nobody.query)).records).toBe(0);
  });

  it('answers 503 STORE_UNAVAILABLE, never a partial result, when a call outlasts its deadline', async () => {
    const hurried = createCosmosRecordStore(client, { timeoutMs: 1 });
    const { scope, query } = read(CONTRACTS, 'contoso', {});
    await expect(hurried.page(scope, query, { skip: 0, take: 1000 })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});

describe('the delta feed\'s reads of the Cosmos store', () => {
  // The seeded stack tenant, read only: what the narrowed reads answer must agree with `stream`.
  const { scope, query } = read(CONTRACTS, 'contoso', { createdFrom: '2025-03-01', createdTo: '2025-03-31' }, ['Data.Read']);
  const idsOf = (records: readonly StoredRecord[]) => records.map((record) => String(record.contractId)).sort();

  it('narrow the view: written since a store time, a text range of a key field, one id; counts read no document', async () => {
    const all = await streamed(scope, query);
    expect(all.length).toBeGreaterThan(4);
    const sorted = [...all].sort((a, b) => (String(a.createdDate) < String(b.createdDate) ? -1 : 1));
    const middle = String(sorted[sorted.length >> 1]!.createdDate);
    const counting = meter();
    const [whole, before, after] = await Promise.all([
      store.count(scope, query, {}, counting),
      store.count(scope, query, { key: { field: 'createdDate', before: middle } }, counting),
      store.count(scope, query, { key: { field: 'createdDate', from: middle } }, counting),
    ]);
    expect([whole, before + after, before]).toEqual([all.length, all.length, sorted.filter((record) => String(record.createdDate) < middle).length]);
    expect(counting.documents).toBe(0);
    const keyed = meter();
    const keys = await store.keys(scope, query, { key: { field: 'createdDate', from: middle } }, 'createdDate', keyed);
    expect(keys.map((key) => key.id).sort()).toEqual(idsOf(sorted.filter((record) => String(record.createdDate) >= middle)));
    expect(keys.every((key) => typeof key.key === 'string' && key.key >= middle)).toBe(true);
    expect(keyed.documents).toBe(keys.length);
    const one = String(all[0]!.contractId);
    expect((await store.keys(scope, query, { ids: [one, 'no-such-contract'] }, 'createdDate')).map((key) => key.id)).toEqual([one]);
  });

  it('read the records written since a time with their key, and a record\'s write time in any view', async () => {
    const changed: StoredRecord[] = [];
    for await (const page of store.changed(scope, query, 0, 'createdDate')) changed.push(...page);
    const all = await streamed(scope, query);
    expect(idsOf(changed)).toEqual(idsOf(all));
    expect(changed.every((record) => record._deltaKey === record.createdDate)).toBe(true);
    const none: StoredRecord[] = [];
    for await (const page of store.changed(scope, query, Math.floor(Date.now() / 1000) + 3600, 'createdDate')) none.push(...page);
    expect(none).toEqual([]);
    const written = await store.writtenAt(scope, query, [String(all[0]!.contractId), 'no-such-contract']);
    expect([...written.keys()]).toEqual([String(all[0]!.contractId)]);
    expect(written.get(String(all[0]!.contractId))).toBeGreaterThan(1_600_000_000);
  });
});
