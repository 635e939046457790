import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BulkOperationType } from '@azure/cosmos';
import { pull, readSettings, summaryApi, trustCaFile, type PullOptions } from '../client/src/index.js';
import type { Via } from '../client/src/pull-summary.js';
import { copyRunFolder } from '../client/src/generations.js';
import { startTriggerHost } from '../dev/trigger-host.js';
import { clientSettings } from '../dev/client-settings.js';
import { partitionKeyOf } from '../shared/model/resource-definition.js';
import { DATABASE_ID } from '../shared/model/resources.js';
import { QUIET_SECONDS } from '../shared/output/result-etag.js';
import { BENCH_CLIENT } from './full-view.js';
import { median } from './median.js';
import { serveWorker } from './run-worker.js';
import { contractsToThisMonth, startTenantService } from './tenant-service.js';

/** What the nightly-pull measurement runs. */
export interface NightlyInput {
  /** Contracts of the tenant, spread over its two years. */
  readonly records: number;
  /** Share of them changed between two runs (created, updated, deleted). */
  readonly changedShare: number;
}

/** One run of `summary-client pull` over the two years, as the service's log lines count it. */
export interface RunFigures {
  readonly ms: number;
  readonly windows: number;
  /** 200 answers (exports), 412 answers (checks that held: unchanged, or a confirmation). */
  readonly exports: number;
  readonly checks: number;
  /** Record documents the store handed over, and the request charge it reported (0 on the embedded server). */
  readonly documents: number;
  readonly requestCharge: number;
  /** The service's median time of one check (a 412), in ms. */
  readonly checkMs: number;
  /** Of several runs in the same state (this one their median): the fastest and slowest wall time, in ms. */
  readonly range?: readonly [number, number];
  /** Windows still being written while pulled (kept as pulled). */
  readonly moving: number;
  /** Requests to the service (summary operations; a job's kick-off and status calls), not the workers' windows. */
  readonly requests: number;
  /** Bytes of the files the run wrote into the folder (downloaded, or exported to it). */
  readonly bytes: number;
}

export interface NightlyFigures {
  readonly records: number;
  readonly changed: number;
  /** A full pull of the range into an empty folder (the baseline): the median of three, after the changes. */
  readonly full: RunFigures;
  /** The nightly run after `changed` records changed in the open month (the median of three copies of the folder). */
  readonly nightly: RunFigures;
  /** The nightly run after nothing changed. */
  readonly unchanged: RunFigures;
  /** The nightly run after one record changed in each of two settled months. */
  readonly settled: RunFigures;
  /** The nightly run of a busy tenant: a record a second written to the open month, from 3 s before the run to its end. */
  readonly busy: RunFigures;
  /** The same folder kept through export jobs (--via job): its nightly runs in the same states. */
  readonly job: { readonly unchanged: RunFigures; readonly nightly: RunFigures };
}

const DAY_MS = 86_400_000;
const TENANT = 'nightly';

/**
 * A tenant of `records` contracts over two years on the embedded Cosmos server, served in this
 * process by the production pipeline, and the pull client (the library the CLI runs) keeping a
 * folder of it: a first pull, a night with nothing changed, a night after `changedShare` of the
 * records changed as nightly traffic does (created today, updated this month), a night after two
 * changes in settled months, and the baseline in the same run: a full re-pull into an empty folder.
 */
