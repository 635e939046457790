import { createCosmosClient, type CosmosClientOptions } from '../store/create-cosmos-client.js';
import { createCosmosRecordStore, type CosmosRecordStoreOptions } from '../store/cosmos-record-store.js';
import { createCosmosPageCursors, type PageCursors } from '../cursors/page-cursors.js';
import type { DeltaReads, RecordStore } from '../store/record-store.js';
import { createCosmosExportJobs } from '../store/cosmos-export-jobs.js';
import type { ExportJobs } from '../store/export-jobs.js';

/** The record store (and its delta reads), the page cursors and the export jobs, over one Cosmos client (one connection pool). */
export interface CosmosStores {
  readonly store: RecordStore;
  /** The same store's reads for the delta feed. */
  readonly deltas: DeltaReads;
  readonly cursors: PageCursors;
  readonly jobs: ExportJobs;
}

/** Builds the stores on one client; `timeoutMs` is the deadline of one store call, `warn` hears what the record store tells once. */
export function createCosmosStores(options: CosmosClientOptions & CosmosRecordStoreOptions): CosmosStores {
  const { timeoutMs, warn, ...clientOptions } = options;
  const client = createCosmosClient(clientOptions);
  const store = createCosmosRecordStore(client, { timeoutMs, ...(warn ? { warn } : {}) });
  return { store, deltas: store, cursors: createCosmosPageCursors(client), jobs: createCosmosExportJobs(client) };
}
