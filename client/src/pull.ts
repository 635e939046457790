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
 * The run's state is one object (Run): its phase, the folder's lock, the manifest, the schema its
 * answers must have, the files it has written hidden and not committed yet, and what it did with
 * each window.
 */
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { lockFolder } from './folder-lock.js';
import { DATASETS, MAX_PAGE_SIZE, type DatasetName, type DateBy, type Format } from './datasets.js';
import { fetchWindow, PullStopped, Unreachable, WindowFailure, type FetchContext } from './fetch-window.js';
import { commitEntries, foreignFiles, tidyFolder } from './folder.js';
import { partialFile } from './layout.js';
import { checkableEntries, listedFiles, ManifestError, openManifest, saveManifest, watermarkOf, type Manifest, type ManifestWindow } from './manifest.js';
import { overlaps, plan, type Unit } from './plan.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import type { SummaryApi } from './summary-api.js';
import { failedEntry, outcomeOf, type PullEvent, type PullSummary, type Rewrite, type WindowOutcome, type WindowStatus } from './pull-summary.js';
import { fileLabel, halves, isGrowing, monthWindows, windowLabel, type Window } from './windows.js';

export { PullStopped } from './fetch-window.js';

export interface PullOptions {
  readonly dataset: DatasetName;
  readonly from: string;
  readonly to: string;
  readonly by: DateBy;
  readonly format: Format;
  /** Further filters, as body members (`status`, `supplierId`, ...). */
  readonly filters: Readonly<Record<string, string>>;
  readonly out: string;
  /** Whom the files come from: the service's base URL and the client id (kept in the manifest). */
  readonly source: { readonly service: string; readonly client: string };
  readonly pageSize?: number;
  readonly retry?: RetryPolicy;
  /** The clock, in milliseconds since the epoch (default Date.now): names a growing window's files. */
  readonly now?: () => number;
  /**
   * A strict run (--until-quiet): windows still being written are pulled again, each confirmed
   * after the service's quiet period, until none moves or this many milliseconds have passed
   * (then the run is not complete: exit 1).
   */
  readonly untilQuietMs?: number;
  /** Waits (default setTimeout): a strict run's pauses. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * How long a result written to stays "moving" for the service: its ETag is one of its own, which
 * no check matches (QUIET_SECONDS in shared/output/result-etag.ts; a test holds them equal).
 */
export const SERVICE_QUIET_MS = 5000;

/** A strict run's wait before it confirms a window or pulls a moving one again: past the quiet period. */
export const QUIET_WAIT_MS = SERVICE_QUIET_MS + 1000;

/** Where a run is: what it may still change. */
type Phase = 'starting' | 'updating' | 'rewriting' | 'waiting-quiet' | 'settling' | 'done';

/** The run's state: everything the steps below read and change. */
interface Run {
  phase: Phase;
  readonly out: string;
  readonly options: PullOptions;
  readonly context: FetchContext;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly observe: (event: PullEvent) => void;
  /** Gives the folder's lock back. */
  readonly unlock: () => void;
  readonly manifest: Manifest;
  /** The manifest is on disk (the folder is this pull's): failures are recorded in it too. */
  saved: boolean;
  /** The schema every answer of this pass must have: the folder's, else the first one answered. */
  schema: string | undefined;
  /** Files written hidden (partialFile) and not committed: removed in one place, discardStaged. */
  readonly staged: Set<string>;
  /** What the run did with each window of the folder, by its label. */
  readonly outcomes: Map<string, WindowOutcome>;
  /** What the run did with each window it visited (a month, or a window the folder holds besides), by `from`. */
  readonly visited: Map<string, { readonly window: Window; readonly status: 'pulled' | 'unchanged' | 'failed' }>;
  /** The windows that failed in this run, as the manifest records them. */
  readonly failed: ManifestWindow[];
  rewritten?: Rewrite;
  stopped?: string;
}

/** A pass ends early: the columns the caller sees changed, and the folder is rewritten whole. */
const SCHEMA_CHANGED = { kind: 'schema-changed' } as const;
type SchemaChanged = typeof SCHEMA_CHANGED;

/** A window's answer: new entries with their hidden files (and the parts that were unchanged), or unchanged whole. */
type Pulled = { readonly kind: 'pulled'; readonly fresh: ManifestWindow[]; readonly kept: ManifestWindow[]; readonly staged: string[] };
type Unchanged = { readonly kind: 'unchanged'; readonly kept: ManifestWindow[] };

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
    throw new RangeError(`${dataset} cannot be split by ${by}: use ${DATASETS[dataset].dateBy.join(' or ')}`);
  }
  if (existsSync(out) && !statSync(out).isDirectory()) throw new ManifestError(`--out ${out} is a file, not a folder`);
  // The folder is made and locked before anything is written into it or read from it: a second
  // run started at any time after this finds the lock.
  const made = !existsSync(out);
  mkdirSync(out, { recursive: true });
  let unlock: () => void;
  try {
    unlock = lockFolder(out);
  } catch (error) {
    if (made) removeIfEmpty(out);
    throw error;
  }
  let run: Run | undefined;
  try {
    run = startRun(api, options, observe, unlock);
    return await pullLocked(run);
  } finally {
    if (run) discardStaged(run);
    unlock();
    // A run that leaves nothing (refused at its start) leaves no folder it made.
    if (made) removeIfEmpty(out);
  }
}

