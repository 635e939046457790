import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { seedStore } from '../../dev/seed-store.js';
import type { RecordStore } from '../../shared/store/record-store.js';
import { accessClaims, callService, startTestService, type TestService } from '../support/test-service.js';
import { client, directStore } from '../support/stack.js';

// Two data tenants on one instance with two export slots: four clients of one tenant export in a
// loop, while the other tenant's one client exports now and then. The store is slowed at its seam
// (every page of an export waits), so that an export takes seconds, as a whole history does.
const EXPORT_PAGE_DELAY_MS = 1500;
const busy = `fairbusy${randomBytes(3).toString('hex')}`;
const quiet = `fairquiet${randomBytes(3).toString('hex')}`;
const BUSY_CLIENTS = ['contoso-full', 'contoso-basic', 'contoso-financials', 'contoso-suppliers'];
const QUIET_CLIENT = 'fabrikam-full';
let service: TestService;

const slowStore = (real: RecordStore): RecordStore => ({
  ...real,
  async *stream(scope, query, meter) {
    for await (const page of real.stream(scope, query, meter)) {
      await new Promise((resolve) => setTimeout(resolve, EXPORT_PAGE_DELAY_MS));
      yield page;
    }
  },
});

beforeAll(async () => {
  const store = directStore();
  await seedStore(store, { tenants: [busy, quiet], recordsPerTenant: 30 });
  store.dispose();
  const registry = Object.fromEntries([...BUSY_CLIENTS.map((name) => [client(name).clientId, busy]), [client(QUIET_CLIENT).clientId, quiet]]);
  service = await startTestService({ settings: { CLIENT_REGISTRY: JSON.stringify(registry) }, store: slowStore });
});

afterAll(async () => {
  await service?.stop();
});

/**
 * The answer's status, and its problem's code where it has one (a failure then says which 503).
 * A 503 STORE_UNAVAILABLE is asked again, as every client does: on a loaded machine the run's one
 * embedded store can stall past the SDK's 10 s, which is not what this test is about.
 */
async function exportAs(name: string): Promise<number | string> {
  for (let attempt = 1; ; attempt++) {
    const status = await exportOnce(name);
    if (status !== '503 STORE_UNAVAILABLE' || attempt === STORE_ATTEMPTS) return status;
  }
}

/** Tries of an export the store could not answer. */
const STORE_ATTEMPTS = 3;

async function exportOnce(name: string): Promise<number | string> {
  const token = await service.idp!.signToken(accessClaims(service, name));
  const response = await callService(service, 'invoices', {
    headers: { authorization: `Bearer ${token}`, 'x-api-key': service.identities.apiKeys[0]!, accept: 'application/zip' },
    body: JSON.stringify({ createdFrom: '2025-01-01', createdTo: '2025-01-31' }),
  });
  const body = Buffer.from(await response.arrayBuffer());
  return response.status === 200 ? 200 : `${response.status} ${(JSON.parse(body.toString()) as { code?: string }).code}`;
}

describe('export slots shared between tenants', () => {
  it('leave another tenant a slot while one tenant\'s four clients export in a loop: it sees no EXPORTS_BUSY', async () => {
    let stop = false;
    const busyStatuses: (number | string)[] = [];
    const loops = BUSY_CLIENTS.map(async (name) => {
      while (!stop) busyStatuses.push(await exportAs(name));
    });
    // Let the busy tenant take what it can first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const quietStatuses: (number | string)[] = [];
    for (let i = 0; i < 4; i++) {
      quietStatuses.push(await exportAs(QUIET_CLIENT));
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    stop = true;
    await Promise.all(loops);
    expect(quietStatuses).toEqual([200, 200, 200, 200]);
    // The busy tenant ran all along, two exports at a time: its other clients waited or were told to come back.
    expect(busyStatuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(3);
    expect(busyStatuses.filter((status) => status !== 200 && status !== '503 EXPORTS_BUSY')).toEqual([]);
  });
});
