import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { runJob, type JobStatusDocument } from '../support/export-jobs.js';
import { directStore } from '../support/stack.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';
import { DATABASE_ID } from '../../shared/model/resources.js';
import { EXPORT_JOBS_CONTAINER } from '../../shared/store/container-definitions.js';
import type { RecordStore } from '../../shared/store/record-store.js';

// A kick-off sent a manifest's ETags checks the settled months it can vouch for in one aggregate
// (check-windows.ts). These tests hold that it finds exactly what a check per month finds: every
// kind of write, in any month, an ETag older than its neighbours, a forged record of a version.
const RANGE = { createdFrom: '2025-01-01', createdTo: '2025-06-30' };
const SETTLED = ['2025-01', '2025-02', '2025-03', '2025-04', '2025-05'];

/** The days of every version (aggregate) the service asked the store for, in the order asked. */
const versions: string[] = [];
let own: OwnTenant;
/** The manifest of the last job: the ETags the next one is sent, as a nightly mirror sends them. */
let last: JobStatusDocument;
/** Each month's records as last exported (an unchanged month's manifest says 0). */
const records: Record<string, number> = {};

function keep(manifest: JobStatusDocument): void {
  last = manifest;
  for (const window of manifest.windows) if (window.status === 'exported') records[window.label] = window.records!;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

function counting(real: RecordStore): RecordStore {
  return {
    version(scope, query, meter) {
      const range = query.filters.find((filter) => filter.kind === 'dayRange');
      versions.push(range?.kind === 'dayRange' ? `${range.from}..${range.to}` : 'all');
      return real.version(scope, query, meter);
    },
    page: (...args) => real.page(...args),
    stream: (...args) => real.stream(...args),
  };
}

/**
 * The service's clock runs past the quiet period (result-etag.ts): a version is taken as settled
 * at once, with no wait, and each write lands in a second after the last one (own-tenant.ts), so
 * every write changes the latest write time a version holds.
 */
const AHEAD = () => Date.now() + (QUIET_SECONDS + 1) * 1000;

/** A job sent `last`'s ETags (some replaced): the status of each window, the versions it asked, and the records each exported month gained or lost. */
async function nightly(replaced: Record<string, string> = {}): Promise<{ statuses: Record<string, string>; asked: string[]; added: Record<string, number> }> {
  const ifNoneMatch = { ...Object.fromEntries(last.windows.map((window) => [window.label, window.etag!])), ...replaced };
  versions.length = 0;
  const { manifest } = await runJob(own.service, 'contoso-full', 'contracts', { ...RANGE, ifNoneMatch });
  const before = { ...records };
  keep(manifest);
  return {
    statuses: Object.fromEntries(manifest.windows.map((window) => [window.label, window.status])),
    asked: [...versions].sort(),
    added: Object.fromEntries(Object.keys(records).filter((label) => records[label] !== before[label]).map((label) => [label, records[label]! - before[label]!])),
  };
}

const exported = (statuses: Record<string, string>) => Object.keys(statuses).filter((label) => statuses[label] === 'exported');

/** A stored contract of the month (not a Draft), to change. */
async function contractOf(month: string): Promise<Doc> {
  const found = (await own.documents('contracts')).find((document) => String(document.createdDate).startsWith(month) && document.status !== 'Draft');
  if (!found) throw new Error(`the seed has no contract in ${month}`);
  return found;
}

beforeAll(async () => {
  own = await startOwnTenant(120, { service: { store: counting, clock: AHEAD, exports: { queueSettings: { maxPollingIntervalMs: 200 } } } });
  // The seed's months are random per tenant: every month of the range gets two published
  // contracts of its own for the cases to change (a month without one failed a run).
  const template = (await own.documents('contracts'))[0]!;
  await own.write('contracts', [...SETTLED, '2025-06'].flatMap((month) => [10, 20].map((day) => ({
    ...template, id: `checks-${month}-${day}`, contractId: `checks-${month}-${day}`, status: 'Published', createdDate: `${month}-${day}T08:00:00.000Z`,
  }))));
  keep((await runJob(own.service, 'contoso-full', 'contracts', RANGE)).manifest);
});

afterAll(async () => {
  await own?.stop();
});

describe('a kick-off checks the settled months it can vouch for together', () => {
  it('with nothing changed asks two aggregates, the open month and the rest, night after night', async () => {
    for (let night = 0; night < 2; night++) {
      const { statuses, asked } = await nightly();
      expect(Object.values(statuses)).toEqual(Array(6).fill('unchanged'));
      expect(asked).toEqual(['2025-01-01..2025-05-31', '2025-06-01..2025-06-30']);
    }
  });

  it('exports exactly the month of a create, an update, a delete, and both months of a record moved', async () => {
    // What each write does: the months exported, and the records each of them gained or lost.
    const cases: [string, () => Promise<void>, string[], Record<string, number>][] = [
      ['create', async () => {
        const template = await contractOf('2025-03');
        await own.write('contracts', [{ ...template, id: 'checks-created', contractId: 'checks-created', createdDate: '2025-03-20T08:00:00.000Z' }]);
      }, ['2025-03'], { '2025-03': +1 }],
      ['update', async () => {
        const record = await contractOf('2025-02');
        await own.write('contracts', [{ ...record, supplierName: `${record.supplierName} (renamed)` }]);
      }, ['2025-02'], {}],
      ['delete', async () => {
        await own.remove('contracts', [(await contractOf('2025-04')).id]);
      }, ['2025-04'], { '2025-04': -1 }],
      ['move', async () => {
        const record = await contractOf('2025-01');
        await own.write('contracts', [{ ...record, createdDate: '2025-05-15T08:00:00.000Z' }]);
      }, ['2025-01', '2025-05'], { '2025-01': -1, '2025-05': +1 }],
      ['move to the open month', async () => {
        const record = await contractOf('2025-03');
        await own.write('contracts', [{ ...record, createdDate: '2025-06-10T08:00:00.000Z' }]);
      }, ['2025-03', '2025-06'], { '2025-03': -1, '2025-06': +1 }],
    ];
    for (const [kind, write, months, delta] of cases) {
      await write();
      const { statuses, asked, added } = await nightly();
      expect([kind, exported(statuses), added]).toEqual([kind, months, delta]);
      // The settled months were asked together first, then each on its own once that differed.
      expect([kind, asked.includes('2025-01-01..2025-05-31'), asked.length]).toEqual([kind, true, 2 + SETTLED.length + months.length]);
    }
    // Settled again: together, and nothing exported.
    const { statuses, asked } = await nightly();
    expect(exported(statuses)).toEqual([]);
    expect(asked).toHaveLength(2);
  }, 120_000);

  it('checks on its own a month sent an ETag older than its neighbours\' versions, and finds the update it missed', async () => {
    const stale = last.windows.find((window) => window.label === '2025-02')!.etag!;
    // February changes; later, May changes too, and the mirror takes both.
    const february = await contractOf('2025-02');
    await own.write('contracts', [{ ...february, supplierName: `${february.supplierName} (again)` }]);
    const may = await contractOf('2025-05');
    await own.write('contracts', [{ ...may, supplierName: `${may.supplierName} (again)` }]);
    expect(exported((await nightly()).statuses)).toEqual(['2025-02', '2025-05']);
    // A folder restored from before February's update: its February ETag is older than May's
    // version. Together the months would add up (the update moved no count, and May's write is
    // the latest), so they are not asked together: February is checked on its own, and exported.
    const { statuses, asked } = await nightly({ '2025-02': stale });
    expect(exported(statuses)).toEqual(['2025-02']);
    expect(asked.filter((days) => days === '2025-01-01..2025-05-31')).toEqual([]);
  });

  it('vouches for no ETag by a stored version it cannot work that ETag out from (forged, malformed): that month is checked on its own', async () => {
    const march = last.windows.find((window) => window.label === '2025-03')!;
    const store = directStore();
    try {
      const container = store.database(DATABASE_ID).container(EXPORT_JOBS_CONTAINER.id);
      const forged = { tenantId: own.tenant, kind: 'window', jobId: 'f'.repeat(32), label: '2025-03', status: 'unchanged', etag: march.etag, records: 0, files: [], ttl: 3600 };
      // The latest version recorded with March's ETag is not the one it was worked out from; another is no version at all.
      await container.items.create({ ...forged, id: `${forged.jobId}.2025-03`, checked: { records: records['2025-03']! + 1000, latestWrite: 1, takenAt: Date.now() + 60_000 } });
      await container.items.create({ ...forged, id: `${forged.jobId}.x`, checked: 'not a version' });
      const { statuses, asked } = await nightly();
      expect(exported(statuses)).toEqual([]);
      expect(asked).toEqual(['2025-01-01..2025-02-28', '2025-03-01..2025-03-31', '2025-04-01..2025-05-31', '2025-06-01..2025-06-30']);
    } finally {
      store.dispose();
    }
  });

  it('puts a record at a month\'s edge (an offset timestamp at midnight) in one month, and a delete beside it is found', async () => {
    // "2025-03-01T00:00:00+01:00" sorts before March's first UTC instant: a month's range is by
    // text from its first day's date, so it is March's, and in no gap between two months that a
    // joint check would count and no month holds.
    const template = await contractOf('2025-02');
    await own.write('contracts', [{ ...template, id: 'checks-between', contractId: 'checks-between', createdDate: '2025-03-01T00:00:00+01:00' }]);
    // Then a write in a settled month: the months' latest write is now later than that record's.
    const february = await contractOf('2025-02');
    await own.write('contracts', [{ ...february, supplierName: `${february.supplierName} (later)` }]);
    const edge = await nightly();
    expect([exported(edge.statuses), edge.added]).toEqual([['2025-02', '2025-03'], { '2025-03': +1 }]);
    // A delete in a settled month, of its oldest write: one record fewer, the latest write the
    // same. Had the edge record been between two months, the months together would add up again.
    const settled = (await own.documents('contracts')).filter((document) => document.id !== 'checks-between' && SETTLED.includes(String(document.createdDate).slice(0, 7)));
    const oldest = settled.sort((a, b) => a._ts - b._ts)[0]!;
    const month = String(oldest.createdDate).slice(0, 7);
    await own.remove('contracts', [oldest.id]);
    const { statuses, added } = await nightly();
    expect([exported(statuses), added]).toEqual([[month], { [month]: -1 }]);
  });
});