function startRun(api: SummaryApi, options: PullOptions, observe: (event: PullEvent) => void, unlock: () => void): Run {
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
    phase: 'starting', out, options, context, observe, unlock, manifest,
    now: options.now ?? Date.now,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    // A folder with no manifest yet gets one only with the first window pulled: a pull refused at
    // its start (a wrong secret, a bad filter) leaves nothing that would hold the folder.
    saved: manifest.windows.length > 0 || existsSync(join(out, '_manifest.json')),
    schema: manifest.schema,
    staged: new Set(), outcomes: new Map(), visited: new Map(), failed: [],
  };
}

async function pullLocked(run: Run): Promise<PullSummary> {
  const { manifest, options, out } = run;
  const { recovered, removed } = tidyFolder(out, manifest, options, run.saved);
  if (recovered.length > 0) run.observe({ kind: 'files-recovered', files: recovered });
  if (removed.length > 0) run.observe({ kind: 'orphans-removed', files: removed });
  const units = plan(manifest, out, monthWindows(options.from, options.to));
  const quietBy = options.untilQuietMs === undefined ? undefined : run.now() + options.untilQuietMs;
  // An older client's folder has no validators and no schema: it is pulled again whole, at once.
  let rewrite: Rewrite | undefined = manifest.schema === undefined && listedFiles(manifest).size > 0 ? 'older-client' : undefined;
  let pass = units;
  for (let changes = 0; ;) {
    const ended = rewrite ? await rewriteFolder(run, units, rewrite) : await updateFolder(run, pass);
    if (ended === SCHEMA_CHANGED) {
      discardStaged(run);
      if (++changes > 2) throw new WindowFailure('the columns your roles see changed again and again during the run; run it again once the service\'s roles settle');
      rewrite = 'schema';
      continue;
    }
    rewrite = undefined;
    const moving = movingWindows(run);
    if (quietBy === undefined || moving.length === 0 || run.stopped !== undefined || run.now() + QUIET_WAIT_MS > quietBy) break;
    // A strict run: the windows still being written are pulled again once they may be quiet.
    run.phase = 'waiting-quiet';
    run.observe({ kind: 'waiting-quiet', windows: moving.map(windowLabel), waitMs: QUIET_WAIT_MS });
    await run.sleep(QUIET_WAIT_MS);
    pass = moving.map((window) => ({ window, parts: checkableEntries(manifest, out, window.from, window.to) }));
  }
  return settleFolder(run, units.length, quietBy !== undefined);
}

