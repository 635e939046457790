import { createCosmosClient, type CosmosClientOptions } from '../store/create-cosmos-client.js';
import { createCosmosRecordStore } from '../store/cosmos-record-store.js';
import { createCosmosPageCursors, type PageCursors } from '../cursors/page-cursors.js';
import type { RecordStore } from '../store/record-store.js';

/** The record store and the page cursors, over one Cosmos client (one connection pool). */
export interface CosmosStores {
  readonly store: RecordStore;
  readonly cursors: PageCursors;
}

/** Builds both stores on one client; `timeoutMs` is the deadline of one store call. */
export function createCosmosStores(options: CosmosClientOptions & { readonly timeoutMs: number }): CosmosStores {
  const { timeoutMs, ...clientOptions } = options;
  const client = createCosmosClient(clientOptions);
  return { store: createCosmosRecordStore(client, { timeoutMs }), cursors: createCosmosPageCursors(client) };
}
