/**
 * What the nightly-pull and delta-feed measurements stand on: a local stack of their own (none of
 * its functions loaded: the service below is the only one on its queue), one bench tenant served
 * in this process by the production pipeline with every operation, its request log lines, and the
 * tenant's two years of contracts, the seed's 22 months moved to end with this month.
 */
import type { CosmosClient } from '@azure/cosmos';
import { startLocalStack } from '../dev/local-stack.js';
import { generateContracts } from '../dev/seed-data.js';
import { startService, type RunningService } from '../dev/start-service.js';
import { createSummaryDeps } from '../shared/app/create-summary-deps.js';
import { exportFunctions, type ExportFunctions } from '../shared/app/export-functions.js';
import { summaryFunctions } from '../shared/app/summary-function.js';
import { loadConfig } from '../shared/config/load-config.js';
import { summaryEndpoints } from '../shared/http/summary-endpoint.js';
import { RESOURCES } from '../shared/model/resources.js';
import { createCosmosClient } from '../shared/store/create-cosmos-client.js';
import type { RequestLogEntry } from '../shared/telemetry/request-log-entry.js';
import { BENCH_CLIENT } from './full-view.js';

export interface TenantService {
  readonly stack: Awaited<ReturnType<typeof startLocalStack>>;
  /** A client of the stack's store, for the writes the measurement makes as the data's owner. */
  readonly store: CosmosClient;
  readonly service: RunningService;
  /** The export jobs' functions (their queue triggers, for a measurement that runs workers). */
  readonly jobs: ExportFunctions;
  /** Every request log line of the service, in order. */
  readonly lines: RequestLogEntry[];
  stop(): Promise<void>;
}

const DAY_MS = 86_400_000;

/** Starts the stack and the service of `tenant` for BENCH_CLIENT (no public base URL: a job's Location is relative to its kick-off). */
export async function startTenantService(tenant: string): Promise<TenantService> {
  const stack = await startLocalStack({ port: 0, cosmosPort: 0, authPort: 0, azuritePorts: { blob: 0, queue: 0, table: 0 }, seedRecords: 1, settings: { LOG_REQUESTS: 'false' }, logRequest: () => {}, loadFunctions: async () => ({ http: [], queues: [], timers: [] }) });
  const store = createCosmosClient({ endpoint: stack.cosmos.endpoint, key: stack.cosmos.key, allowSelfSignedTls: true });
  const lines: RequestLogEntry[] = [];
  const client = stack.identities.clients.find((candidate) => candidate.name === BENCH_CLIENT)!;
  const config = loadConfig({ ...stack.settings, LOG_REQUESTS: 'true', PUBLIC_BASE_URL: '', CLIENT_REGISTRY: JSON.stringify({ [client.clientId]: tenant }) });
  const deps = createSummaryDeps(config, { log: { request: (entry) => lines.push(entry), fault: () => {}, warning: () => {} } });
  const endpoints = summaryEndpoints(RESOURCES, deps);
  const jobs = exportFunctions(endpoints, deps);
  const service = await startService({ registrations: [...summaryFunctions(endpoints), ...jobs.http], subscriptionKeys: stack.identities.subscriptionKeys, port: 0 });
  return {
    stack, store, service, jobs, lines,
    async stop() {
      await service.stop();
      store.dispose();
      await stack.stop();
    },
  };
}

/** The tenant's contracts, the seed's 22 months moved to end with the month of `now` (never later than a day before it). */
export function contractsToThisMonth(tenant: string, records: number, now: number): ReturnType<typeof generateContracts> {
  const thisMonth = new Date(now).toISOString().slice(0, 7);
  const shift = Date.parse(`${thisMonth}-01T00:00:00Z`) + 25 * DAY_MS - Date.parse('2026-10-31T00:00:00Z');
  const moved = (iso: string) => new Date(Math.min(Date.parse(iso) + shift, now - DAY_MS)).toISOString();
  return generateContracts(tenant, records).map((document) => ({ ...document, createdDate: moved(document.createdDate), updatedDate: moved(document.updatedDate) }));
}
