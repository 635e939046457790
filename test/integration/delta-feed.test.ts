import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { buildAllowlist } from '../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../shared/access/datapoints.js';
import { computeDelta, LEAF_RECORDS, type Delta, type Removal } from '../../shared/delta/compute-delta.js';
import { EMPTY_STATE, type DeltaState } from '../../shared/delta/delta-state.js';
import { filterMembers } from '../../shared/filters/filter-members.js';
import { parseFilters } from '../../shared/filters/parse-filters.js';
import { CONTRACTS } from '../../shared/model/contracts.js';
import type { Scope, StoredRecord } from '../../shared/model/view.js';
import { createCosmosRecordStore } from '../../shared/store/cosmos-record-store.js';
import type { StoreMeter } from '../../shared/store/record-store.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { directStore } from '../support/stack.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';

// The delta feed's engine (shared/delta) against the real SDK and the embedded store, for two
// views of one tenant: every kind of write gives exactly the delta it should, and a mirror that
// applies each night's delta equals the view after every night, reading a few documents.
const client = directStore();
const store = createCosmosRecordStore(client, { timeoutMs: 20_000 });
const allowlist = buildAllowlist(DATAPOINTS);
const VIEWS = {
  full: ['Data.Read', 'Data.Read.Financials', 'Data.Read.Suppliers', 'Data.Read.Drafts'],
  basic: ['Data.Read'],
} as const;
type ViewName = keyof typeof VIEWS;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

let own: OwnTenant;
let other: OwnTenant;
let template: Doc;
let serial = 0;

beforeAll(async () => {
  [own, other] = await Promise.all([startOwnTenant(60), startOwnTenant(5)]);
  template = (await own.documents('contracts')).find((document) => document.status === 'Published')!;
});

afterAll(async () => {
  await Promise.all([own?.stop(), other?.stop()]);
  client.dispose();
});

function read(view: ViewName, body: Record<string, unknown> = {}, tenant = own.tenant): { scope: Scope; query: ReturnType<typeof parseFilters> } {
  const resolved = allowlist.view(CONTRACTS, VIEWS[view]);
  return { scope: { tenant, view: resolved }, query: parseFilters({ body, query: new URLSearchParams(), view: resolved, members: filterMembers(CONTRACTS), maxPageSize: 1000 }) };
}

/** A caller's copy, kept by applying deltas, and the state its token stands for. */
interface Mirror {
  readonly view: ViewName;
  readonly body: Record<string, unknown>;
  readonly records: Map<string, StoredRecord>;
  state: DeltaState;
}

const mirror = (view: ViewName, body: Record<string, unknown> = {}): Mirror => ({ view, body, records: new Map(), state: EMPTY_STATE });

/** One night: the delta since the mirror's state, applied to it; what it held and what it cost. */
async function night(target: Mirror): Promise<Delta & { documents: number }> {
  const meter: StoreMeter = { documents: 0, requestCharge: 0 };
  const delta = await computeDelta({ reads: store, ...read(target.view, target.body), keyField: 'createdDate', state: target.state, now: Date.now(), meter });
  for (const record of delta.changed) target.records.set(String(record.contractId), record);
  for (const { id } of delta.removed) target.records.delete(id);
  target.state = delta.next;
  return { ...delta, documents: meter.documents };
}

/** What the view holds now, by id: the truth a mirror must equal. */
async function truth(target: Mirror): Promise<Map<string, StoredRecord>> {
  const { scope, query } = read(target.view, target.body);
  const all = new Map<string, StoredRecord>();
  for await (const page of store.stream(scope, query)) for (const record of page) all.set(String(record.contractId), record);
  return all;
}

async function expectExact(target: Mirror): Promise<void> {
  const expected = await truth(target);
  expect([target.view, [...target.records.keys()].sort()]).toEqual([target.view, [...expected.keys()].sort()]);
  for (const [id, record] of expected) expect([id, target.records.get(id)]).toEqual([id, record]);
}

function contract(createdDate: string, overrides: Doc = {}): Doc {
  const id = `CON-DELTA-${String(++serial).padStart(5, '0')}`;
  return { ...template, id, contractId: id, status: 'Published', title: `contract ${id}`, createdDate, updatedDate: createdDate, ...overrides };
}

