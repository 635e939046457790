import { createCosmosClient } from '../shared/store/create-cosmos-client.js';
import { startCosmosServer } from './cosmos-server.js';
import { startAzurite } from './azurite.js';
import { DEV_DATA_SET, seedStore } from './seed-store.js';
import { startIdentityProvider, type IdentityProvider } from './identity-provider.js';
import { issueServerCertificate, loadOrCreateLocalCa, trustInThisProcess } from './local-ca.js';
import { clientRegistry, loadDevIdentities, type DevIdentities } from './identities.js';
import type { FunctionRegistration } from './functions-host.js';
import type { RequestLogEntry } from '../shared/telemetry/request-log-entry.js';
import { startService } from './start-service.js';
import { ensureExportStorage, localExportSettings } from './ensure-storage.js';
import { startTriggerHost, type QueueSettings } from './trigger-host.js';
import type { ExportFunctions } from '../shared/app/export-functions.js';
import type { ReferenceStack } from './reference-page.js';

/** Options of the local stack; ports 0 pick free ports (tests). */
export interface LocalStackOptions {
  readonly host?: string;
  readonly port?: number;
  readonly cosmosPort?: number;
  readonly authPort?: number;
  /** Azurite's blob, queue and table ports (defaults 10000–10002). */
  readonly azuritePorts?: { readonly blob: number; readonly queue: number; readonly table: number };
  readonly seedRecords?: number;
  /** Where the local CA is kept (default: the project's `.local/`). */
  readonly caDir?: string;
  /** Extra or overriding service settings (for example MAX_PAGE_SIZE). */
  readonly settings?: Readonly<Record<string, string>>;
  /** Loads the functions once the settings are in the environment, as the Functions host does. */
  readonly loadFunctions?: () => Promise<LoadedFunctions>;
  /** The local trigger host's queue settings over host.json's (tests poll faster). */
  readonly queueSettings?: Partial<QueueSettings>;
  /** Where the lines of requests the gateway or the host answer themselves go (default: stdout). */
  readonly logRequest?: (entry: RequestLogEntry) => void;
}

/** Every function of the app: the HTTP ones the local host serves, the queue and timer triggers the trigger host runs. */
export interface LoadedFunctions {
  readonly http: readonly FunctionRegistration[];
  readonly queues: ExportFunctions['queues'];
  readonly timers: ExportFunctions['timers'];
}

