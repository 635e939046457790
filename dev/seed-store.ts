/**
 * Fills the local store with the deterministic seed data of `seed-data.ts`.
 */
import { BulkOperationType, type Container, type CosmosClient, type OperationInput } from '@azure/cosmos';
import { partitionKeyOf } from '../shared/model/resource-definition.js';
import { DATABASE_ID, RESOURCES } from '../shared/model/resources.js';
import { ensureContainers } from './ensure-containers.js';
import { generateTenantDocuments } from './seed-data.js';

/**
 * The dev data set: what the local stack serves and what `azd up` loads into a sandbox. Records
 * per tenant are contracts, and as many invoices.
 */
export const DEV_DATA_SET = { tenants: ['contoso', 'fabrikam'], recordsPerTenant: 1500 } as const;

/** What to seed. */
export interface SeedStoreOptions {
  /** Data tenants, e.g. `['contoso', 'fabrikam']`. */
  readonly tenants: readonly string[];
  /** Contracts per tenant, and as many invoices. */
  readonly recordsPerTenant: number;
  /** PRNG seed; the same seed gives the same documents. */
  readonly seed?: number;
  /**
   * Create the database and containers first (the default: the embedded server starts empty).
   * False in Azure, where Bicep creates them and an Entra identity may not (data-plane roles
   * cannot create containers).
   */
  readonly createContainers?: boolean;
}

/** How many documents were written, by resource name. */
export type SeedStoreResult = Readonly<Record<string, number>>;

/** Tries of one upsert that times out. */
const UPSERT_ATTEMPTS = 3;

/** The SDK's timeout of a request (its TimeoutError's code). */
function isTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'TimeoutError';
}

/** Up to this many documents are upserted one by one, many in flight; more go in bulk. */
const ONE_BY_ONE = 200;
const IN_FLIGHT = 32;

/**
 * Upserts documents (the same again changes nothing). A few go one by one, 32 in flight: each is
 * a round trip of milliseconds on the embedded server. Many go in bulk: the SDK groups them into
 * batch requests per partition key range, but each `executeBulkOperations` call costs at least a
 * second (it ramps its concurrency up from 1 and waits 1 s for partial batches), whatever it holds.
 * Seeding 2 x 1500 records took 1.6-3.4 s in bulk, 6.9 s one by one 32 in flight; a test's write of
 * one record took 1 s in bulk, 10 ms one by one (measured on the embedded server). The deprecated
 * `items.bulk()` is on its way out of the SDK.
 */
export async function upsertAll(container: Container, documents: readonly { readonly tenantId: string; readonly id: string }[]): Promise<void> {
  const failures: string[] = [];
  if (documents.length <= ONE_BY_ONE) {
    let next = 0;
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, documents.length) }, async () => {
      while (next < documents.length) {
        const document = documents[next++]!;
        for (let attempt = 1; ; attempt++) {
          try {
            await container.items.upsert(document);
            break;
          } catch (error) {
            // An upsert is the same again: one that timed out while the store was busy (the
            // embedded server stalled past the SDK's 10 s by a heavy query beside it) is tried again.
            if (isTimeout(error) && attempt < UPSERT_ATTEMPTS) continue;
            failures.push(error instanceof Error ? error.message : String(error));
            break;
          }
        }
      }
    }));
  } else {
    const operations: OperationInput[] = documents.map((document) => ({
      operationType: BulkOperationType.Upsert,
      partitionKey: partitionKeyOf(document),
      resourceBody: { ...document },
    }));
    const results = await container.items.executeBulkOperations(operations);
    for (const result of results) {
      if (result.error !== undefined || (result.response?.statusCode ?? 500) >= 400) failures.push(result.error?.message ?? `status ${String(result.response?.statusCode)}`);
    }
  }
  if (failures.length > 0) throw new Error(`upserting into ${container.id}: ${failures.length} of ${documents.length} upserts failed, first: ${failures[0]}`);
}

/**
 * Creates the database and containers if needed (and asked), then upserts every tenant's seed documents into
 * the container of every resource. A resource without seed documents stops the seeding: the local
 * stack serves every resource it defines.
 */
export async function seedStore(client: CosmosClient, options: SeedStoreOptions): Promise<SeedStoreResult> {
  if (options.createContainers ?? true) await ensureContainers(client);
  const perTenant = options.tenants.map((tenant) => generateTenantDocuments(tenant, options.recordsPerTenant, options.seed));
  const database = client.database(DATABASE_ID);
  const counts = await Promise.all(RESOURCES.map(async (resource) => {
    const documents = perTenant.flatMap((documentsOf) => {
      const found = documentsOf[resource.name];
      if (!found) throw new TypeError(`the seed has no documents for resource ${resource.name}: add them to generateTenantDocuments`);
      return found;
    });
    await upsertAll(database.container(resource.containerId), documents);
    return [resource.name, documents.length] as const;
  }));
  return Object.fromEntries(counts);
}
