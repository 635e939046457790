/**
 * A pull: a date range of one dataset into a folder that stays exact, one file per table and
 * calendar-month window (Parquet exports, invoices' two tables taken out of the zip, or JSON Lines
 * from walking every page). Every run checks every window the folder holds and the range names by
 * the ETag of its last pull (one conditional request each: 412 when unchanged), and pulls again
 * exactly the windows that changed, replacing their files atomically (folder.ts). A change of the
 * columns the caller sees (X-Summary-Schema) rewrites the whole folder at once, so that every file
 * has one schema; a run that fails during a rewrite leaves the folder as it was.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { lockFolder } from './folder-lock.js';
import { DATASETS, MAX_PAGE_SIZE, type DatasetName, type DateBy, type Format } from './datasets.js';
import { discard, fetchWindow, PullStopped, Unreachable, WindowFailure, type FetchContext } from './fetch-window.js';
import { commitEntries, foreignFiles, tidyFolder } from './folder.js';
import { MANIFEST_FILE } from './layout.js';
import { listedFiles, ManifestError, openManifest, saveManifest, type Manifest, type ManifestWindow } from './manifest.js';
import { overlaps, plan, type Unit } from './plan.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import type { SummaryApi } from './summary-api.js';
import { failedEntry, newSummary, noEntries, report, tally, type PullEvent, type PullSummary, type Rewrite, type WindowEntries } from './pull-summary.js';
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
  /** Waits before each confirmation of a pulled window (default CONFIRM_WAITS_MS). */
  readonly confirmWaitsMs?: readonly number[];
}

/**
 * A pulled window is asked again with its ETag at once, then after 2 and 4 s more, and the answer
 * of that last wait once more at once: a result written to in the service's last few seconds has an
 * ETag of its own until it is quiet (5 s: docs/decisions.md, "Validators"), so this rides that out.
 */
export const CONFIRM_WAITS_MS: readonly number[] = [0, 2000, 4000, 0];

/** The columns the caller sees changed during the run. */
class SchemaChanged extends Error {}

export async function pull(api: SummaryApi, options: PullOptions, observe: (event: PullEvent) => void = () => {}): Promise<PullSummary> {
  const { dataset, by, out } = options;
  if (!(DATASETS[dataset].dateBy as readonly string[]).includes(by)) {
    throw new RangeError(`${dataset} cannot be split by ${by}: use ${DATASETS[dataset].dateBy.join(' or ')}`);
  }
  if (existsSync(out) && !statSync(out).isDirectory()) throw new ManifestError(`--out ${out} is a file, not a folder`);
  // A folder that does not exist yet is made, and locked, with the first window pulled.
  let unlock = existsSync(out) ? lockFolder(out) : undefined;
  try {
    return await pullLocked(api, options, observe, () => (unlock ??= lockFolder(out)));
  } finally {
    unlock?.();
  }
}

async function pullLocked(api: SummaryApi, options: PullOptions, observe: (event: PullEvent) => void, lock: () => void): Promise<PullSummary> {
  const { dataset, by, format, out } = options;
  const manifest = openManifest(out, { ...options.source, dataset, format, by, filters: options.filters });
  // A folder with no manifest yet gets one only with the first window pulled: a pull refused at
  // its start (a wrong secret, a bad filter) leaves nothing that would hold the folder.
  let saved = existsSync(join(out, MANIFEST_FILE));
  const save = () => {
    mkdirSync(out, { recursive: true });
    lock();
    saveManifest(out, manifest);
    saved = true;
  };
  const { recovered, removed } = tidyFolder(out, manifest, options, saved);
  if (recovered.length > 0) observe({ kind: 'files-recovered', files: recovered });
  if (removed.length > 0) observe({ kind: 'orphans-removed', files: removed });
  const units = plan(manifest, out, monthWindows(options.from, options.to));
  const now = options.now ?? Date.now;
  const context: FetchContext = {
    api, dataset, by, format, filters: options.filters, out,
    pageSize: options.pageSize ?? MAX_PAGE_SIZE,
    retry: options.retry ?? DEFAULT_RETRY,
    confirmWaitsMs: options.confirmWaitsMs ?? CONFIRM_WAITS_MS,
    onRetry: (why, waitMs) => observe({ kind: 'retry', why, waitMs }),
    onProgress: (rows, bytes) => observe({ kind: 'progress', rows, bytes }),
  };
  const run = { context, units, manifest, out, now, observe, save, saved: () => saved };
  // An older client's folder has no validators and no schema: it is pulled again whole, at once.
  let rewrite: Rewrite | undefined = manifest.schema === undefined && listedFiles(manifest).size > 0 ? 'older-client' : undefined;
  for (let round = 0; ; round++) {
    try {
      return settleFolder(run, options, rewrite ? await rewriteFolder(run, rewrite) : await updateFolder(run));
    } catch (error) {
      if (!(error instanceof SchemaChanged)) throw error;
      if (round >= 2) {
        throw new WindowFailure('the columns your roles see changed again and again during the run; run it again once the service\'s roles settle');
      }
      rewrite = 'schema';
    }
  }
}

