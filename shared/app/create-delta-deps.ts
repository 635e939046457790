import type { ExportSettings } from '../config/load-config.js';
import type { DeltaBlobs } from '../delta/delta-blobs.js';
import type { DeltaDeps } from '../delta/delta-deps.js';
import type { SummaryDeps } from '../http/summary-deps.js';
import type { TokenCredential } from '@azure/core-auth';
import { storageCredential } from './create-export-deps.js';
import { cosmosStoresOf } from './create-summary-deps.js';

/**
 * The delta feed's collaborators: the record store's delta reads on the summary operations' Cosmos
 * client, and its blobs in the export storage account (the `delta-states` container), authorized
 * as the export jobs are. The storage SDK loads with the first delta, off the cold start.
 */
export function createDeltaDeps(settings: ExportSettings, deps: SummaryDeps, credential: TokenCredential = storageCredential(settings), overrides: Partial<DeltaDeps> = {}): DeltaDeps {
  let blobs: Promise<DeltaBlobs> | undefined;
  const blobStore = () => (blobs ??= import('../delta/azure-delta-blobs.js').then((module) => module.createBlobDeltaBlobs({ blobServiceUri: settings.blobServiceUri, credential })));
  return {
    reads: overrides.reads ?? cosmosStoresOf(deps.config, deps.log).deltas,
    blobs: overrides.blobs ?? { get: async (name) => (await blobStore()).get(name), put: async (name, bytes) => (await blobStore()).put(name, bytes) },
    tokenDays: overrides.tokenDays ?? settings.deltaTokenDays,
  };
}
