import type { TokenCredential } from '@azure/core-auth';
import { BlobServiceClient, RestError } from '@azure/storage-blob';
import { ApiError } from '../errors/api-error.js';
import { DELTA_CONTAINER, type DeltaBlobs } from './delta-blobs.js';

/** A call gives up soon: a delta that cannot reach its storage answers 503 in seconds. */
const RETRY = { maxTries: 3, tryTimeoutInMs: 30_000, retryDelayInMs: 250, maxRetryDelayInMs: 2000 };

/**
 * The delta feed's blobs in Azure Blob Storage (the export storage account), authorized by the
 * service's identity. A fault is a 503 STORAGE_UNAVAILABLE: nothing of the delta was answered.
 */
export function createBlobDeltaBlobs(options: { readonly blobServiceUri: string; readonly credential: TokenCredential }): DeltaBlobs {
  const container = new BlobServiceClient(options.blobServiceUri, options.credential, { retryOptions: RETRY }).getContainerClient(DELTA_CONTAINER);
  return {
    async get(name) {
      try {
        return await container.getBlockBlobClient(name).downloadToBuffer();
      } catch (error) {
        if (error instanceof RestError && error.statusCode === 404) return undefined;
        throw unavailable(error);
      }
    },
    async put(name, bytes) {
      try {
        await container.getBlockBlobClient(name).uploadData(bytes, { blobHTTPHeaders: { blobContentType: 'application/gzip' } });
      } catch (error) {
        throw unavailable(error);
      }
    },
  };
}

function unavailable(error: unknown): ApiError {
  return new ApiError('STORAGE_UNAVAILABLE', 'The storage the delta feed keeps its tokens and pages in is unavailable; nothing was answered. Retry shortly with the same request.', { headers: { 'Retry-After': '10' }, cause: error });
}
