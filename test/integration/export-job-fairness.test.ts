import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { seedStore } from '../../dev/seed-store.js';
import type { RecordStore } from '../../shared/store/record-store.js';
import { credentials, jobCall, kickOff, runJob, type JobStatusDocument } from '../support/export-jobs.js';
import { client, directStore } from '../support/stack.js';
import { startTestService, type TestService } from '../support/test-service.js';

// Two data tenants on one instance with export jobs: the busy one fills its caps with queued months
// whose every export is slow (the store waits before each of its streams), the quiet one asks for
// one month. The queue is first in, first out, and its workers are two: the quiet tenant's month
// must not wait behind the busy tenant's hundred, nor a busy client's sibling for an export slot.
const BUSY_WINDOW_MS = 400;
const busy = `jobbusy${randomBytes(3).toString('hex')}`;
const quiet = `jobquiet${randomBytes(3).toString('hex')}`;
const BUSY_CLIENTS = ['contoso-full', 'contoso-basic'];
const SIBLING = 'contoso-financials';
const QUIET_CLIENT = 'fabrikam-full';
/** The busy tenant's caps' worth: two clients, two jobs each, 25 months each (EXPORT_WINDOWS_PER_TENANT 100). */
const BUSY_RANGE = { createdFrom: '2023-01-01', createdTo: '2025-01-31' };
let service: TestService;

/** The busy tenant's windows (its jobs' range ends before 2025-02) that have started reading the store, and what holds them there once closed. */
let windowsReading = 0;
let gate: Promise<void> = Promise.resolve();
const slowForBusy = (real: RecordStore): RecordStore => ({
  ...real,
  async *stream(scope, query, meter) {
    const range = query.filters.find((filter) => filter.kind === 'dayRange');
    if (scope.tenant === busy && range?.kind === 'dayRange' && range.from < '2025-02') {
      windowsReading++;
      await gate;
      await new Promise((resolve) => setTimeout(resolve, BUSY_WINDOW_MS));
    }
    yield* real.stream(scope, query, meter);
  },
});

beforeAll(async () => {
  const store = directStore();
  await seedStore(store, { tenants: [busy, quiet], recordsPerTenant: 30 });
  store.dispose();
  const registry = Object.fromEntries([...[...BUSY_CLIENTS, SIBLING].map((name) => [client(name).clientId, busy]), [client(QUIET_CLIENT).clientId, quiet]]);
  service = await startTestService({ settings: { CLIENT_REGISTRY: JSON.stringify(registry), EXPORT_WINDOWS_PER_TENANT: '100' }, store: slowForBusy, exports: {} });
});

afterAll(async () => {
  await service?.stop();
});

/** The busy tenant's four jobs, kicked off; their Locations by client. */
async function fillBusyTenant(): Promise<[string, string][]> {
  const started: [string, string][] = [];
  for (const name of [...BUSY_CLIENTS, ...BUSY_CLIENTS]) {
    const response = await kickOff(service, name, 'contracts', BUSY_RANGE);
    expect(response.status).toBe(202);
    started.push([name, response.headers.get('location')!]);
  }
  return started;
}

async function progressOf(jobs: readonly [string, string][]): Promise<number> {
  let done = 0;
  for (const [name, location] of jobs) done += ((await (await jobCall(service, name, location)).json()) as JobStatusDocument).progress.done;
  return done;
}

async function cancel(jobs: readonly [string, string][]): Promise<void> {
  for (const [name, location] of jobs) expect((await jobCall(service, name, location, 'DELETE')).status).toBe(202);
}

describe('export jobs of two tenants on one queue', () => {
  it('serve the quiet tenant\'s one-month job in turn while the busy tenant has its caps\' worth of months queued', async () => {
    const jobs = await fillBusyTenant();
    const { manifest } = await runJob(service, QUIET_CLIENT, 'contracts', { createdFrom: '2025-03-01', createdTo: '2025-03-31' });
    const busyDone = await progressOf(jobs);
    await cancel(jobs);
    expect(manifest.windows.map((window) => window.status)).toEqual(['exported']);
    // In arrival order the quiet month would have come after all 100 busy months; in turn, after a few.
    expect(busyDone).toBeLessThan(20);
  }, 120_000);

  it('leave a busy client\'s sibling its synchronous exports while the tenant\'s jobs run', async () => {
    // A window of the busy tenant holds its export slot (its read held at the store) all along.
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const reading = windowsReading;
    const jobs = await fillBusyTenant();
    // The state it needs, not a clock: a window of the busy tenant is reading (the test's own timeout bounds the wait).
    while (windowsReading === reading) await new Promise((resolve) => setTimeout(resolve, 50));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${service.baseUrl}/v1/contracts/summary`, {
        method: 'POST',
        headers: { ...(await credentials(service, SIBLING)), 'content-type': 'application/json', accept: 'application/vnd.apache.parquet' },
        body: JSON.stringify({ createdFrom: '2025-06-01', createdTo: '2025-06-30' }),
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    open();
    await cancel(jobs);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
  }, 120_000);
});
