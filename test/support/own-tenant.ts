import { randomBytes } from 'node:crypto';
import type { CosmosClient } from '@azure/cosmos';
import { clientSettings } from '../../dev/client-settings.js';
import { generateTenantDocuments } from '../../dev/seed-data.js';
import { upsertAll } from '../../dev/seed-store.js';
import { DATABASE_ID, RESOURCES, resourceNamed } from '../../shared/model/resources.js';
import { client, directStore, identities, stack } from './stack.js';
import { startTestService, type TestService, type TestServiceOptions } from './test-service.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

/** A data tenant of a test's own, on the stack's store, served to contoso-full by a service of its own. */
export interface OwnTenant {
  readonly tenant: string;
  readonly service: TestService;
  /** The pull client's settings for contoso-full against this service. */
  readonly settings: Record<string, string>;
  /** Every stored document of `resource` of this tenant, read now. */
  documents(resource: string): Promise<Doc[]>;
  /**
   * Writes documents of `resource` (upserts, tenant set), as the system that owns the data would
   * (with `secondPerWrite`, in a whole second after the tenant's last write, its seeding included).
   */
  write(resource: string, documents: readonly Doc[]): Promise<void>;
  /** Deletes documents of `resource` by id, as the system that owns the data would. */
  remove(resource: string, ids: readonly string[]): Promise<void>;
  stop(): Promise<void>;
}

/** Who the tenant's service serves, and how. */
export interface OwnTenantOptions {
  /** The dev clients mapped to the tenant (default contoso-full). */
  readonly clients?: readonly string[];
  /** More options of its service (its clock, a store wrapper). */
  readonly service?: Omit<TestServiceOptions, 'settings'>;
  /** Settings of its service besides the client registry. */
  readonly settings?: Record<string, string>;
  /**
   * A write in the second of the tenant's last write waits for the next whole second of the clock
   * the store stamps writes by (default: when the service is given a clock). For a service whose
   * clock runs past the quiet period (result-etag.ts): it takes a version at once, and a second
   * write in the second of that version's latest one would change nothing it can see (a write in a
   * later second raises the latest write time every version holds).
   */
  readonly secondPerWrite?: boolean;
}

/** The name whose seed every own tenant gets (its records, by the seed's rules, with its own tenantId). */
const SEED_NAME = 'pulls';

/**
 * Seeds `recordsPerTenant` contracts and invoices for a fresh data tenant (no other test sees or
 * counts it) and starts a service that maps contoso-full to it: a test may add and change records
 * as the data's writer does, while the other suites run against contoso and fabrikam.
 */
export async function startOwnTenant(recordsPerTenant = 40, options: OwnTenantOptions = {}): Promise<OwnTenant> {
  const tenant = `pulls${randomBytes(4).toString('hex')}`;
  const store: CosmosClient = directStore();
  const container = (resource: string) => store.database(DATABASE_ID).container(resourceNamed(resource).containerId);
  // The records of a tenant named SEED_NAME, whatever this tenant's random name: the seed mixes a
  // tenant's name into its dates, and a test that needs a record of some month must find it on
  // every run (March held none on one run and failed it).
  const seeded = generateTenantDocuments(SEED_NAME, recordsPerTenant);
  await Promise.all(RESOURCES.map((resource) => upsertAll(container(resource.name), (seeded[resource.name] ?? []).map((document) => ({ ...document, tenantId: tenant })))));
  // The second of the tenant's last write: a version taken since holds it as its latest write.
  let lastWrite = Math.floor(Date.now() / 1000);
  const clients = options.clients ?? ['contoso-full'];
  const secondPerWrite = options.secondPerWrite ?? options.service?.clock !== undefined;
  const service = await startTestService({ ...options.service, settings: { ...options.settings, CLIENT_REGISTRY: JSON.stringify(Object.fromEntries(clients.map((name) => [client(name).clientId, tenant]))) } });
  return {
    tenant,
    service,
    settings: clientSettings({ baseUrl: service.baseUrl, authUrl: service.idp!.url, identities, caFile: stack.caFile }),
    async documents(resource) {
      const query = { query: 'SELECT * FROM c WHERE c.tenantId = @t', parameters: [{ name: '@t', value: tenant }] };
      return (await container(resource).items.query<Doc>(query, { partitionKey: [tenant] }).fetchAll()).resources;
    },
    async write(resource, documents) {
      if (secondPerWrite) await secondAfter(lastWrite);
      await upsertAll(container(resource), documents.map((document) => ({ ...document, tenantId: tenant } as Doc & { tenantId: string; id: string })));
      lastWrite = Math.floor(Date.now() / 1000);
    },
    async remove(resource, ids) {
      for (const id of ids) await container(resource).item(id, [tenant, id]).delete();
    },
    async stop() {
      await service.stop();
      store.dispose();
    },
  };
}

/** Resolves once the machine's clock (the one the store stamps writes by) is past whole second `second` (at once when it is). */
async function secondAfter(second: number): Promise<void> {
  while (Math.floor(Date.now() / 1000) <= second) await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
}
