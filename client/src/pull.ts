/**
 * A pull: a date range of one dataset into a folder, one file per table and calendar-month window
 * (Parquet exports, invoices' two tables taken out of the zip, or JSON Lines from walking every
 * page). Every run checks every window the folder holds and the range names by the ETag of its
 * last pull (one conditional request each: 412 when unchanged), and pulls again exactly the
 * windows that changed, replacing their files atomically (folder.ts). Each window records the time
 * its files reflect (asOf), and the folder its watermark, the oldest of them: every write that
 * landed before it is in the folder. A window still being written while pulled is kept as pulled
 * and checked again by the next run. A change of the columns the caller sees (X-Summary-Schema)
 * rewrites the whole folder at once, so that every file has one schema; a run that fails during a
 * rewrite leaves the folder as it was.
 *
 * The run's state is one object (run-state.ts); its passes over the windows are pull-passes.ts;
 * this file starts a run, runs its passes (again for a strict run's moving windows) and settles
 * the folder.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { generationsOf, openRunFolder } from './generations.js';
import { MANIFEST_FILE } from './layout.js';
import { DATASETS, MAX_PAGE_SIZE } from './datasets.js';
import { PullStopped, Unreachable, WindowFailure, type FetchContext } from './fetch-window.js';
import { OptionsError } from './client-error.js';
import { foreignFiles, tidyFolder } from './folder.js';
import { checkableEntries, listedFiles, ManifestError, openManifest, saveManifest, watermarkOf } from './manifest.js';
import { overlaps, plan, type Unit } from './plan.js';
import { DeltaNotOffered } from './delta-walk.js';
import { adoptToken, deltaPass, NeedsPass } from './delta-pass.js';
import { DEFAULT_RETRY } from './retry.js';
import type { SummaryApi } from './summary-api.js';
import type { PullEvent, PullSummary, Rewrite } from './pull-summary.js';
import { JobNotOffered } from './export-job.js';
import { openJob } from './job-pass.js';
import { monthWindows, windowLabel, type Window } from './windows.js';
import { discardStaged, failuresOf, movingWindows, outcomesOf, SCHEMA_CHANGED, type Run } from './run-state.js';
import { rewriteFolder, serviceSource, updateFolder, type WindowSource } from './pull-passes.js';
import type { PullOptions } from './pull-options.js';


export { PullStopped } from './fetch-window.js';
export type { PullOptions } from './pull-options.js';

/**
 * How long a result written to stays "moving" for the service: its ETag is one of its own, which
 * no check matches (QUIET_SECONDS in shared/output/result-etag.ts; a test holds them equal).
 */
export const SERVICE_QUIET_MS = 5000;

/** A strict run's wait before it confirms a window or pulls a moving one again: past the quiet period. */
export const QUIET_WAIT_MS = SERVICE_QUIET_MS + 1000;

/**
 * Pulls `options.from`..`options.to` of a dataset into `options.out` and keeps it current: the
 * folder is made and locked first, every window it holds and the range names is checked by its
 * ETag, what changed is pulled again and replaced atomically, and the manifest records each
 * window's asOf and the folder's watermark. `observe` hears the run's events (the CLI's progress
 * line). Resolves with what the run did with every window (isComplete says whether the folder holds
 * every write before its watermark); rejects with PullStopped, ManifestError or FolderBusy for
 * what no window could change, or TokenError.
 *
 * @example
 * const settings = readSettings(process.env);
 * const summary = await pull(summaryApi(settings), {
 *   dataset: 'contracts', from: '2025-01-01', to: '2025-12-31', by: 'created', format: 'parquet',
 *   filters: {}, out: 'data/contracts', source: { service: settings.baseUrl, client: settings.client },
 * });
 * if (!isComplete(summary)) process.exitCode = 1;
 */