interface Run {
  readonly context: FetchContext;
  readonly units: readonly Unit[];
  readonly manifest: Manifest;
  readonly out: string;
  readonly now: () => number;
  readonly observe: (event: PullEvent) => void;
  readonly save: () => void;
  readonly saved: () => boolean;
}

/**
 * The folder as readers will open it, last of all. Files named as this pull's that its manifest
 * does not list are removed: at the start they were kept if the folder had no manifest (one that
 * was lost or deleted, say), since a folder without one may not be this pull's; now it has one.
 * Anything else readers would load with the folder's files (folder.ts, foreignFiles) was not
 * written by this pull: the run is not exact while it is there.
 */
function settleFolder(run: Run, pull: { dataset: DatasetName; format: Format }, summary: PullSummary): PullSummary {
  if (!run.saved()) return summary;
  // Only after a run that pulled every window: one that failed keeps a window's old file (its
  // data, if stale) rather than leave readers without the month until the next run.
  if (summary.failed.length === 0 && summary.stopped === undefined) {
    const { removed } = tidyFolder(run.out, run.manifest, pull, true);
    if (removed.length > 0) run.observe({ kind: 'orphans-removed', files: removed });
  }
  const foreign = foreignFiles(run.out, run.manifest, pull);
  return foreign.length > 0 ? { ...summary, foreign } : summary;
}

/** Checks every window, pulls again what changed and commits it window by window. */
async function updateFolder(run: Run): Promise<PullSummary> {
  const { manifest, out, observe } = run;
  const summary = newSummary(run.units.length);
  let schema = manifest.schema;
  const expect = (answered: string) => {
    schema ??= answered;
    if (answered !== schema) throw new SchemaChanged();
  };
  for (const [index, unit] of run.units.entries()) {
    observe({ kind: 'window-start', window: unit.window, index, count: run.units.length });
    try {
      const pulled = await updateUnit(run, unit, expect);
      if (pulled === 'unchanged') {
        summary.unchanged++;
        tally(summary, unit.parts!);
        observe({ kind: 'window-unchanged', window: unit.window, entries: unit.parts! });
        continue;
      }
      commitEntries(out, manifest, { replaces: (entry) => overlaps(entry, unit.window), entries: pulled.entries, staged: new Set(pulled.staged), ...(schema === undefined ? {} : { schema }) }, run.save);
      report(summary, pulled, observe);
    } catch (error) {
      if (!(error instanceof WindowFailure)) throw error;
      const entry = failedEntry(unit.window, error, run.now);
      summary.failed.push(entry);
      observe({ kind: 'window-failed', entry });
      // The files pulled before stay listed; the failure is kept beside them for support, and the
      // next run pulls the window whole.
      manifest.windows = [...manifest.windows.filter((existing) => !(existing.status === 'failed' && overlaps(existing, unit.window))), entry].sort(byFrom);
      if (run.saved()) run.save();
      if (error instanceof Unreachable) {
        summary.stopped = `the service could not be reached (${error.message}); the windows after it were not tried`;
        break;
      }
    }
  }
  return summary;
}

/**
 * A window checked part by part by their ETags (the parts that changed pulled again, halved as
 * needed), or pulled whole; 'unchanged' when every part is.
 */
async function updateUnit(run: Run, unit: Unit, expect: (schema: string) => void): Promise<WindowEntries | 'unchanged'> {
  if (!unit.parts) return pullWhole(run, unit.window, undefined, expect) as Promise<WindowEntries>;
  const result: WindowEntries = noEntries();
  let changed = false;
  try {
    for (const part of unit.parts) {
      const pulled = await pullWhole(run, { month: unit.window.month, from: part.from, to: part.to }, part.etag, expect);
      if (pulled === 'unchanged') {
        result.entries.push(part);
        continue;
      }
      changed = true;
      result.entries.push(...pulled.entries);
      result.staged.push(...pulled.staged);
      result.unconfirmed.push(...pulled.unconfirmed);
    }
  } catch (error) {
    discard(run.context, { files: result.staged.map((file) => ({ file })) });
    throw error;
  }
  return changed ? result : 'unchanged';
}

