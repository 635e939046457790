import { buildAllowlist } from '../access/allowlist.js';
import { DATAPOINTS } from '../access/datapoints.js';
import { createApiKeyChecker } from '../auth/api-key-checker.js';
import type { Authenticator } from '../auth/authenticate.js';
import { rememberCredentials } from '../auth/remember-credentials.js';
import { createTokenVerifier, type TokenVerifier } from '../auth/token-verifier.js';
import { lazyManagedIdentity } from './managed-identity.js';
import type { Config } from '../config/load-config.js';
import type { CosmosStores } from './cosmos-stores.js';
import { lazyStores } from './lazy-stores.js';
import { createExportSlots, EXPORT_SLOTS } from '../admission/export-slots.js';
import { createJsonLogger } from './json-logger.js';
import { SYSTEM_CLOCK, type Clock } from '../util/clock.js';
import type { RequestLogger } from '../telemetry/request-log-entry.js';
import type { SummaryDeps } from '../http/summary-deps.js';
import { CURSOR_GUARD, guardCursors } from '../cursors/guarded-cursors.js';
import { recordCursorFailure } from '../telemetry/telemetry.js';

/**
 * Builds the production collaborators from the settings: the Cosmos store (key auth locally,
 * the managed identity in Azure), the credentials check (remembering the pairs that passed), the allowlist (validated
 * here, so a bad configuration stops start-up), the clock and the JSON-line logger.
 *
 * @example
 * const deps = createSummaryDeps(loadConfig(process.env));
 * const tests = createSummaryDeps(config, { clock: () => Date.UTC(2025, 0, 1) }); // one collaborator replaced
 */
export function createSummaryDeps(config: Config, overrides: Partial<SummaryDeps> = {}): SummaryDeps {
  const clock = overrides.clock ?? SYSTEM_CLOCK;
  const log = overrides.log ?? createJsonLogger(config.logRequests ? (line) => console.log(line) : () => {}, (line) => console.error(line));
  const cosmosStores = () => cosmosStoresOf(config, log);
  const cursors = overrides.cursors ?? cosmosStores().cursors;
  return {
    config,
    store: overrides.store ?? cosmosStores().store,
    cursors,
    pageCursors: overrides.pageCursors ?? guardCursors(cursors, { ...CURSOR_GUARD, now: clock, onFailure: recordCursorFailure }),
    allowlist: overrides.allowlist ?? buildAllowlist(DATAPOINTS),
    authenticate: overrides.authenticate ?? createAuthenticator(config, { clock }),
    clock,
    exportSlots: overrides.exportSlots ?? createExportSlots(EXPORT_SLOTS),
    log,
  };
}

const storesOfConfig = new WeakMap<Config, CosmosStores>();

/**
 * The Cosmos stores of a configuration, made once (one client, one connection pool, for the
 * summary operations and the export jobs alike). The SDK module loads with the first store call,
 * not with the app (see lazyStores).
 */
export function cosmosStoresOf(config: Config, log: RequestLogger): CosmosStores {
  let stores = storesOfConfig.get(config);
  if (!stores) {
    const { cosmos } = config;
    stores = lazyStores(async () => (await import('./cosmos-stores.js')).createCosmosStores({
      endpoint: cosmos.endpoint,
      ...(cosmos.key ? { key: cosmos.key } : { credential: lazyManagedIdentity() }),
      allowSelfSignedTls: cosmos.allowSelfSignedTls,
      timeoutMs: config.storeTimeoutMs,
      // Not about one request: the instance's way of asking from then on.
      warn: (message) => log.warning('', message),
    }));
    storesOfConfig.set(config, stores);
  }
  return stores;
}

/**
 * The production credentials check: the configured backend keys, the token verifier (from the
 * settings unless given) and the client registry, with the pairs that passed remembered; both
 * read `clock`.
 */
export function createAuthenticator(config: Config, options: { readonly clock?: Clock; readonly verifyToken?: TokenVerifier } = {}): Authenticator {
  const clock = options.clock ?? SYSTEM_CLOCK;
  const verifyToken = options.verifyToken ?? createTokenVerifier(config.auth, { now: clock });
  return rememberCredentials({ checkApiKey: createApiKeyChecker(config.apiKeys), verifyToken, clientRegistry: config.clientRegistry }, { now: clock });
}