/** The windows visited that hold an entry still being written. */
function movingWindows(run: Run): Window[] {
  const moving = run.manifest.windows.filter((entry) => entry.moving);
  return [...run.visited.values()].map(({ window }) => window).filter((window) => moving.some((entry) => overlaps(entry, window)));
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
  run.phase = 'settling';
  const { manifest, out, options } = run;
  const failed = run.failed;
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
    saveManifest(out, manifest);
  }
  run.phase = 'done';
  const outcomes = outcomesOf(run);
  const listed = outcomes.filter((outcome) => outcome.status !== 'failed');
  const moving = outcomes.filter((outcome) => outcome.status === 'moving').map((outcome) => outcome.label);
  const visited = [...run.visited.values()].map(({ status }) => status);
  return {
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

/**
 * Every window of the folder as the run left it, by label: what the run did with it, else (the
 * run stopped before it) `not-tried`; the parts of a window that failed whole are its failure.
 */
function outcomesOf(run: Run): WindowOutcome[] {
  const byLabel = new Map<string, WindowOutcome>();
  const failures = [...run.outcomes.values()].filter((outcome) => outcome.status === 'failed');
  for (const entry of run.manifest.windows) {
    if (byLabel.has(entry.window)) continue;
    const own = run.outcomes.get(entry.window);
    if (own) byLabel.set(entry.window, own);
    else if (!failures.some((failure) => overlaps(failure, entry))) byLabel.set(entry.window, outcomeOf(entry, 'not-tried'));
  }
  for (const [label, outcome] of run.outcomes) if (!byLabel.has(label)) byLabel.set(label, outcome);
  return [...byLabel.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/** Checks every window of `units`, pulls again what changed and commits it window by window. */
async function updateFolder(run: Run, units: readonly Unit[]): Promise<SchemaChanged | undefined> {
  run.phase = 'updating';
  for (const [index, unit] of units.entries()) {
    run.observe({ kind: 'window-start', window: unit.window, index, count: units.length });
    let answer: Pulled | Unchanged | SchemaChanged;
    try {
      answer = await updateUnit(run, unit);
    } catch (error) {
      discardStaged(run);
      if (!(error instanceof WindowFailure)) throw error;
      failWindow(run, unit.window, error);
      if (error instanceof Unreachable) {
        run.stopped = `the service could not be reached (${error.message}); the windows after it were not tried`;
        break;
      }
      continue;
    }
    if (answer.kind === 'schema-changed') return answer;
    if (answer.kind === 'unchanged') {
      // Nothing to commit: the entries only learn the time they were found current.
      for (const entry of answer.kept) {
        const at = run.manifest.windows.findIndex((listed) => listed.from === entry.from && listed.to === entry.to && listed.status === 'done');
        if (at >= 0) run.manifest.windows[at] = entry;
      }
      record(run, unit.window, 'unchanged', answer.kept, []);
      run.observe({ kind: 'window-unchanged', window: unit.window, entries: answer.kept });
      continue;
    }
    commit(run, (entry) => overlaps(entry, unit.window), answer);
    record(run, unit.window, 'pulled', answer.kept, answer.fresh);
  }
  return undefined;
}

/**
 * A window checked part by part by their ETags (the parts that changed pulled again, halved as
 * needed), or pulled whole; unchanged when every part is.
 */
async function updateUnit(run: Run, unit: Unit): Promise<Pulled | Unchanged | SchemaChanged> {
  if (!unit.parts) return pullWhole(run, unit.window, undefined);
  const result: Pulled = { kind: 'pulled', fresh: [], kept: [], staged: [] };
  for (const part of unit.parts) {
    const answer = await pullWhole(run, { month: unit.window.month, from: part.from, to: part.to }, part);
    if (answer.kind === 'schema-changed') return answer;
    result.kept.push(...answer.kept);
    if (answer.kind === 'pulled') {
      result.fresh.push(...answer.fresh);
      result.staged.push(...answer.staged);
    }
  }
  return result.fresh.length > 0 ? result : { kind: 'unchanged', kept: result.kept };
}

/**
 * Pulls a window, halving one that is too large for one answer down to single days, depth first so
 * the parts come in date order; a single day still too large is a failed entry of its own among
 * them. With `held` (the entry the folder has), the first request is a check: unchanged when its
 * ETag holds. The files are left hidden, and staged in the run.
 */
async function pullWhole(run: Run, window: Window, held: ManifestWindow | undefined): Promise<Pulled | Unchanged | SchemaChanged> {
  const result: Pulled = { kind: 'pulled', fresh: [], kept: [], staged: [] };
  const pending: { window: Window; etag: string | undefined }[] = [{ window, etag: held?.etag }];
  while (pending.length > 0) {
    const next = pending.shift()!;
    const part = next.window;
    const fetched = await fetchWindow(run.context, part, fileLabel(part, isGrowing(part, run.now())), next.etag);
    const finishedAt = new Date(run.now()).toISOString();
    if (fetched.kind === 'unchanged') {
      const { moving: _moving, asOf: _asOf, ...entry } = held!;
      return { kind: 'unchanged', kept: [{ ...entry, ...(fetched.asOf ? { asOf: fetched.asOf } : {}) }] };
    }
    if (fetched.kind === 'too-large') {
      const parts = halves(part);
      if (parts) {
        run.observe({ kind: 'split', window: part, into: parts });
        pending.unshift(...parts.map((half) => ({ window: half, etag: undefined })));
      } else {
        const error = `${part.from} alone is larger than one answer may be (the service's PARQUET_MAX_BYTES, or this client's SUMMARY_MAX_EXPORT_BYTES): raise SUMMARY_MAX_EXPORT_BYTES if it is this client's limit, else ask the service owners; the month's other days are kept`;
        result.fresh.push(failedEntry(part, { message: error, requestId: '' }, finishedAt, windowLabel(part)));
      }
      continue;
    }
    for (const file of fetched.files) {
      run.staged.add(file.file);
      result.staged.push(file.file);
    }
    if (!expectSchema(run, fetched.schema)) return SCHEMA_CHANGED;
    result.fresh.push({
      window: windowLabel(part), from: part.from, to: part.to, status: 'done', etag: fetched.etag,
      ...(fetched.asOf ? { asOf: fetched.asOf } : {}), ...(fetched.confirmed ? {} : { moving: true as const }),
      rows: fetched.rows, bytes: fetched.bytes, files: fetched.files, requestIds: fetched.requestIds, finishedAt,
    });
  }
  return result;
}

/**
 * Pulls every window again, hidden, and commits them all at once with the new schema: the folder
 * has one schema before and after, never two. A window that fails leaves the folder as it was.
 */
async function rewriteFolder(run: Run, units: readonly Unit[], why: Rewrite): Promise<SchemaChanged | undefined> {
  run.phase = 'rewriting';
  run.schema = undefined;
  run.observe({ kind: 'rewrite', why });
  const all: Pulled = { kind: 'pulled', fresh: [], kept: [], staged: [] };
  for (const [index, unit] of units.entries()) {
    run.observe({ kind: 'window-start', window: unit.window, index, count: units.length });
    let answer: Pulled | Unchanged | SchemaChanged;
    try {
      answer = await pullWhole(run, unit.window, undefined);
    } catch (error) {
      discardStaged(run);
      if (!(error instanceof WindowFailure)) throw error;
      const entry = failedEntry(unit.window, error, new Date(run.now()).toISOString(), windowLabel(unit.window));
      run.outcomes.set(entry.window, outcomeOf(entry, 'failed'));
      run.visited.set(unit.window.from, { window: unit.window, status: 'failed' });
      run.failed.push(entry);
      run.observe({ kind: 'window-failed', entry });
      run.rewritten = why;
      run.stopped = `the folder is rewritten whole or not at all, and ${entry.window} failed: it is as the last run left it`;
      return undefined;
    }
    if (answer.kind === 'schema-changed') return answer;
    if (answer.kind === 'pulled') {
      all.fresh.push(...answer.fresh);
      all.staged.push(...answer.staged);
    }
  }
  commit(run, () => true, all);
  run.rewritten = why;
  for (const unit of units) record(run, unit.window, 'pulled', [], all.fresh.filter((entry) => overlaps(entry, unit.window)));
  return undefined;
}

/** Whether an answer has the columns of this pass (the first answer of a folder without a schema sets them). */
function expectSchema(run: Run, answered: string): boolean {
  run.schema ??= answered;
  return answered === run.schema;
}

/**
 * Lists a window's entries in the manifest in place of those `replaces` picks, with the run's
 * schema, saves it, and renames their hidden files into place.
 */
function commit(run: Run, replaces: (entry: ManifestWindow) => boolean, pulled: Pulled): void {
  const entries = [...pulled.kept, ...pulled.fresh];
  commitEntries(run.out, run.manifest, { replaces, entries, staged: new Set(pulled.staged), ...(run.schema === undefined ? {} : { schema: run.schema }) }, () => save(run));
  for (const file of pulled.staged) run.staged.delete(file);
}

function save(run: Run): void {
  saveManifest(run.out, run.manifest);
  run.saved = true;
}

/**
 * A window that could not be pulled: the files pulled before stay listed, the failure is kept
 * beside them for support, and the next run pulls the window whole.
 */
function failWindow(run: Run, window: Window, error: WindowFailure): void {
  const entry = failedEntry(window, error, new Date(run.now()).toISOString(), windowLabel(window));
  const { manifest } = run;
  manifest.windows = [...manifest.windows.filter((existing) => !(existing.status === 'failed' && overlaps(existing, window))), entry].sort((a, b) => a.from.localeCompare(b.from));
  if (run.saved) save(run);
  for (const [label, outcome] of run.outcomes) if (overlaps(outcome, window)) run.outcomes.delete(label);
  run.outcomes.set(entry.window, outcomeOf(entry, 'failed'));
  run.visited.set(window.from, { window, status: 'failed' });
  run.failed.push(entry);
  run.observe({ kind: 'window-failed', entry });
}

/** What the run did with a window: `kept` entries as `status`, `fresh` ones pulled (or moving, or failed). */
function record(run: Run, window: Window, status: 'pulled' | 'unchanged', kept: readonly ManifestWindow[], fresh: readonly ManifestWindow[]): void {
  // A window pulled by an earlier pass of this run (--until-quiet) and found unchanged since is
  // still one whose files this run replaced: a pipeline loads it again.
  const earlier = new Map<string, WindowStatus>();
  for (const [label, outcome] of run.outcomes) {
    if (!overlaps(outcome, window)) continue;
    earlier.set(label, outcome.status);
    run.outcomes.delete(label);
  }
  const replaced = (label: string) => earlier.get(label) === 'pulled' || earlier.get(label) === 'moving';
  for (const entry of kept) run.outcomes.set(entry.window, outcomeOf(entry, replaced(entry.window) ? 'pulled' : 'unchanged'));
  if (run.visited.get(window.from)?.status === 'pulled') status = 'pulled';
  for (const entry of fresh) {
    const done: WindowStatus = entry.moving ? 'moving' : 'pulled';
    run.outcomes.set(entry.window, outcomeOf(entry, done));
    if (entry.status === 'failed') run.failed.push(entry);
    run.observe({ kind: entry.status === 'failed' ? 'window-failed' : 'window-done', entry });
  }
  run.visited.set(window.from, { window, status: fresh.some((entry) => entry.status === 'failed') ? 'failed' : status });
}

/** Removes the hidden files the run wrote and did not commit: the one place they are discarded. */
function discardStaged(run: Run): void {
  for (const file of run.staged) rmSync(join(run.out, partialFile(file)), { force: true });
  run.staged.clear();
}

/** Removes a folder the run made if nothing is in it (nor in the table folders it made inside it). */
function removeIfEmpty(dir: string): void {
  try {
    for (const name of readdirSync(dir)) {
      const inner = join(dir, name);
      if (statSync(inner).isDirectory() && readdirSync(inner).length === 0) rmdirSync(inner);
    }
    rmdirSync(dir);
  } catch {
    // Not empty (another run's lock, files of the user's): it stays.
  }
}