export async function pull(api: SummaryApi, options: PullOptions, observe: (event: PullEvent) => void = () => {}): Promise<PullSummary> {
  const { dataset, by, out } = options;
  if (!(DATASETS[dataset].dateBy as readonly string[]).includes(by)) {
    throw new OptionsError(`${dataset} cannot be split by ${by}: use ${DATASETS[dataset].dateBy.join(' or ')}`);
  }
  if (options.via === 'job' && (options.format !== 'parquet' || options.untilQuietMs !== undefined)) {
    throw new OptionsError('a pull through an export job is of Parquet files, without --until-quiet: use via windows');
  }
  if (options.via === 'delta' && options.untilQuietMs !== undefined) {
    throw new OptionsError('a pull through the delta does not wait for quiet windows (--until-quiet goes window by window): use via windows');
  }
  if (existsSync(out) && !statSync(out).isDirectory()) throw new ManifestError(`--out ${out} is a file, not a folder`);
  // The folder is locked before anything is written into it or read from it: a second run
  // started at any time after this finds the lock. The run works in a generation of it that
  // readers see only once the run has settled it (generations.ts).
  const folder = openRunFolder(out);
  if (folder.linked && existsSync(join(out, MANIFEST_FILE))) observe({ kind: 'folder-linked', out, generations: generationsOf(out) });
  if (folder.resumed) observe({ kind: 'run-resumed' });
  let run: Run | undefined;
  try {
    run = startRun(api, { ...options, out: folder.work }, observe);
    return await pullLocked(run);
  } finally {
    if (run) discardStaged(run);
    // A run that saved a manifest shows what it did (a run refused at its start saved none).
    folder.close(run?.saved === true);
  }
}

function startRun(api: SummaryApi, options: PullOptions, observe: (event: PullEvent) => void): Run {
  const { dataset, by, format, out } = options;
  const manifest = openManifest(out, { ...options.source, dataset, format, by, filters: options.filters });
  const context: FetchContext = {
    api, dataset, by, format, filters: options.filters, out,
    pageSize: options.pageSize ?? MAX_PAGE_SIZE,
    retry: options.retry ?? DEFAULT_RETRY,
    confirmWaitMs: options.untilQuietMs === undefined ? 0 : QUIET_WAIT_MS,
    onRetry: (why, waitMs) => observe({ kind: 'retry', why, waitMs }),
    onProgress: (rows, bytes) => observe({ kind: 'progress', rows, bytes }),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  };
  return {
    out, options, context, observe, manifest,
    now: options.now ?? Date.now,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    // A folder with no manifest yet gets one only with the first window pulled: a pull refused at
    // its start (a wrong secret, a bad filter) leaves nothing that would hold the folder.
    saved: manifest.windows.length > 0 || existsSync(join(out, MANIFEST_FILE)),
    schema: manifest.schema,
    staged: new Set(), windows: new Map(),
  };
}