const ids = (records: readonly StoredRecord[]) => records.map((record) => String(record.contractId)).sort();
const removals = (removed: readonly Removal[]) => [...removed].sort((a, b) => (a.id < b.id ? -1 : 1));
const stored = async (id: string) => (await own.documents('contracts')).find((document) => document.id === id)!;

describe('a delta of a view', () => {
  const full = mirror('full');
  const basic = mirror('basic');

  it('starts with the whole view and a state, then reads nothing when nothing changed', async () => {
    // "Nothing changed": no write within the quiet margin before the state's time either (a delta
    // reads from QUIET_SECONDS before the last one began: the store's clock is not the service's).
    await new Promise((resolve) => setTimeout(resolve, (QUIET_SECONDS + 1) * 1000));
    for (const target of [full, basic]) {
      const first = await night(target);
      expect(first.removed).toEqual([]);
      await expectExact(target);
      expect(first.changed.length).toBe(target.records.size);
    }
    expect(full.records.size).toBeGreaterThan(basic.records.size);
    for (const target of [full, basic]) {
      const quiet = await night(target);
      expect([target.view, quiet.changed, quiet.removed, quiet.documents]).toEqual([target.view, [], [], 0]);
    }
  });

  it('holds a create, a back-dated create, an update with and without updatedDate, each once, in every view that sees it', async () => {
    const created = contract('2025-06-10T08:00:00.000Z');
    const backdated = contract('2019-02-03T08:00:00.000Z');
    const [updated, untouchedDate] = (await own.documents('contracts')).filter((document) => document.status === 'Published' && !String(document.id).startsWith('CON-DELTA')).slice(0, 2);
    await own.write('contracts', [created, backdated, { ...updated!, title: 'renamed', updatedDate: '2026-11-28T00:00:00.000Z' }, { ...untouchedDate!, title: 'renamed, date alone' }]);
    for (const target of [full, basic]) {
      const delta = await night(target);
      expect([target.view, ids(delta.changed), delta.removed]).toEqual([target.view, [created.id, backdated.id, updated!.id, untouchedDate!.id].sort(), []]);
      await expectExact(target);
    }
  });

  it('says a deleted record, and a record deleted and created again with its id is the new one', async () => {
    const [gone, again] = [...full.records.values()].filter((record) => record.status === 'Published').map((record) => String(record.contractId));
    const before = await stored(again!);
    await own.remove('contracts', [gone!, again!]);
    await own.write('contracts', [{ ...before, title: 'created again' }]);
    for (const target of [full, basic]) {
      const delta = await night(target);
      expect([target.view, removals(delta.removed), ids(delta.changed)]).toEqual([target.view, [{ id: gone, reason: 'deleted' }], [again]]);
      await expectExact(target);
    }
  });

  it('finds a removal of a record whose key is no text by its id, and keeps one that stays', async () => {
    // A stored createdDate that is a number: in the view (no range asked), in no key range.
    const [stays, goes] = [contract('unused', { createdDate: 20250101 }), contract('unused', { createdDate: 20250102 })];
    await own.write('contracts', [stays, goes]);
    for (const target of [full, basic]) {
      expect([target.view, ids((await night(target)).changed)]).toEqual([target.view, [stays.id, goes.id].sort()]);
    }
    await new Promise((resolve) => setTimeout(resolve, (QUIET_SECONDS + 1) * 1000));
    for (const target of [full, basic]) {
      const quiet = await night(target);
      expect([target.view, quiet.changed, quiet.removed]).toEqual([target.view, [], []]);
    }
    const keyed = [...basic.records.values()].find((record) => typeof record.createdDate === 'string' && record.status === 'Published')!;
    await own.remove('contracts', [goes.id, String(keyed.contractId)]);
    for (const target of [full, basic]) {
      const delta = await night(target);
      expect([target.view, removals(delta.removed), delta.changed]).toEqual([target.view, removals([{ id: goes.id, reason: 'deleted' }, { id: String(keyed.contractId), reason: 'deleted' }]), []]);
      await expectExact(target);
    }
  });

  it('takes a record out of a view without Drafts when it turns Draft, and back when published; a view with Drafts sees each change', async () => {
    const id = [...basic.records.keys()].find((key) => full.records.get(key)?.status === 'Published')!;
    const record = await stored(id);
    await own.write('contracts', [{ ...record, status: 'Draft' }]);
    const [fullDraft, basicDraft] = [await night(full), await night(basic)];
    expect([ids(fullDraft.changed), fullDraft.removed]).toEqual([[id], []]);
    expect([basicDraft.changed, basicDraft.removed]).toEqual([[], [{ id, reason: 'leftView' }]]);
    await own.write('contracts', [{ ...record, status: 'Published' }]);
    const [fullPublished, basicPublished] = [await night(full), await night(basic)];
    expect([ids(fullPublished.changed), fullPublished.removed]).toEqual([[id], []]);
    expect([ids(basicPublished.changed), basicPublished.removed]).toEqual([[id], []]);
    for (const target of [full, basic]) await expectExact(target);
  });

  it('says nothing of a hidden Draft, another tenant\'s record, or a write to a field the view cannot see', async () => {
    const hidden = contract('2025-04-02T08:00:00.000Z', { status: 'Draft' });
    const foreign = { ...contract('2025-04-03T08:00:00.000Z') };
    const [amended] = [...basic.records.keys()].slice(-1);
    const record = await stored(amended!);
    await own.write('contracts', [hidden, { ...record, contractAmount: Number(record.contractAmount ?? 0) + 1 }]);
    await other.write('contracts', [foreign]);
    const [fullDelta, basicDelta] = [await night(full), await night(basic)];
    expect([ids(fullDelta.changed), fullDelta.removed]).toEqual([[hidden.id, amended].sort(), []]);
    expect([basicDelta.changed, basicDelta.removed]).toEqual([[], []]);
    for (const target of [full, basic]) await expectExact(target);
  });

  it('follows a record moved out of a view\'s range and back; a view of the whole range keeps it', async () => {
    const record = contract('2025-03-12T08:00:00.000Z');
    const id = record.id as string;
    await own.write('contracts', [record]);
    await night(basic);
    const spring = mirror('basic', { createdFrom: '2025-03-01', createdTo: '2025-03-31' });
    await night(spring);
    expect(spring.records.has(id)).toBe(true);
    await own.write('contracts', [{ ...record, createdDate: '2025-09-01T08:00:00.000Z' }]);
    const moved = await night(spring);
    expect([moved.changed, moved.removed]).toEqual([[], [{ id, reason: 'leftView' }]]);
    expect(ids((await night(basic)).changed)).toEqual([id]);
    await own.write('contracts', [record]);
    const back = await night(spring);
    expect([ids(back.changed), back.removed]).toEqual([[id], []]);
    expect(ids((await night(basic)).changed)).toEqual([id]);
    for (const target of [spring, basic]) await expectExact(target);
  });
});

