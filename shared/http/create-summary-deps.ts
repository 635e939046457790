import { buildAllowlist, type Allowlist } from '../access/allowlist.js';
import { DATAPOINTS } from '../access/datapoints.js';
import { createApiKeyChecker, type ApiKeyChecker } from '../auth/api-key-checker.js';
import { createTokenVerifier, type TokenVerifier } from '../auth/token-verifier.js';
import { cacheVerifiedTokens } from '../auth/cache-verified-tokens.js';
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
  readonly checkApiKey: ApiKeyChecker;
  readonly verifyToken: TokenVerifier;
  readonly clock: () => Date;
  readonly log: RequestLogger;
  /** Bounds concurrent Parquet exports (memory: slots × PARQUET_MAX_BYTES). */
  readonly exportSlots: ExportSlots;
}

/**
 * Builds the production collaborators from the settings: the Cosmos store (key auth locally,
 * the managed identity in Azure), the token verifier (with its cache of verified tokens), the key check, the allowlist (validated
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
    checkApiKey: overrides.checkApiKey ?? createApiKeyChecker(config.apiKeys),
    verifyToken: overrides.verifyToken ?? cacheVerifiedTokens(createTokenVerifier(config.auth)),
    clock: overrides.clock ?? (() => new Date()),
    exportSlots: overrides.exportSlots ?? createExportSlots(EXPORT_SLOTS),
    log: overrides.log ?? createJsonLogger(config.logRequests ? (line) => console.log(line) : () => {}, (line) => console.error(line)),
  };
}