async function measure(input: NightlyInput): Promise<NightlyFigures> {
  // The stack's own functions are not loaded: the service below (and its workers) is the only one on the queue.
  const tenant = await startTenantService(TENANT);
  const { stack, store, service, lines, jobs } = tenant;
  const folders = mkdtempSync(join(tmpdir(), 'bench-nightly-'));
  const triggers = startTriggerHost({ queues: jobs.queues, timers: [], settings: { ...process.env, ...stack.settings } });
  try {
    const container = store.database(DATABASE_ID).container('contracts');
    const write = async (documents: readonly Record<string, unknown>[]) => {
      for (let start = 0; start < documents.length; start += 5000) {
        const results = await container.items.executeBulkOperations(documents.slice(start, start + 5000).map((document) => (
          { operationType: BulkOperationType.Upsert, partitionKey: partitionKeyOf(document as { tenantId: string; id: string }), resourceBody: document as { id: string } })));
        if (results.some((result) => (result.response?.statusCode ?? 500) >= 400)) throw new Error('seeding the nightly tenant failed');
      }
    };
    // The seed's 22 months moved to end with this month, so that "now" is inside the range.
    const now = Date.now();
    const thisMonth = new Date(now).toISOString().slice(0, 7);
    const contracts = contractsToThisMonth(TENANT, input.records, now);
    await write(contracts);
    const first = new Date(now - 730 * DAY_MS).toISOString().slice(0, 7);
    const quiet = () => new Promise((resolve) => setTimeout(resolve, (QUIET_SECONDS + 1) * 1000));

    const settings = readSettings(clientSettings({ baseUrl: service.baseUrl, authUrl: stack.authUrl, identities: stack.identities, caFile: stack.caFile }, BENCH_CLIENT));
    if (settings.caFile) trustCaFile(settings.caFile);
    const api = summaryApi(settings);
    const run = async (out: string, busy = false, via: Via = 'windows'): Promise<RunFigures> => {
      const options: PullOptions = { dataset: 'contracts', from: `${first}-01`, to: `${thisMonth}-${new Date(Date.UTC(Number(thisMonth.slice(0, 4)), Number(thisMonth.slice(5)), 0)).getUTCDate()}`, by: 'created', format: 'parquet', filters: {}, out, source: { service: settings.baseUrl, client: settings.client }, via };
      const before = lines.length;
      const started = performance.now();
      const summary = await pull(api, options);
      const ms = performance.now() - started;
      if (summary.failed.length > 0 || (!busy && summary.moving.length > 0)) throw new Error(`the pull was not complete and quiet: ${JSON.stringify(summary.failed)} ${summary.moving.join()}`);
      if (summary.via !== via) throw new Error(`the pull went ${summary.via}, not ${via}`);
      const mine = lines.slice(before);
      const checks = mine.filter((line) => line.status === 412);
      return {
        ms, windows: summary.windows, moving: summary.moving.length,
        requests: mine.filter((line) => !line.operation?.endsWith('.exports.window')).length,
        bytes: summary.outcomes.filter((outcome) => outcome.status === 'pulled' || outcome.status === 'moving').reduce((total, outcome) => total + outcome.bytes, 0),
        exports: mine.filter((line) => line.status === 200 && (line.operation === 'contracts.summary' || line.operation?.endsWith('.exports.window'))).length,
        // A job checks the windows sent with an ETag at its kick-off (its one log line): they are the run's unchanged windows.
        checks: via === 'job' ? summary.unchanged : checks.length,
        documents: mine.reduce((total, line) => total + (line.storeDocuments ?? 0), 0),
        requestCharge: mine.reduce((total, line) => total + (line.requestCharge ?? 0), 0),
        checkMs: checks.length > 0 ? median(checks.map((line) => line.durationMs)) : 0,
      };
    };

    await quiet();
    const folder = join(folders, 'mirror');
    // The first pull makes the folder; it is not the baseline (cold, and before the writes).
    await run(folder);
    const unchanged = await run(folder);
    // The same mirror kept through export jobs.
    const jobFolder = join(folders, 'mirror-job');
    await run(jobFolder, false, 'job');
    const jobUnchanged = await run(jobFolder, false, 'job');
    // The same folder three times over, so that the nightly run is measured three times on the same
    // change, as the baseline is.
    const copies = [folder, join(folders, 'twin'), join(folders, 'triplet')];
    for (const copy of copies.slice(1)) copyRunFolder(folder, copy);
    const jobCopies = [jobFolder, join(folders, 'twin-job'), join(folders, 'triplet-job')];
    for (const copy of jobCopies.slice(1)) copyRunFolder(jobFolder, copy);

    // Nightly traffic: records created today and records of this month updated, half of them by a
    // writer that leaves updatedDate alone.
    const changed = Math.round(input.records * input.changedShare);
    const current = contracts.filter((document) => document.createdDate.startsWith(thisMonth));
    const created = Math.round(changed * 0.7);
    const today = new Date(now - 60_000).toISOString();
    const template = contracts[0]!;
    await write([
      ...Array.from({ length: created }, (_, index) => ({ ...template, id: `CT-NEW-${index}`, contractId: `CT-NEW-${index}`, createdDate: today, updatedDate: today })),
      ...current.slice(0, changed - created).map((document, index) => ({ ...document, title: `${document.title} (amended)`, ...(index % 2 === 0 ? { updatedDate: today } : {}) })),
    ]);
    await quiet();
    // Alternating: a copy window by window, a copy through a job.
    const nightlies: RunFigures[] = [];
    const jobNightlies: RunFigures[] = [];
    for (const [index, copy] of copies.entries()) {
      nightlies.push(await run(copy));
      jobNightlies.push(await run(jobCopies[index]!, false, 'job'));
    }
    const nightly = middle(nightlies);

    // Two settled months change: a record back-dated into one, a record of another deleted.
    const old = contracts.filter((document) => document.createdDate.slice(0, 7) < thisMonth);
    await write([{ ...template, id: 'CT-BACKDATED', contractId: 'CT-BACKDATED', createdDate: old[10]!.createdDate, updatedDate: today }]);
    await container.item(old.at(-1000)!.id, [TENANT, old.at(-1000)!.id]).delete();
    await quiet();
    const settled = await run(folder);

    // A busy tenant: a writer adds a record a second to the open month, from 3 s before the run to its end.
    let writing = true;
    let busyWrites = 0;
    const writer = (async () => {
      while (writing) {
        const at = new Date(Date.now() - 60_000).toISOString();
        await write([{ ...template, id: `CT-BUSY-${busyWrites}`, contractId: `CT-BUSY-${busyWrites}`, createdDate: at, updatedDate: at }]);
        busyWrites++;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const busy = await run(folder, true);
    writing = false;
    await writer;

    // The baseline: three full pulls into empty folders, in the state the nightly runs found (after the writes).
    const fulls: RunFigures[] = [];
    for (const name of ['full-1', 'full-2', 'full-3']) fulls.push(await run(join(folders, name)));
    return { records: input.records, changed, full: middle(fulls), nightly, unchanged, settled, busy, job: { unchanged: jobUnchanged, nightly: middle(jobNightlies) } };
  } finally {
    await triggers.stop();
    await tenant.stop();
    rmSync(folders, { recursive: true, force: true });
  }
}

/** The run of median wall time, with the fastest and slowest beside it (of an even number, the slower middle: figures never flattered). */
function middle(runs: readonly RunFigures[]): RunFigures {
  const sorted = [...runs].sort((a, b) => a.ms - b.ms);
  return { ...sorted[Math.floor(sorted.length / 2)]!, range: [sorted[0]!.ms, sorted.at(-1)!.ms] };
}

serveWorker(measure);
