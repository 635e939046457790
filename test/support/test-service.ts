import { loadConfig } from '../../shared/config/load-config.js';
import { createAuthenticator, createSummaryDeps } from '../../shared/app/create-summary-deps.js';
import { summaryFunctions } from '../../shared/app/summary-function.js';
import { summaryEndpoints } from '../../shared/http/summary-endpoint.js';
import { buildAllowlist } from '../../shared/access/allowlist.js';
import type { RoleDatapoints } from '../../shared/access/datapoints.js';
import type { ResourceDefinition } from '../../shared/model/resource-definition.js';
import { createTokenVerifier, type TokenVerifierOptions } from '../../shared/auth/token-verifier.js';
import { createJsonLogger } from '../../shared/app/json-logger.js';
import { RESOURCES } from '../../shared/model/resources.js';
import type { RecordStore } from '../../shared/store/record-store.js';
import type { PageCursors } from '../../shared/cursors/page-cursors.js';
import { CURSOR_GUARD, guardCursors } from '../../shared/cursors/guarded-cursors.js';
import { recordCursorFailure } from '../../shared/telemetry/telemetry.js';
import type { SummaryDeps } from '../../shared/http/summary-deps.js';
import { startIdentityProvider, type IdentityProvider } from '../../dev/identity-provider.js';
import { issueServerCertificate, loadOrCreateLocalCa, trustInThisProcess } from '../../dev/local-ca.js';
import { startService } from '../../dev/start-service.js';
import { loadDevIdentities, type DevIdentities } from '../../dev/identities.js';
import type { Clock } from '../../shared/util/clock.js';
import { exportFunctions, type ExportFunctions } from '../../shared/app/export-functions.js';
import { startAzurite, type RunningAzurite } from '../../dev/azurite.js';
import { ensureExportStorage, localExportSettings } from '../../dev/ensure-storage.js';
import { startTriggerHost, type QueueSettings, type TriggerHost } from '../../dev/trigger-host.js';

/** Options of a test's own service instance. */
export interface TestServiceOptions {
  /** Settings over those of the global stack (whose store this service shares). */
  readonly settings?: Record<string, string>;
  readonly verifier?: TokenVerifierOptions;
  /** Wraps the real Cosmos store (fault injection at the seam). */
  readonly store?: (real: RecordStore) => RecordStore;
  /** Wraps the real page cursors (fault injection, counting). */
  readonly cursors?: (real: PageCursors) => PageCursors;
  /**
   * The page cursor guard's deadline (CURSOR_GUARD's otherwise): a suite about what a walk
   * answers, not about the guard, gives the cursor store time on a loaded machine, where a put past
   * 1 s costs the walk its cursor (by design) and the suite its premise.
   */
  readonly cursorDeadlineMs?: number;
  /** Start no identity provider: use this authority instead (for an unreachable one). */
  readonly authority?: string;
  /** The resources the service serves (default: the service's own) and the datapoints that gate them. */
  readonly resources?: readonly ResourceDefinition[];
  readonly datapoints?: Readonly<Record<string, RoleDatapoints>>;
  /** The service's clock (default: the machine's). */
  readonly clock?: Clock;
  /** The port to listen on (default: a free one): a service restarted at the same address. */
  readonly port?: number;
  /** The app roles its identity provider gives dev clients, by client name, over dev/identities.json (a role granted or taken away). */
  readonly roles?: Readonly<Record<string, readonly string[]>>;
  /** Export jobs, on an Azurite of the service's own (files, queues), with the trigger host running the workers unless `triggers` is false. */
  readonly exports?: {
    readonly triggers?: boolean;
    readonly queueSettings?: Partial<QueueSettings>;
  };
}

/** The export jobs of a test service: its Azurite, its functions, its trigger host. */
export interface TestExports {
  readonly azurite: RunningAzurite;
  readonly functions: ExportFunctions;
  /** The settings the service's export storage is reached with (EXPORTS_STORAGE__* and AUTH_AUTHORITY_HOST). */
  readonly settings: Readonly<Record<string, string>>;
  /** Starts the trigger host (when the service was started without it). */
  startTriggers(queueSettings?: Partial<QueueSettings>): void;
  stopTriggers(): Promise<void>;
}

/** A running service of a test's own, with its own identity provider and captured logs. */
export interface TestService {
  readonly baseUrl: string;
  readonly idp: IdentityProvider | undefined;
  readonly identities: DevIdentities;
  readonly deps: SummaryDeps;
  /** Every log line the service and its gateway wrote. */
  readonly logs: string[];
  /** Present when started with `exports`. */
  readonly exports: TestExports | undefined;
  stop(): Promise<void>;
}