async function pullLocked(run: Run): Promise<PullSummary> {
  const { manifest, options, out } = run;
  const { recovered, removed } = tidyFolder(out, manifest, options, run.saved);
  if (recovered.length > 0) run.observe({ kind: 'files-recovered', files: recovered });
  if (removed.length > 0) run.observe({ kind: 'orphans-removed', files: removed });
  const months = monthWindows(options.from, options.to);
  const units = plan(manifest, out, months);
  if (deltaWanted(options)) {
    try {
      run.delta = await deltaPass(run, months);
    } catch (error) {
      discardStaged(run);
      if (error instanceof NeedsPass) {
        // A Parquet folder the delta cannot keep this run: its passes pull it, then it takes a token (adoptToken).
        run.delta = { start: 'since', merged: false, ...(error.code === undefined ? {} : { restarted: error.code }) };
      } else if (error instanceof DeltaNotOffered && options.via === undefined) run.observe({ kind: 'delta-not-offered', why: error.message });
      else if (error instanceof DeltaNotOffered) throw new PullStopped(`--via delta: ${error.message}; pull with --via windows`);
      else if (!(error instanceof WindowFailure)) throw error;
      else {
        run.stopped = `${error instanceof Unreachable ? 'the service could not be reached' : 'the delta could not be had'} (${error.message}); the folder is as it was`;
        return settleFolder(run, units.length, false);
      }
    }
    if (run.delta?.merged) {
      // The windows the folder holds outside the range are kept exact window by window, as ever.
      const outside = units.filter((unit) => !months.some((month) => overlaps(unit.window, month)));
      const ended = outside.length === 0 ? undefined : await updateFolder(run, outside, serviceSource(run));
      if (ended === SCHEMA_CHANGED) run.stopped = 'the columns your roles see changed during the run; run it again';
      return settleFolder(run, units.length, false);
    }
  }
  // An older client's folder has no validators and no schema: it is pulled again whole, at once.
  let rewrite: Rewrite | undefined = manifest.schema === undefined && listedFiles(manifest).size > 0 ? 'older-client' : undefined;
  // The source of the first pass, chosen once: an export job where one is wanted and offered, else the service.
  const service = serviceSource(run);
  let source: WindowSource = service;
  if (jobWanted(options)) {
    try {
      const job = await openJob(run, units, service);
      source = job;
      rewrite = job.rewrite;
      run.job = { id: job.manifest.id, transactionTime: job.manifest.transactionTime };
    } catch (error) {
      if (error instanceof JobNotOffered && options.via === undefined) run.observe({ kind: 'job-not-offered', why: error.message });
      else if (error instanceof JobNotOffered) throw new PullStopped(`--via job: ${error.message}; pull with --via windows`);
      else if (!(error instanceof WindowFailure)) throw error;
      else {
        run.stopped = `${error instanceof Unreachable ? 'the service could not be reached' : 'the export job could not be had'} (${error.message}); no window was tried`;
        return settleFolder(run, units.length, false);
      }
    }
  }
  await passes(run, units, rewrite, source, service);
  if (run.delta && !run.delta.merged && failuresOf(run).length === 0 && run.stopped === undefined) {
    const recheck = async (windows: readonly Window[]) => {
      const ended = await updateFolder(run, windows.map((window) => ({ window, parts: checkableEntries(manifest, out, window.from, window.to) })), service);
      return ended === undefined && failuresOf(run).length === 0 && run.stopped === undefined;
    };
    const adopted = await adoptToken(run, months, recheck);
    if (adopted === 'adopted') run.adopted = true;
    else if (adopted === 'not-offered' && options.via === 'delta') throw new PullStopped('--via delta: the service offers no delta (an older service, or one without export storage); pull with --via windows');
    else if (adopted === 'not-offered') {
      run.delta = undefined;
      run.observe({ kind: 'delta-not-offered', why: 'the service offers no delta (an older service, or one without export storage)' });
    }
  }
  return settleFolder(run, units.length, options.untilQuietMs !== undefined);
}

/** Whether a run asks for a delta: asked for, or by default where the service offers one (not with --until-quiet). */
function deltaWanted(options: PullOptions): boolean {
  return options.via === 'delta' || (options.via === undefined && options.untilQuietMs === undefined && DATASETS[options.dataset].deltaPath !== null);
}

/** Whether a run asks for a job: asked for, or by default where a job can answer the pull. */
function jobWanted(options: PullOptions): boolean {
  return options.via === 'job' || (options.via === undefined && options.format === 'parquet' && options.untilQuietMs === undefined && DATASETS[options.dataset].jobsPath !== null);
}

/**
 * The run's passes over its windows. The first takes its answers from
 * `first` (closed once it is done); later passes (another schema met, windows still moving) ask
 * the service window by window.
 */
