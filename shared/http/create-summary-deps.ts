import { buildAllowlist, type Allowlist } from '../access/allowlist.js';
import { DATAPOINTS } from '../access/datapoints.js';
import { createApiKeyChecker } from '../auth/api-key-checker.js';
import type { Authenticator } from '../auth/authenticate.js';
import { rememberCredentials } from '../auth/remember-credentials.js';
import { createTokenVerifier, type TokenVerifier } from '../auth/token-verifier.js';
import { lazyManagedIdentity } from '../auth/managed-identity.js';
import type { Config } from '../config/load-config.js';
import type { CosmosStores } from '../store/cosmos-stores.js';
import { lazyStores } from '../store/lazy-stores.js';
import type { PageCursors } from '../store/page-cursors.js';
import type { RecordStore } from '../store/record-store.js';
import { createExportSlots, EXPORT_SLOTS, type ExportSlots } from '../output/export-slots.js';
import { createJsonLogger } from './json-logger.js';
import type { RequestLogger } from './request-log-entry.js';

/** Everything a summary handler works with; built once per process, swapped freely in tests. */
export interface SummaryDeps {
  readonly config: Config;
  readonly store: RecordStore;
  /** Server-side page cursors (bounded and optional: a failing one only slows walks down). */
  readonly cursors: PageCursors;
  readonly allowlist: Allowlist;
  /** The credentials check (remember-credentials.ts). */
  readonly authenticate: Authenticator;
  readonly clock: () => Date;
  readonly log: RequestLogger;
  /** Bounds concurrent Parquet exports (memory: slots × PARQUET_MAX_BYTES). */
  readonly exportSlots: ExportSlots;
}

/**
 * Builds the production collaborators from the settings: the Cosmos store (key auth locally,
 * the managed identity in Azure), the credentials check (remembering the pairs that passed), the allowlist (validated
 * here, so a bad configuration stops start-up), the clock and the JSON-line logger.
 */
export function createSummaryDeps(config: Config, overrides: Partial<SummaryDeps> = {}): SummaryDeps {
  const { cosmos } = config;
  let stores: CosmosStores | undefined;
  // The SDK module loads with the first store call, not with the app (see lazyStores).
  const cosmosStores = () => (stores ??= lazyStores(async () => (await import('../store/cosmos-stores.js')).createCosmosStores({
    endpoint: cosmos.endpoint,
    ...(cosmos.key ? { key: cosmos.key } : { credential: lazyManagedIdentity() }),
    allowSelfSignedTls: cosmos.allowSelfSignedTls,
    timeoutMs: config.storeTimeoutMs,
  })));
  return {
    config,
    store: overrides.store ?? cosmosStores().store,
    cursors: overrides.cursors ?? cosmosStores().cursors,
    allowlist: overrides.allowlist ?? buildAllowlist(DATAPOINTS),
    authenticate: overrides.authenticate ?? createAuthenticator(config),
    clock: overrides.clock ?? (() => new Date()),
    exportSlots: overrides.exportSlots ?? createExportSlots(EXPORT_SLOTS),
    log: overrides.log ?? createJsonLogger(config.logRequests ? (line) => console.log(line) : () => {}, (line) => console.error(line)),
  };
}

/**
 * The production credentials check: the configured backend keys, the token verifier (from the
 * settings unless given) and the client registry, with the pairs that passed remembered.
 */
export function createAuthenticator(config: Config, verifyToken: TokenVerifier = createTokenVerifier(config.auth)): Authenticator {
  return rememberCredentials({ checkApiKey: createApiKeyChecker(config.apiKeys), verifyToken, clientRegistry: config.clientRegistry });
}
