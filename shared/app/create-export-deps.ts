import type { TokenCredential } from '@azure/core-auth';
import type { ExportSettings } from '../config/load-config.js';
import type { ExportDeps } from '../exports/export-deps.js';
import type { ExportFiles, WindowQueue } from '../exports/export-storage.js';
import type { PreparedResource } from '../results/prepared-resource.js';
import type { SummaryDeps } from '../http/summary-deps.js';
import { cosmosStoresOf } from './create-summary-deps.js';
import { lazyManagedIdentity } from './managed-identity.js';

/**
 * The export jobs' collaborators: the job store on the summary operations' Cosmos client, and the
 * export storage (files, queue) authorized by the service's identity: the managed identity in
 * Azure, the local identity provider's `summary-service` client locally. The storage SDKs load
 * with the first call, off the cold start of instances that serve no export.
 *
 * @example
 * const exports = createExportDeps(deps.config.exports!, deps, summaryEndpoints(RESOURCES, deps));
 */
export function createExportDeps(settings: ExportSettings, deps: SummaryDeps, resources: ReadonlyMap<string, PreparedResource>, credential: TokenCredential = storageCredential(settings)): ExportDeps {
  const storage = { blobServiceUri: settings.blobServiceUri, queueServiceUri: settings.queueServiceUri, credential };
  const sdk = () => import('../exports/azure-export-storage.js');
  let files: Promise<ExportFiles> | undefined;
  let queue: Promise<WindowQueue> | undefined;
  const fileStore = () => (files ??= sdk().then((module) => module.createBlobExportFiles(storage)));
  return {
    settings,
    jobs: cosmosStoresOf(deps.config, deps.log).jobs,
    files: {
      write: async (...args) => (await fileStore()).write(...args),
      removeAll: async (...args) => (await fileStore()).removeAll(...args),
      readUrls: async (...args) => (await fileStore()).readUrls(...args),
      sweep: async (...args) => (await fileStore()).sweep(...args),
    },
    queue: {
      send: async (...args) => (await (queue ??= sdk().then((module) => module.createWindowQueue(storage)))).send(...args),
    },
    resources,
    results: deps,
  };
}

/** Who the service is to export storage: a client secret identity where the settings give one (locally), else the managed identity. Made once per process: the export jobs and the delta feed share it and its tokens. */
export function storageCredential(settings: ExportSettings): TokenCredential {
  const { identity } = settings;
  if (!identity) return lazyManagedIdentity();
  let credential: Promise<TokenCredential> | undefined;
  return {
    async getToken(scopes, options) {
      credential ??= import('@azure/identity').then(({ ClientSecretCredential }) => new ClientSecretCredential(identity.tenantId, identity.clientId, identity.clientSecret, {
        authorityHost: identity.authorityHost,
        // The local identity provider is no Entra cloud: nothing to discover.
        disableInstanceDiscovery: true,
      }));
      return (await credential).getToken(scopes, options);
    },
  };
}