async function passes(run: Run, units: readonly Unit[], firstRewrite: Rewrite | undefined, first: WindowSource, service: WindowSource): Promise<void> {
  const { manifest, options, out } = run;
  const quietBy = options.untilQuietMs === undefined ? undefined : run.now() + options.untilQuietMs;
  let rewrite = firstRewrite;
  let pass = units;
  let source = first;
  for (let changes = 0; ;) {
    let ended;
    try {
      ended = rewrite ? await rewriteFolder(run, units, rewrite, source) : await updateFolder(run, pass, source);
    } finally {
      await source.close();
      source = service;
    }
    if (ended === SCHEMA_CHANGED) {
      discardStaged(run);
      if (++changes > 2) throw new PullStopped('the columns your roles see changed again and again during the run; run it again once the service\'s roles settle');
      rewrite = 'schema';
      continue;
    }
    rewrite = undefined;
    const moving = movingWindows(run);
    if (quietBy === undefined || moving.length === 0 || run.stopped !== undefined || run.now() + QUIET_WAIT_MS > quietBy) break;
    // A strict run: the windows still being written are pulled again once they may be quiet.
    run.observe({ kind: 'waiting-quiet', windows: moving.map(windowLabel), waitMs: QUIET_WAIT_MS });
    await run.sleep(QUIET_WAIT_MS);
    pass = moving.map((window) => ({ window, parts: checkableEntries(manifest, out, window.from, window.to) }));
  }
}

/**
 * The folder as readers will open it, last of all. Files named as this pull's that its manifest
 * does not list are removed: at the start they were kept if the folder had no manifest (one that
 * was lost or deleted, say), since a folder without one may not be this pull's; now it has one.
 * Anything else readers would load with the folder's files (folder.ts, foreignFiles) was not
 * written by this pull: the run is not complete while it is there. The manifest is saved with the
 * windows' asOf and the folder's watermark.
 */
function settleFolder(run: Run, windows: number, strict: boolean): PullSummary {
  const { manifest, out, options } = run;
  const failed = failuresOf(run);
  let foreign: string[] = [];
  if (run.saved) {
    // Only after a run that pulled every window: one that failed keeps a window's old file (its
    // data, if stale) rather than leave readers without the month until the next run.
    if (failed.length === 0 && run.stopped === undefined) {
      const { removed } = tidyFolder(out, manifest, options, true);
      if (removed.length > 0) run.observe({ kind: 'orphans-removed', files: removed });
    }
    foreign = foreignFiles(out, manifest, options);
    const watermark = watermarkOf(manifest);
    if (watermark === undefined) delete manifest.watermark;
    else manifest.watermark = watermark;
    if (run.job === undefined) delete manifest.job;
    else manifest.job = run.job;
    // A folder its passes pulled records into holds records a token of before does not know (it
    // would never hear of their removal): its token goes, unless the run adopted a new one.
    if (!run.delta?.merged && !run.adopted && [...run.windows.values()].some(({ status }) => status === 'pulled')) delete manifest.delta;
    saveManifest(out, manifest);
  }
  const outcomes = outcomesOf(run);
  const listed = outcomes.filter((outcome) => outcome.status !== 'failed');
  const moving = outcomes.filter((outcome) => outcome.status === 'moving').map((outcome) => outcome.label);
  const visited = [...run.windows.values()].map(({ status }) => status);
  return {
    via: run.delta?.merged ? 'delta' : run.job ? 'job' : 'windows',
    ...(run.job ? { job: run.job } : {}),
    ...(run.delta ? { delta: run.delta } : {}),
    windows,
    pulled: visited.filter((status) => status === 'pulled').length,
    unchanged: visited.filter((status) => status === 'unchanged').length,
    ...(run.rewritten ? { rewritten: run.rewritten } : {}),
    outcomes, moving, failed,
    ...(run.stopped === undefined ? {} : { stopped: run.stopped }),
    ...(manifest.watermark === undefined || !run.saved ? {} : { watermark: manifest.watermark }),
    rows: listed.reduce((total, outcome) => total + outcome.rows, 0),
    bytes: listed.reduce((total, outcome) => total + outcome.bytes, 0),
    files: listed.flatMap((outcome) => outcome.files.map((file) => file.file)),
    ...(foreign.length > 0 ? { foreign } : {}),
    ...(strict && moving.length > 0 ? { notQuiet: true } : {}),
  };
}

