import { createCosmosClient, type CosmosClientOptions } from '../store/create-cosmos-client.js';
import { createCosmosRecordStore, type CosmosRecordStoreOptions } from '../store/cosmos-record-store.js';
import { createCosmosPageCursors, type PageCursors } from '../cursors/page-cursors.js';
import type { RecordStore } from '../store/record-store.js';
import { createCosmosExportJobs } from '../store/cosmos-export-jobs.js';
import type { ExportJobs } from '../store/export-jobs.js';

/** The record store, the page cursors and the export jobs, over one Cosmos client (one connection pool). */
export interface CosmosStores {
  readonly store: RecordStore;
  readonly cursors: PageCursors;
  readonly jobs: ExportJobs;
}

/** Builds the stores on one client; `timeoutMs` is the deadline of one store call, `warn` hears what the record store tells once. */
export function createCosmosStores(options: CosmosClientOptions & CosmosRecordStoreOptions): CosmosStores {
  const { timeoutMs, warn, ...clientOptions } = options;
  const client = createCosmosClient(clientOptions);
  return { store: createCosmosRecordStore(client, { timeoutMs, ...(warn ? { warn } : {}) }), cursors: createCosmosPageCursors(client), jobs: createCosmosExportJobs(client) };
}