/**
 * Pulls a window, halving one that is too large for one answer down to single days, depth first so
 * the parts come in date order; a single day still too large is a failed entry of its own among
 * them. With `ifNoneMatch`, the first request is a check: 'unchanged' when it holds. The files are
 * left hidden; on any other failure none is left.
 */
async function pullWhole(run: Run, window: Window, ifNoneMatch: string | undefined, expect: (schema: string) => void): Promise<WindowEntries | 'unchanged'> {
  const result: WindowEntries = noEntries();
  const pending: { window: Window; etag: string | undefined }[] = [{ window, etag: ifNoneMatch }];
  try {
    while (pending.length > 0) {
      const next = pending.shift()!;
      const part = next.window;
      const fetched = await fetchWindow(run.context, part, fileLabel(part, isGrowing(part, run.now())), next.etag);
      const finishedAt = new Date(run.now()).toISOString();
      if (fetched.kind === 'unchanged') return 'unchanged';
      if (fetched.kind === 'too-large') {
        const parts = halves(part);
        if (parts) {
          run.observe({ kind: 'split', window: part, into: parts });
          pending.unshift(...parts.map((half) => ({ window: half, etag: undefined })));
        } else {
          const error = `${part.from} alone is larger than one answer may be (the service's PARQUET_MAX_BYTES, or this client's SUMMARY_MAX_EXPORT_BYTES): raise SUMMARY_MAX_EXPORT_BYTES if it is this client's limit, else ask the service owners; the month's other days are kept`;
          result.entries.push({ window: windowLabel(part), from: part.from, to: part.to, status: 'failed', rows: 0, bytes: 0, files: [], requestIds: [], error, finishedAt });
        }
        continue;
      }
      result.staged.push(...fetched.files.map((file) => file.file));
      expect(fetched.schema);
      result.entries.push({ window: windowLabel(part), from: part.from, to: part.to, status: 'done', etag: fetched.etag, rows: fetched.rows, bytes: fetched.bytes, files: fetched.files, requestIds: fetched.requestIds, finishedAt });
      if (!fetched.confirmed) result.unconfirmed.push(windowLabel(part));
    }
    return result;
  } catch (error) {
    discard(run.context, { files: result.staged.map((file) => ({ file })) });
    throw error;
  }
}

/**
 * Pulls every window again, hidden, and commits them all at once with the new schema: the folder
 * has one schema before and after, never two. A window that fails leaves the folder as it was.
 */
async function rewriteFolder(run: Run, why: Rewrite): Promise<PullSummary> {
  const { manifest, out, observe } = run;
  observe({ kind: 'rewrite', why });
  const summary = { ...newSummary(run.units.length), rewritten: why };
  let schema: string | undefined;
  const expect = (answered: string) => {
    schema ??= answered;
    if (answered !== schema) throw new SchemaChanged();
  };
  const all: WindowEntries = noEntries();
  for (const [index, unit] of run.units.entries()) {
    observe({ kind: 'window-start', window: unit.window, index, count: run.units.length });
    let pulled: WindowEntries;
    try {
      pulled = (await pullWhole(run, unit.window, undefined, expect)) as WindowEntries;
    } catch (error) {
      discard(run.context, { files: all.staged.map((file) => ({ file })) });
      if (!(error instanceof WindowFailure)) throw error;
      const entry = failedEntry(unit.window, error, run.now);
      observe({ kind: 'window-failed', entry });
      return { ...newSummary(run.units.length), rewritten: why, failed: [entry], stopped: `the folder is rewritten whole or not at all, and ${entry.window} failed: it is as the last run left it` };
    }
    all.entries.push(...pulled.entries);
    all.staged.push(...pulled.staged);
    all.unconfirmed.push(...pulled.unconfirmed);
  }
  commitEntries(out, manifest, { replaces: () => true, entries: all.entries, staged: new Set(all.staged), ...(schema === undefined ? {} : { schema }) }, run.save);
  report(summary, all, observe);
  summary.pulled = run.units.length;
  return summary;
}

function byFrom(a: ManifestWindow, b: ManifestWindow): number {
  return a.from.localeCompare(b.from);
}
