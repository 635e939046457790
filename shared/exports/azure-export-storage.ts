import { Readable } from 'node:stream';
import type { TokenCredential } from '@azure/core-auth';
import { BlobSASPermissions, BlobServiceClient, generateBlobSASQueryParameters, SASProtocol, type UserDelegationKey } from '@azure/storage-blob';
import { QueueClient } from '@azure/storage-queue';
import { PARQUET_MEDIA_TYPE } from '../model/operation-contract.js';
import { EXPORT_STORAGE, type ExportFiles, type WindowMessage, type WindowQueue } from './export-storage.js';

/** Where the export storage account is, and who the service is to it. */
export interface ExportStorageOptions {
  readonly blobServiceUri: string;
  readonly queueServiceUri: string;
  readonly credential: TokenCredential;
}

/**
 * A storage call gives up soon: a kick-off that cannot reach storage answers 503 in seconds, and a
 * worker's message comes back anyway.
 */
const RETRY = { maxTries: 3, tryTimeoutInMs: 30_000, retryDelayInMs: 250, maxRetryDelayInMs: 2000 };

/** Blocks a file is uploaded in: memory of one upload is at most a few of them. */
const BLOCK_BYTES = 8 * 1024 * 1024;

/** A user delegation key is asked for at most this often per instance (Azure allows up to seven days of validity). */
const KEY_REUSE_MS = 60 * 60 * 1000;
const KEY_VALIDITY_MS = 7 * 24 * 60 * 60 * 1000 - 60 * 60 * 1000;

/** A SAS starts a little before now: the storage service's clock is not ours. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * The export files in Azure Blob Storage, authorized by the service's identity (never an account
 * key): every URL handed out is a user delegation SAS for one blob, read only, https only.
 */
export function createBlobExportFiles(options: ExportStorageOptions): ExportFiles {
  const service = new BlobServiceClient(options.blobServiceUri, options.credential, { retryOptions: RETRY });
  const container = service.getContainerClient(EXPORT_STORAGE.container);
  let key: { value: UserDelegationKey; takenAt: number; expiresOn: Date } | undefined;
  const delegationKey = async (until: Date) => {
    const now = Date.now();
    if (!key || now - key.takenAt > KEY_REUSE_MS || key.expiresOn < until) {
      const expiresOn = new Date(Math.max(until.getTime(), now + KEY_VALIDITY_MS));
      key = { value: await service.getUserDelegationKey(new Date(now - CLOCK_SKEW_MS), expiresOn), takenAt: now, expiresOn };
    }
    return key.value;
  };
  return {
    async write(blob, chunks, expires) {
      await container.getBlockBlobClient(blob).uploadStream(Readable.from(chunks, { objectMode: false }), BLOCK_BYTES, 2, {
        blobHTTPHeaders: { blobContentType: PARQUET_MEDIA_TYPE },
        metadata: { expires: expires.toISOString() },
      });
    },
    async removeAll(prefix, keep) {
      for await (const blob of container.listBlobsFlat({ prefix })) {
        if (!keep?.has(blob.name)) await container.deleteBlob(blob.name, { deleteSnapshots: 'include' }).catch(ignoreNotFound);
      }
    },
    async readUrls(blobs, expires) {
      const userKey = await delegationKey(expires);
      const startsOn = new Date(Date.now() - CLOCK_SKEW_MS);
      return blobs.map((blob) => {
        const sas = generateBlobSASQueryParameters({
          containerName: EXPORT_STORAGE.container,
          blobName: blob,
          permissions: BlobSASPermissions.parse('r'),
          protocol: SASProtocol.Https,
          startsOn,
          expiresOn: expires,
        }, userKey, service.accountName);
        return `${container.getBlockBlobClient(blob).url}?${sas.toString()}`;
      });
    },
    async sweep(now) {
      let deleted = 0;
      for await (const blob of container.listBlobsFlat({ includeMetadata: true })) {
        const expires = Date.parse(blob.metadata?.expires ?? '');
        if (Number.isNaN(expires) || expires > now.getTime()) continue;
        await container.deleteBlob(blob.name, { deleteSnapshots: 'include' }).catch(ignoreNotFound);
        deleted++;
      }
      return deleted;
    },
  };
}

/** The queue of windows, in Azure Queue Storage: messages base64 JSON, as the Functions host reads them. */
export function createWindowQueue(options: ExportStorageOptions, queueName: string = EXPORT_STORAGE.queue): WindowQueue {
  const queue = new QueueClient(`${options.queueServiceUri.replace(/\/+$/, '')}/${queueName}`, options.credential, { retryOptions: RETRY });
  return {
    async send(message: WindowMessage, delaySeconds = 0) {
      await queue.sendMessage(encodeQueueMessage(message), { visibilityTimeout: delaySeconds });
    },
  };
}

/** A message as the Functions host's queue trigger reads it by default: base64 of its JSON. */
function encodeQueueMessage(message: unknown): string {
  return Buffer.from(JSON.stringify(message), 'utf8').toString('base64');
}

function ignoreNotFound(error: { statusCode?: number }): void {
  if (error.statusCode !== 404) throw error;
}
