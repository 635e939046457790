import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BulkOperationType } from '@azure/cosmos';
import { pull, readSettings, summaryApi, trustCaFile, type PullOptions } from '../client/src/index.js';
import { clientSettings } from '../dev/client-settings.js';
import { startLocalStack } from '../dev/local-stack.js';
import { requestTokens } from '../dev/request-tokens.js';
import { generateContracts } from '../dev/seed-data.js';
import { startService } from '../dev/start-service.js';
import { startTriggerHost } from '../dev/trigger-host.js';
import { loadConfig } from '../shared/config/load-config.js';
import { createSummaryDeps } from '../shared/app/create-summary-deps.js';
import { exportFunctions } from '../shared/app/export-functions.js';
import { summaryFunctions } from '../shared/app/summary-function.js';
import { summaryEndpoints } from '../shared/http/summary-endpoint.js';
import type { JobStatusDocument } from '../shared/exports/export-manifest.js';
import type { RequestLogEntry } from '../shared/telemetry/request-log-entry.js';
import { partitionKeyOf } from '../shared/model/resource-definition.js';
import { DATABASE_ID, RESOURCES } from '../shared/model/resources.js';
import { QUIET_SECONDS } from '../shared/output/result-etag.js';
import { createCosmosClient } from '../shared/store/create-cosmos-client.js';
import { BENCH_CLIENT } from './full-view.js';
import { median } from './median.js';
import { serveWorker } from './run-worker.js';

/** What the export-job measurement runs. */
export interface ExportJobInput {
  /** Contracts of the tenant, spread over the months of the range. */
  readonly records: number;
  /** Calendar months of the range (windows of the job). */
  readonly months: number;
  /** Times each path runs (alternating). */
  readonly runs: number;
}

/** One way of getting the range, as measured. */
export interface PathFigures {
  /** Wall time, median of the runs, with the fastest and slowest. */
  readonly ms: number;
  readonly range: readonly [number, number];
  /** Requests to the service (kick-off and status calls; or summary exports). */
  readonly requests: number;
  /** Record documents the store handed over. */
  readonly documents: number;
  readonly files: number;
  readonly bytes: number;
}

export interface ExportJobFigures {
  readonly records: number;
  readonly windows: number;
  /** Kick-off to manifest. */
  readonly job: PathFigures;
  /** Kick-off to manifest, then every file downloaded (4 at a time). */
  readonly jobWithDownloads: PathFigures;
  /** The pull client's month-by-month synchronous exports into a folder (the baseline). */
  readonly windowsPath: PathFigures;
  /** Peak RSS of the process during the jobs (stack, service and workers all in it), and the RSS before the first job, in bytes. */
  readonly peakRss: number;
  readonly rssBefore: number;
  /** The largest file of a job. */
  readonly largestFile: number;
  /** Another tenant's one-month job, kick-off to manifest: alone (baseline) and while this tenant has its caps' worth of months queued. */
  readonly fairness: { readonly idle: PathFigures; readonly loaded: PathFigures; readonly busyWindows: number; readonly busyDone: number };
}

const DAY_MS = 86_400_000;
const TENANT = 'jobs';
/** The other tenant of the fairness measurement, its client, and the second client of the busy tenant (each client may run two jobs). */
const QUIET_TENANT = 'jobsquiet';
const QUIET_CLIENT = 'fabrikam-full';
const SECOND_BUSY_CLIENT = 'contoso-basic';

/**
 * A tenant of `records` contracts over `months` calendar months on the embedded Cosmos server,
 * served in this process by the production pipeline with its export jobs (the window workers run
 * by the local trigger host off Azurite's queue): a job of the whole range, kick-off to manifest,
 * and with its files downloaded, against the pull client's month-by-month synchronous exports of
 * the same range into a folder, alternating, `runs` times each.
 */
