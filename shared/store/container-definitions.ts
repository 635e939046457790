/**
 * The one definition of the Cosmos containers: id, partition key and indexing policy per resource.
 * It is plain data derived from the model, with no SDK types, so that the local stack creates its
 * containers from it and a test can hold the Bicep templates against it.
 */
import { PARTITION_KEY_PATHS, TENANT_FIELD, type ResourceDefinition } from '../model/resource-definition.js';
import { deepFreeze } from '../util/deep-freeze.js';

/** One path of a composite index, in the shape Cosmos and Bicep both use. */
export interface CompositePath {
  readonly path: string;
  readonly order: 'ascending' | 'descending';
}

/** A container's definition, in the shape of the Cosmos REST resource (and of its Bicep `resource`). */
export interface ContainerDefinition {
  readonly id: string;
  readonly partitionKey: {
    readonly paths: readonly string[];
    /** Hash: one path; MultiHash: a hierarchical key of up to three paths, queried by prefix. */
    readonly kind: 'Hash' | 'MultiHash';
    /** Version 2 hashes the full key value; version 1 only its first 100 bytes (MultiHash needs 2). */
    readonly version: 2;
  };
  /** Seconds a document lives when it sets no `ttl` of its own (-1: only those that set one expire; absent: none expires). */
  readonly defaultTtl?: number;
  readonly indexingPolicy: {
    readonly indexingMode: 'consistent';
    readonly automatic: true;
    readonly includedPaths: readonly { readonly path: string }[];
    readonly excludedPaths: readonly { readonly path: string }[];
    readonly compositeIndexes: readonly (readonly CompositePath[])[];
  };
}

/** The document property every ORDER BY ends with, so that pages are stable under ties. */
const TIE_BREAKER_PATH = '/id';

/**
 * `(field, id)` ascending and descending for every sortable field: a multi-field ORDER BY is only
 * served from a composite index whose orders match the query exactly (both directions equal), and the
 * service always breaks ties by id in the same direction as the requested order.
 */
function compositeIndexes(resource: ResourceDefinition): CompositePath[][] {
  return resource.sortable.flatMap((field) =>
    (['ascending', 'descending'] as const).map((order) => [
      { path: `/${field}`, order },
      { path: TIE_BREAKER_PATH, order },
    ]),
  );
}

/** The definition of the container that holds `resource`, deeply frozen. */
export function containerDefinition(resource: ResourceDefinition): ContainerDefinition {
  return deepFreeze({
    id: resource.containerId,
    partitionKey: { paths: [...PARTITION_KEY_PATHS], kind: 'MultiHash', version: 2 },
    indexingPolicy: {
      indexingMode: 'consistent',
      automatic: true,
      // Cosmos's own default: index everything except the system etag.
      includedPaths: [{ path: '/*' }],
      excludedPaths: [{ path: '/"_etag"/?' }],
      compositeIndexes: compositeIndexes(resource),
    },
  });
}

/** The container of the server-side page cursors (docs/store.md): short-lived, one tenant per partition. */
export const PAGE_CURSORS_CONTAINER: ContainerDefinition = deepFreeze({
  id: 'pageCursors',
  partitionKey: { paths: [`/${TENANT_FIELD}`], kind: 'Hash', version: 2 },
  // A cursor is worth keeping while a caller walks its pages; ten minutes covers slow clients.
  defaultTtl: 600,
  indexingPolicy: {
    indexingMode: 'consistent',
    automatic: true,
    // Cursors are only point-read by id: index nothing.
    includedPaths: [],
    excludedPaths: [{ path: '/*' }],
    compositeIndexes: [],
  },
});

/**
 * The container of export jobs (docs/decisions.md, "Where export jobs are kept"): a job, each of
 * its windows' outcomes and its done marker, partitioned by data tenant. Every document sets its
 * own `ttl`, to the job's expiry: job state deletes itself.
 */
export const EXPORT_JOBS_CONTAINER: ContainerDefinition = deepFreeze({
  id: 'exportJobs',
  partitionKey: { paths: [`/${TENANT_FIELD}`], kind: 'Hash', version: 2 },
  defaultTtl: -1,
  indexingPolicy: {
    indexingMode: 'consistent',
    automatic: true,
    // Read by id, or queried within a tenant by these (an outcome by its ETag: check-windows.ts): the rest (windows, files, problems) is never filtered on.
    includedPaths: [{ path: '/kind/?' }, { path: '/jobId/?' }, { path: '/clientId/?' }, { path: '/etag/?' }],
    excludedPaths: [{ path: '/*' }],
    compositeIndexes: [],
  },
});
