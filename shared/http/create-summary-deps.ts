import { ManagedIdentityCredential } from '@azure/identity';
import { buildAllowlist, type Allowlist } from '../access/allowlist.js';
import { DATAPOINTS } from '../access/datapoints.js';
import { createApiKeyChecker, type ApiKeyChecker } from '../auth/api-key-checker.js';
import { createTokenVerifier, type TokenVerifier } from '../auth/token-verifier.js';
import { cacheVerifiedTokens } from '../auth/cache-verified-tokens.js';
import type { Config } from '../config/load-config.js';
import { createCosmosClient } from '../store/create-cosmos-client.js';
import { createCosmosRecordStore } from '../store/cosmos-record-store.js';
import type { RecordStore } from '../store/record-store.js';
import { createExportSlots, type ExportSlots } from '../output/export-slots.js';
import { createJsonLogger, type RequestLogger } from './request-log-entry.js';

/** Parquet exports one instance runs at once: two at the 100 MiB default stay well inside an EP1's memory. */
const MAX_CONCURRENT_EXPORTS = 2;

/** Everything a summary handler works with; built once per process, swapped freely in tests. */
export interface SummaryDeps {
  readonly config: Config;
  readonly store: RecordStore;
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
  const store = overrides.store ?? createCosmosRecordStore(
    createCosmosClient({
      endpoint: cosmos.endpoint,
      ...(cosmos.key ? { key: cosmos.key } : { credential: new ManagedIdentityCredential() }),
      allowSelfSignedTls: cosmos.allowSelfSignedTls,
    }),
    { timeoutMs: config.storeTimeoutMs },
  );
  return {
    config,
    store,
    allowlist: overrides.allowlist ?? buildAllowlist(DATAPOINTS),
    checkApiKey: overrides.checkApiKey ?? createApiKeyChecker(config.apiKeys),
    verifyToken: overrides.verifyToken ?? cacheVerifiedTokens(createTokenVerifier(config.auth)),
    clock: overrides.clock ?? (() => new Date()),
    exportSlots: overrides.exportSlots ?? createExportSlots(MAX_CONCURRENT_EXPORTS),
    log: overrides.log ?? createJsonLogger(config.logRequests ? (line) => console.log(line) : () => {}, (line) => console.error(line)),
  };
}