/** A running local stack. */
export interface LocalStack {
  /** The service base URL, `https://host:port/api` (a certificate from the local CA). */
  readonly baseUrl: string;
  /** The identity provider's base URL (the spec's auth_url), https with a certificate from the local CA. */
  readonly authUrl: string;
  /** The local CA's certificate file, the one callers trust (`.local/ca.pem`). */
  readonly caFile: string;
  readonly cosmos: { readonly endpoint: string; readonly key: string };
  /** Azurite's account URLs (https, the local CA's certificate; every call carries a token). */
  readonly storage: { readonly blobUrl: string; readonly queueUrl: string };
  readonly identities: DevIdentities;
  readonly identityProvider: IdentityProvider;
  /** The service settings the stack put in the environment. */
  readonly settings: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

/**
 * The service settings that point it at a local identity provider and an embedded Cosmos server,
 * with the dev identities' keys and client registry.
 */
export function localServiceSettings(identities: DevIdentities, authUrl: string, cosmos: { readonly endpoint: string; readonly key: string }): Record<string, string> {
  return {
    AUTH_AUTHORITY_HOST: authUrl,
    AUTH_TENANT_ID: identities.tenantId,
    AUTH_APP_ID: identities.appId,
    API_KEYS: identities.apiKeys.join(','),
    CLIENT_REGISTRY: JSON.stringify(clientRegistry(identities)),
    COSMOS_ENDPOINT: cosmos.endpoint,
    COSMOS_KEY: cosmos.key,
    COSMOS_ALLOW_SELF_SIGNED_TLS: 'true',
  };
}

/**
 * What the reference page at /docs is served with: the identity provider's token endpoint and the
 * first dev client with every role (obviously fake credentials, dev/identities.json), so that
 * Authorize and Execute work on the page as it comes.
 */
function referenceStack(identities: DevIdentities, authUrl: string): Omit<ReferenceStack, 'port'> {
  const client = identities.clients.find((candidate) => candidate.name === REFERENCE_CLIENT) ?? identities.clients[0]!;
  return {
    tokenUrl: `${authUrl}/${identities.tenantId}/oauth2/v2.0/token`,
    scope: `api://${identities.appId}/.default`,
    client: { id: client.clientId, secret: client.clientSecret },
    subscriptionKey: identities.subscriptionKeys[0]!,
    apiKey: identities.apiKeys[0]!,
  };
}

/** Azurite's own default ports, which Storage Explorer and the Functions tools look at first. */
export const AZURITE_PORTS = { blob: 10_000, queue: 10_001, table: 10_002 } as const;

/** The dev client the reference page is filled in with. */
const REFERENCE_CLIENT = 'contoso-full';

/**
 * Starts everything a developer (or a test run) needs, with no Docker, Azure or Core Tools:
 * the embedded Cosmos server (seeded), the local identity provider, Azurite (Azure Storage, with
 * the export container and queues), the service behind the local gateway, and the trigger host
 * that runs the export workers off the queue. The service settings go into `process.env` before the functions load, because
 * that is where the Functions host puts app settings.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const host = options.host ?? '127.0.0.1';
  const identities = loadDevIdentities();
  const cosmos = await startCosmosServer({ host, port: options.cosmosPort ?? 8081 });
  const stops: (() => Promise<void>)[] = [cosmos.stop];
  try {
    const client = createCosmosClient({ endpoint: cosmos.endpoint, key: cosmos.key, allowSelfSignedTls: true });
    await seedStore(client, { tenants: DEV_DATA_SET.tenants, recordsPerTenant: options.seedRecords ?? DEV_DATA_SET.recordsPerTenant });
    client.dispose();

    const ca = await loadOrCreateLocalCa(options.caDir);
    // The service in this process fetches the provider's keys over https, as it does Entra's.
    trustInThisProcess(ca);
    const certificate = await issueServerCertificate(ca);
    const identityProvider = await startIdentityProvider({ identities, certificate, host, port: options.authPort ?? 7072 });
    stops.push(identityProvider.stop);
    const ports = options.azuritePorts ?? AZURITE_PORTS;
    const azurite = await startAzurite({ certificate, host, blobPort: ports.blob, queuePort: ports.queue, tablePort: ports.table });
    stops.push(azurite.stop);
    await ensureExportStorage(identities, identityProvider.url, azurite);

    const settings: Record<string, string> = { ...localServiceSettings(identities, identityProvider.url, cosmos), ...localExportSettings(identities, azurite), ...options.settings };
    Object.assign(process.env, settings);

    let triggers: Omit<LoadedFunctions, 'http'> = { queues: [], timers: [] };
    const service = await startService({
      // Next links point at the gateway the callers use, known once it listens (a setting given
      // in options.settings, even an empty one, stays as given).
      registrations: async (baseUrl) => {
        if (!Object.hasOwn(settings, 'PUBLIC_BASE_URL')) process.env.PUBLIC_BASE_URL = settings.PUBLIC_BASE_URL = baseUrl;
        const loaded = await (options.loadFunctions ?? loadCompiledFunctions)();
        triggers = loaded;
        return loaded.http;
      },
      subscriptionKeys: identities.subscriptionKeys,
      host,
      port: options.port ?? 7071,
      reference: referenceStack(identities, identityProvider.url),
      // https, as API Management: the Azure SDKs' bearer policies send a token over https only.
      certificate,
      ...(options.logRequest ? { logRequest: options.logRequest } : {}),
    });
    stops.push(service.stop);
    const triggerHost = startTriggerHost({ queues: triggers.queues, timers: triggers.timers, settings: { ...process.env, ...settings }, ...(options.queueSettings ? { queueSettings: options.queueSettings } : {}) });
    stops.push(triggerHost.stop);
    return {
      baseUrl: service.baseUrl,
      authUrl: identityProvider.url,
      caFile: ca.certFile,
      cosmos: { endpoint: cosmos.endpoint, key: cosmos.key },
      storage: { blobUrl: azurite.blobUrl, queueUrl: azurite.queueUrl },
      identities,
      identityProvider,
      settings,
      stop: () => stopAll(stops),
    };
  } catch (error) {
    await stopAll(stops);
    throw error;
  }
}

/**
 * The compiled function file, loaded the way the Functions host loads `main`. Its `app.http` calls
 * register with an Azure Functions host where one runs it; here the local host serves the same
 * registrations, so @azure/functions' warnings that it found no host ("test mode", "Skipping call
 * to register function") say nothing worth printing: they are left out, those only.
 */
async function loadCompiledFunctions(): Promise<LoadedFunctions> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && TEST_MODE_WARNINGS.some((start) => (args[0] as string).startsWith(start))) return;
    warn(...args);
  };
  try {
    const summary = (await import('../functions/summary-operations.js')).registrations;
    const exports = (await import('../functions/export-jobs.js')).functions;
    return { http: [...summary, ...exports.http], queues: exports.queues, timers: exports.timers };
  } finally {
    console.warn = warn;
  }
}

const TEST_MODE_WARNINGS = ['WARNING: Failed to detect the Azure Functions runtime', 'WARNING: Skipping call to register function'];

async function stopAll(stops: (() => Promise<void>)[]): Promise<void> {
  for (const stop of stops.reverse()) await stop().catch(() => {});
}