async function measure(input: ExportJobInput): Promise<ExportJobFigures> {
  // The stack's own functions are not loaded: the service below (and its workers) is the only one on the queue.
  const stack = await startLocalStack({ port: 0, cosmosPort: 0, authPort: 0, azuritePorts: { blob: 0, queue: 0, table: 0 }, seedRecords: 1, settings: { LOG_REQUESTS: 'false' }, logRequest: () => {}, loadFunctions: async () => ({ http: [], queues: [], timers: [] }) });
  const store = createCosmosClient({ endpoint: stack.cosmos.endpoint, key: stack.cosmos.key, allowSelfSignedTls: true });
  const folders = mkdtempSync(join(tmpdir(), 'bench-jobs-'));
  const lines: RequestLogEntry[] = [];
  const clientId = (name: string) => stack.identities.clients.find((candidate) => candidate.name === name)!.clientId;
  // No public base URL: a job's Location is then relative to its kick-off, on this service (the stack's own serves other clients).
  const registry = { [clientId(BENCH_CLIENT)]: TENANT, [clientId(SECOND_BUSY_CLIENT)]: TENANT, [clientId(QUIET_CLIENT)]: QUIET_TENANT };
  const config = loadConfig({ ...stack.settings, LOG_REQUESTS: 'true', PUBLIC_BASE_URL: '', CLIENT_REGISTRY: JSON.stringify(registry) });
  const deps = createSummaryDeps(config, { log: { request: (entry) => lines.push(entry), fault: () => {}, warning: () => {} } });
  const endpoints = summaryEndpoints(RESOURCES, deps);
  const jobs = exportFunctions(endpoints, deps);
  const service = await startService({ registrations: [...summaryFunctions(endpoints), ...jobs.http], subscriptionKeys: stack.identities.subscriptionKeys, port: 0 });
  const triggers = startTriggerHost({ queues: jobs.queues, timers: [], settings: { ...process.env, ...stack.settings } });
  try {
    // The seed's months moved to end with this month: the range is the `months` months up to it.
    const now = Date.now();
    const thisMonth = new Date(now).toISOString().slice(0, 7);
    const end = new Date(Date.UTC(Number(thisMonth.slice(0, 4)), Number(thisMonth.slice(5)), 0));
    const start = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() - input.months + 1, 1));
    const span = end.getTime() - start.getTime();
    const seedFrom = Date.parse('2025-01-01T00:00:00Z');
    const seedSpan = Date.parse('2026-10-31T23:59:59Z') - seedFrom;
    const moved = (iso: string) => new Date(Math.min(start.getTime() + ((Date.parse(iso) - seedFrom) / seedSpan) * span, now - DAY_MS)).toISOString();
    // The quiet tenant's few hundred contracts all land in the range's last month.
    const lastMonth = (iso: string) => new Date(Math.max(Date.parse(moved(iso)), Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), 1))).toISOString();
    const contracts = [
      ...generateContracts(TENANT, input.records).map((document) => ({ ...document, createdDate: moved(document.createdDate), updatedDate: moved(document.updatedDate) })),
      ...generateContracts(QUIET_TENANT, 500).map((document) => ({ ...document, createdDate: lastMonth(document.createdDate), updatedDate: lastMonth(document.updatedDate) })),
    ];
    const container = store.database(DATABASE_ID).container('contracts');
    for (let first = 0; first < contracts.length; first += 5000) {
      const results = await container.items.executeBulkOperations(contracts.slice(first, first + 5000).map((document) => (
        { operationType: BulkOperationType.Upsert, partitionKey: partitionKeyOf(document as { tenantId: string; id: string }), resourceBody: document })));
      if (results.some((result) => (result.response?.statusCode ?? 500) >= 400)) throw new Error('seeding the jobs tenant failed');
    }
    await new Promise((resolve) => setTimeout(resolve, (QUIET_SECONDS + 1) * 1000));
    const from = start.toISOString().slice(0, 10);
    const to = end.toISOString().slice(0, 10);

    const headersOf = async (name: string) => ({
      authorization: `Bearer ${(await requestTokens(stack.authUrl, stack.identities, name)).access_token}`,
      'ocp-apim-subscription-key': stack.identities.subscriptionKeys[0]!, 'x-api-key': stack.identities.apiKeys[0]!, 'content-type': 'application/json',
    });
    const headers = await headersOf(BENCH_CLIENT);
    const kickOffUrl = `${service.baseUrl}/v1/contracts/exports`;
    // The process's RSS while jobs run (sampled every 20 ms), against what it held before the first.
    let peakRss = 0;
    const rssBefore = process.memoryUsage.rss();
    const runJob = async (download: boolean): Promise<PathFigures & { largest: number }> => {
      const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage.rss()); }, 20);
      try {
        return await timeJob(download);
      } finally {
        clearInterval(sampler);
      }
    };
    const timeJob = async (download: boolean, as = headers, range = { createdFrom: from, createdTo: to }): Promise<PathFigures & { largest: number }> => {
      const before = lines.length;
      const started = performance.now();
      const kickOff = await fetch(kickOffUrl, { method: 'POST', headers: as, body: JSON.stringify(range) });
      if (kickOff.status !== 202) throw new Error(`kick-off answered ${kickOff.status}: ${await kickOff.text()}`);
      const location = new URL(kickOff.headers.get('location')!, kickOffUrl).href;
      let manifest: JobStatusDocument;
      for (;;) {
        const status = await fetch(location, { headers: as });
        if (status.status === 200) {
          manifest = (await status.json()) as JobStatusDocument;
          break;
        }
        if (status.status !== 202) throw new Error(`the job's status answered ${status.status}: ${await status.text()}`);
        await status.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      if (manifest.windows.some((window) => window.status !== 'exported')) throw new Error(`a window was not exported: ${JSON.stringify(manifest.windows.filter((window) => window.status !== 'exported'))}`);
      const files = manifest.windows.flatMap((window) => window.files ?? []);
      if (download) {
        const queue = [...files];
        await Promise.all(Array.from({ length: 4 }, async () => {
          for (let file = queue.shift(); file; file = queue.shift()) {
            const bytes = (await (await fetch(file.url)).arrayBuffer()).byteLength;
            if (bytes !== file.bytes) throw new Error('a file came short');
          }
        }));
      }
      const ms = performance.now() - started;
      const mine = lines.slice(before);
      return {
        ms, range: [ms, ms], requests: mine.filter((line) => line.operation?.startsWith('exports.') || line.operation?.endsWith('.exports')).length,
        documents: mine.reduce((total, line) => total + (line.storeDocuments ?? 0), 0),
        files: files.length, bytes: files.reduce((total, file) => total + file.bytes, 0), largest: Math.max(...files.map((file) => file.bytes)),
      };
    };
    const settings = readSettings(clientSettings({ baseUrl: service.baseUrl, authUrl: stack.authUrl, identities: stack.identities, caFile: stack.caFile }, BENCH_CLIENT));
    if (settings.caFile) trustCaFile(settings.caFile);
    const api = summaryApi(settings);
    let folder = 0;
    const runWindows = async (): Promise<PathFigures> => {
      const before = lines.length;
      const started = performance.now();
      const options: PullOptions = { dataset: 'contracts', from, to, by: 'created', format: 'parquet', filters: {}, out: join(folders, `windows-${folder++}`), source: { service: settings.baseUrl, client: settings.client } };
      const summary = await pull(api, options);
      const ms = performance.now() - started;
      if (summary.failed.length > 0) throw new Error(`the pull failed: ${JSON.stringify(summary.failed)}`);
      const mine = lines.slice(before);
      return { ms, range: [ms, ms], requests: mine.length, documents: mine.reduce((total, line) => total + (line.storeDocuments ?? 0), 0), files: summary.windows, bytes: 0 };
    };
    const jobRuns: (PathFigures & { largest: number })[] = [];
    const downloadRuns: PathFigures[] = [];
    const windowRuns: PathFigures[] = [];
    for (let run = 0; run < input.runs; run++) {
      jobRuns.push(await runJob(false));
      windowRuns.push(await runWindows());
      downloadRuns.push(await runJob(true));
    }
    // Fairness: the quiet tenant's one-month job alone, and while the busy tenant has its caps'
    // worth of months queued (two clients, two jobs each, the whole range), alternating.
    const quiet = await headersOf(QUIET_CLIENT);
    const quietMonth = { createdFrom: `${to.slice(0, 8)}01`, createdTo: to };
    const busy = [headers, await headersOf(SECOND_BUSY_CLIENT)];
    const idleRuns: PathFigures[] = [];
    const loadedRuns: PathFigures[] = [];
    let busyWindows = 0;
    let busyDone = 0;
    for (let run = 0; run < input.runs; run++) {
      idleRuns.push(await timeJob(false, quiet, quietMonth));
      const started: [Record<string, string>, string][] = [];
      for (const as of [...busy, ...busy]) {
        const response = await fetch(kickOffUrl, { method: 'POST', headers: as, body: JSON.stringify({ createdFrom: from, createdTo: to }) });
        if (response.status !== 202) throw new Error(`a busy kick-off answered ${response.status}: ${await response.text()}`);
        started.push([as, new URL(response.headers.get('location')!, kickOffUrl).href]);
      }
      loadedRuns.push(await timeJob(false, quiet, quietMonth));
      busyWindows = started.length * input.months;
      busyDone = 0;
      for (const [as, location] of started) {
        busyDone += ((await (await fetch(location, { headers: as })).json()) as JobStatusDocument).progress.done;
        await (await fetch(location, { method: 'DELETE', headers: as })).arrayBuffer();
      }
    }
    return {
      records: input.records, windows: input.months,
      job: middle(jobRuns), jobWithDownloads: middle(downloadRuns), windowsPath: middle(windowRuns),
      peakRss, rssBefore, largestFile: Math.max(...jobRuns.map((run) => run.largest)),
      fairness: { idle: middle(idleRuns), loaded: middle(loadedRuns), busyWindows, busyDone },
    };
  } finally {
    await triggers.stop();
    await service.stop();
    store.dispose();
    await stack.stop();
    rmSync(folders, { recursive: true, force: true });
  }
}

function middle<T extends PathFigures>(runs: readonly T[]): PathFigures {
  const sorted = [...runs].sort((a, b) => a.ms - b.ms);
  const chosen = sorted[Math.floor(sorted.length / 2)]!;
  return { ms: median(runs.map((run) => run.ms)), range: [sorted[0]!.ms, sorted.at(-1)!.ms], requests: chosen.requests, documents: chosen.documents, files: chosen.files, bytes: chosen.bytes };
}

serveWorker(measure);