/**
 * Starts a service with its own settings and identity provider, over the global stack's embedded
 * Cosmos server: what a test needs to forge tokens with the provider's keys, count key-set
 * fetches, rotate keys, or inject store faults, all over real HTTP on loopback.
 */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dev = loadDevIdentities();
  const roles = options.roles ?? {};
  const identities: DevIdentities = { ...dev, clients: dev.clients.map((devClient) => (roles[devClient.name] ? { ...devClient, roles: roles[devClient.name]! } : devClient)) };
  // The stack's local CA (.local/ca.pem), so a child process (the pull client) trusts it as a user would.
  const ca = await loadOrCreateLocalCa();
  trustInThisProcess(ca);
  const idp = options.authority ? undefined : await startIdentityProvider({ identities, certificate: await issueServerCertificate(ca) });
  const logs: string[] = [];
  const azurite = options.exports ? await startAzurite({ certificate: await issueServerCertificate(ca), blobPort: 0, queuePort: 0, tablePort: 0 }) : undefined;
  if (azurite) await ensureExportStorage(identities, idp!.url, azurite);
  // No links unless a test asks for them: the shared stack's PUBLIC_BASE_URL is in process.env.
  // No export jobs unless asked for: the shared stack's export storage is in process.env too.
  const exportSettings: Record<string, string> = azurite ? localExportSettings(identities, azurite) : { EXPORTS_STORAGE__blobServiceUri: '', EXPORTS_STORAGE__queueServiceUri: '', EXPORTS_STORAGE__tenantId: '', EXPORTS_STORAGE__clientId: '', EXPORTS_STORAGE__clientSecret: '' };
  const config = loadConfig({ ...process.env, PUBLIC_BASE_URL: '', AUTH_AUTHORITY_HOST: options.authority ?? idp!.url, ...exportSettings, ...options.settings });
  const base = createSummaryDeps(config, {
    authenticate: createAuthenticator(config, { ...(options.clock ? { clock: options.clock } : {}), verifyToken: createTokenVerifier(config.auth, { ...(options.clock ? { now: options.clock } : {}), ...options.verifier }) }),
    log: createJsonLogger((line) => logs.push(line), (line) => logs.push(line)),
    ...(options.datapoints ? { allowlist: buildAllowlist(options.datapoints, options.resources ?? RESOURCES) } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const deps = {
    ...base,
    ...(options.store ? { store: options.store(base.store) } : {}),
  };
  if (options.cursors || options.cursorDeadlineMs !== undefined) {
    const cursors = options.cursors?.(base.cursors) ?? base.cursors;
    Object.assign(deps, { cursors, pageCursors: guardCursors(cursors, { ...CURSOR_GUARD, deadlineMs: options.cursorDeadlineMs ?? CURSOR_GUARD.deadlineMs, ...(options.clock ? { now: options.clock } : {}), onFailure: recordCursorFailure }) });
  }
  const resources = options.resources ?? RESOURCES;
  const endpoints = summaryEndpoints(resources, deps);
  const functions = exportFunctions(endpoints, deps);
  let triggers: TriggerHost | undefined;
  const triggerSettings = { ...exportSettings, AUTH_AUTHORITY_HOST: config.exports?.identity?.authorityHost ?? '' };
  const startTriggers = (queueSettings?: Partial<QueueSettings>) => {
    const settings = queueSettings ?? options.exports?.queueSettings;
    triggers = startTriggerHost({ queues: functions.queues, timers: functions.timers, settings: triggerSettings, ...(settings ? { queueSettings: settings } : {}), log: (line) => logs.push(line) });
  };
  if (azurite && options.exports?.triggers !== false) startTriggers();
  const service = await startService({
    registrations: [...summaryFunctions(endpoints), ...functions.http],
    subscriptionKeys: identities.subscriptionKeys,
    port: options.port ?? 0,
    logRequest: (entry) => logs.push(JSON.stringify(entry)),
  });
  return {
    baseUrl: service.baseUrl,
    idp,
    identities,
    deps,
    logs,
    exports: azurite ? {
      azurite,
      functions,
      settings: triggerSettings,
      startTriggers,
      stopTriggers: async () => {
        await triggers?.stop();
        triggers = undefined;
      },
    } : undefined,
    stop: async () => {
      await triggers?.stop();
      await service.stop();
      await azurite?.stop();
      await idp?.stop();
    },
  };
}

/** Calls a summary operation of a test service with the given headers (the subscription key added). */
export async function callService(service: TestService, resource: string, init: { headers?: Record<string, string>; body?: string; method?: string; query?: string; signal?: AbortSignal } = {}): Promise<Response> {
  return fetch(`${service.baseUrl}/v1/${resource}/summary${init.query ? `?${init.query}` : ''}`, {
    method: init.method ?? 'POST',
    headers: { 'ocp-apim-subscription-key': service.identities.subscriptionKeys[0]!, 'content-type': 'application/json', ...init.headers },
    ...(init.body === undefined ? {} : { body: init.body }),
    ...(init.signal ? { signal: init.signal } : {}),
  });
}

/** Claims of a valid access token for a dev client of the service's identity provider. */
export function accessClaims(service: TestService, clientName: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const client = service.identities.clients.find((candidate) => candidate.name === clientName)!;
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: service.idp!.issuer, aud: service.identities.appId, tid: service.identities.tenantId, azp: client.clientId,
    roles: client.roles, idtyp: 'app', ver: '2.0', iat: now - 10, nbf: now - 10, exp: now + 600, ...overrides,
  };
}
