/**
 * Creates the export storage the local stack needs in Azurite (in memory: it starts empty every
 * time): the files' container, the delta feed's, and the queue of windows with its poison queue. In Azure, Bicep
 * creates them (infra/modules/export-storage.bicep), and the service's identity may create nothing.
 */
import { ClientSecretCredential } from '@azure/identity';
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { EXPORT_STORAGE } from '../shared/exports/export-storage.js';
import { DELTA_CONTAINER } from '../shared/delta/delta-blobs.js';
import { SERVICE_IDENTITY, type DevClient, type DevIdentities } from './identities.js';

export { SERVICE_IDENTITY };

/** The service's own dev identity. */
export function serviceIdentity(identities: DevIdentities): DevClient {
  const found = identities.clients.find((client) => client.name === SERVICE_IDENTITY);
  if (!found) throw new Error(`dev/identities.json has no ${SERVICE_IDENTITY} client`);
  return found;
}

/** The export storage settings of the service (EXPORTS_STORAGE__*) against Azurite, as the service's own dev identity. */
export function localExportSettings(identities: DevIdentities, storage: { readonly blobUrl: string; readonly queueUrl: string }): Record<string, string> {
  const identity = serviceIdentity(identities);
  return {
    EXPORTS_STORAGE__blobServiceUri: storage.blobUrl,
    EXPORTS_STORAGE__queueServiceUri: storage.queueUrl,
    EXPORTS_STORAGE__tenantId: identities.tenantId,
    EXPORTS_STORAGE__clientId: identity.clientId,
    EXPORTS_STORAGE__clientSecret: identity.clientSecret,
  };
}

/** Creates the container and the queues, each only if absent. */
export async function ensureExportStorage(identities: DevIdentities, authUrl: string, storage: { readonly blobUrl: string; readonly queueUrl: string }): Promise<void> {
  const identity = serviceIdentity(identities);
  const credential = new ClientSecretCredential(identities.tenantId, identity.clientId, identity.clientSecret, { authorityHost: authUrl, disableInstanceDiscovery: true });
  const blobs = new BlobServiceClient(storage.blobUrl, credential);
  for (const name of [EXPORT_STORAGE.container, DELTA_CONTAINER]) await blobs.getContainerClient(name).createIfNotExists();
  const queues = new QueueServiceClient(storage.queueUrl, credential);
  for (const name of [EXPORT_STORAGE.queue, EXPORT_STORAGE.poisonQueue]) await queues.getQueueClient(name).createIfNotExists();
}