describe('a write while a delta runs', () => {
  /** A delta of the full view of `tenant` since `state`. */
  const delta = (tenant: OwnTenant, state: DeltaState, reads: typeof store = store) => computeDelta({ reads, ...read('full', {}, tenant.tenant), keyField: 'createdDate', state, now: Date.now() });
  /** The store's own reads, with record `id` deleted once a delta's changes were read. */
  const deletedAfterChanges = (tenant: OwnTenant, id: string): typeof store => ({
    ...store,
    async *changed(...args: Parameters<typeof store.changed>) {
      yield* store.changed(...args);
      await tenant.remove('contracts', [id]);
    },
  });

  it('a record changed, then deleted after the changes were read: removed, not sent, and sent again when it comes back as it was', async () => {
    const tenant = await startOwnTenant(10);
    try {
      const first = await delta(tenant, EMPTY_STATE);
      const record = (await tenant.documents('contracts')).find((document) => document.status === 'Published')!;
      const changedRecord = { ...record, title: 'changed, then gone' };
      await tenant.write('contracts', [changedRecord]);
      const during = await delta(tenant, first.next, deletedAfterChanges(tenant, record.id));
      expect([ids(during.changed), during.removed]).toEqual([[], [{ id: record.id, reason: 'deleted' }]]);
      expect(during.next.records.has(record.id)).toBe(false);
      await tenant.write('contracts', [changedRecord]);
      const back = await delta(tenant, during.next);
      expect([ids(back.changed), back.removed]).toEqual([[record.id], []]);
    } finally {
      await tenant.stop();
    }
  });

  it('a record created, then deleted after the changes were read: neither sent nor removed, so no caller keeps it', async () => {
    const tenant = await startOwnTenant(10);
    try {
      const first = await delta(tenant, EMPTY_STATE);
      const published = (await tenant.documents('contracts')).find((document) => document.status === 'Published')!;
      const created = { ...published, id: 'CON-RACE-CREATED', contractId: 'CON-RACE-CREATED', title: 'created, then gone' };
      await tenant.write('contracts', [created]);
      const during = await delta(tenant, first.next, deletedAfterChanges(tenant, created.id));
      expect([ids(during.changed), during.removed]).toEqual([[], []]);
      expect(during.next.records.has(created.id)).toBe(false);
      // Nothing more to say of it the night after.
      const after = await delta(tenant, during.next);
      expect([ids(after.changed), after.removed]).toEqual([[], []]);
    } finally {
      await tenant.stop();
    }
  });
});

describe('a record the store hands over twice in one delta', () => {
  it('is decided by the copy read last: sent, or removed as left out, never both', async () => {
    const tenant = await startOwnTenant(10);
    try {
      const readAs = () => read('full', {}, tenant.tenant);
      // A record whose title says "malformed" is left out, as the cleaner leaves out a malformed one.
      const give = (record: StoredRecord) => (record.title === 'malformed' ? undefined : record);
      const first = await computeDelta({ reads: store, ...readAs(), keyField: 'createdDate', state: EMPTY_STATE, now: Date.now(), give });
      const record = (await tenant.documents('contracts')).find((document) => document.status === 'Published')!;
      await tenant.write('contracts', [{ ...record, title: 'changed' }]);
      const twice = (last: 'malformed' | 'changed'): typeof store => ({
        ...store,
        async *changed(...args: Parameters<typeof store.changed>) {
          for await (const rows of store.changed(...args)) {
            const copy = rows.find((row) => row.contractId === record.id);
            yield copy ? [...rows, { ...copy, title: last === 'changed' ? 'malformed' : 'changed' }, { ...copy, title: last }] : rows;
          }
        },
      });
      const leftOut = await computeDelta({ reads: twice('malformed'), ...readAs(), keyField: 'createdDate', state: first.next, now: Date.now(), give });
      expect([ids(leftOut.changed), leftOut.removed]).toEqual([[], [{ id: record.id, reason: 'leftView' }]]);
      const sent = await computeDelta({ reads: twice('changed'), ...readAs(), keyField: 'createdDate', state: first.next, now: Date.now(), give });
      expect([ids(sent.changed), sent.removed]).toEqual([[record.id], []]);
    } finally {
      await tenant.stop();
    }
  });
});

describe('a mass removal', () => {
  it('is found whole, by reading the ids of the parts most of which are gone rather than counting them down one by one', async () => {
    const tenant = await startOwnTenant(5);
    try {
      const target = mirror('full');
      const readAs = () => read(target.view, target.body, tenant.tenant);
      const batch = Array.from({ length: 120 }, (_, index) => contract(`2024-06-${String(1 + (index % 28)).padStart(2, '0')}T08:${String(index % 60).padStart(2, '0')}:00.000Z`));
      await tenant.write('contracts', batch);
      const first = await computeDelta({ reads: store, ...readAs(), keyField: 'createdDate', state: EMPTY_STATE, now: Date.now() });
      target.state = first.next;
      const gone = batch.slice(0, 100).map((document) => document.id as string);
      await tenant.remove('contracts', gone);
      const meter: StoreMeter = { documents: 0, requestCharge: 0 };
      let aggregates = 0;
      const counting = { ...store, count: (...args: Parameters<typeof store.count>) => (aggregates++, store.count(...args)) };
      const delta = await computeDelta({ reads: counting, ...readAs(), keyField: 'createdDate', state: target.state, now: Date.now(), meter });
      expect(removals(delta.removed)).toEqual(gone.sort().map((id) => ({ id, reason: 'deleted' })));
      // The ids of what is left, read at once, not an aggregate halving down to each removal (about 7 each).
      expect([aggregates, meter.documents <= first.changed.length]).toEqual([expect.any(Number), true]);
      expect(aggregates).toBeLessThanOrEqual(4);
    } finally {
      await tenant.stop();
    }
  });
});

describe('deltas night after night', () => {
  it('keep a mirror of each view equal to the view after every night, whatever was written (property)', async () => {
    // More records than a leaf's reach per write: a night that reads the whole view fails it.
    const tenant = await startOwnTenant(400);
    const documents = async () => tenant.documents('contracts');
    const kinds = ['create', 'update', 'touch', 'draft', 'publish', 'move', 'delete', 'recreate'] as const;
    try {
      const targets = [mirror('full'), mirror('basic'), mirror('basic', { createdFrom: '2025-03-01', createdTo: '2025-03-31' })];
      const readAs = (target: Mirror) => ({ ...read(target.view, target.body, tenant.tenant) });
      const nightOf = async (target: Mirror) => {
        const meter: StoreMeter = { documents: 0, requestCharge: 0 };
        const delta = await computeDelta({ reads: store, ...readAs(target), keyField: 'createdDate', state: target.state, now: Date.now(), meter });
        for (const record of delta.changed) target.records.set(String(record.contractId), record);
        for (const { id } of delta.removed) target.records.delete(id);
        target.state = delta.next;
        return meter.documents;
      };
      const exact = async (target: Mirror) => {
        const { scope, query } = readAs(target);
        const expected = new Map<string, StoredRecord>();
        for await (const page of store.stream(scope, query)) for (const record of page) expected.set(String(record.contractId), record);
        expect([...target.records.entries()].sort()).toEqual([...expected.entries()].sort());
        return expected.size;
      };
      for (const target of targets) await nightOf(target);
      await fc.assert(fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...kinds), fc.nat(), fc.integer({ min: 0, max: 23 })), { minLength: 1, maxLength: 6 }),
        async (writes) => {
          const all = await documents();
          const pick = (n: number) => all[n % all.length]!;
          const writesOf: Doc[] = [];
          const deletes: string[] = [];
          for (const [kind, n, month] of writes) {
            const record = pick(n);
            // Every other move lands in March, the narrow view's month.
            const day = month % 2 === 0 ? `2025-03-${String(1 + month).padStart(2, '0')}T08:00:00.000Z` : `${2024 + Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}-15T08:00:00.000Z`;
            if (writesOf.some((doc) => doc.id === record.id) || deletes.includes(record.id)) continue;
            if (kind === 'create') writesOf.push(contract(day));
            else if (kind === 'update') writesOf.push({ ...record, title: `title ${++serial}`, updatedDate: day });
            else if (kind === 'touch') writesOf.push({ ...record, contractAmount: Number(record.contractAmount ?? 0) + 1 });
            else if (kind === 'draft') writesOf.push({ ...record, status: 'Draft' });
            else if (kind === 'publish') writesOf.push({ ...record, status: 'Published' });
            else if (kind === 'move') writesOf.push({ ...record, createdDate: day });
            else if (kind === 'delete') deletes.push(record.id);
            else {
              deletes.push(record.id);
              await tenant.remove('contracts', [record.id]);
              writesOf.push({ ...record, title: `again ${++serial}` });
            }
          }
          const removeNow = deletes.filter((id) => !writesOf.some((doc) => doc.id === id));
          if (removeNow.length > 0) await tenant.remove('contracts', removeNow);
          if (writesOf.length > 0) await tenant.write('contracts', writesOf);
          for (const target of targets) {
            // What a delta must read: the records written since its state's time (which includes
            // the quiet margin before the last delta began), in any view.
            const since = target.state.since;
            const written = (await documents()).filter((document) => document._ts >= since).length;
            const documentsRead = await nightOf(target);
            const viewSize = await exact(target);
            // Those, and the ids of a leaf of the search per write that may have removed a record
            // (nothing more when none may have): never the view.
            const removing = writes.filter(([kind]) => ['draft', 'move', 'delete', 'recreate'].includes(kind)).length;
            expect(documentsRead - written).toBeLessThanOrEqual(removing * LEAF_RECORDS + writes.length);
            if (written < viewSize / 2) expect(documentsRead).toBeLessThan(viewSize);
          }
        },
      ), { numRuns: 12, seed: 20261129, endOnFailure: true });
    } finally {
      await tenant.stop();
    }
  });
});
