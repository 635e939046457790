/**
 * What a pull tells: its events as they happen (the CLI's progress line), and its summary at the
 * end: per window what the run did, the folder's watermark, and whether the run is complete.
 */
import type { DeltaStart } from './delta-walk.js';
import type { ManifestFile, ManifestWindow } from './manifest.js';
import type { Window } from './windows.js';

/** What a pull tells its observer (the CLI's progress line). */
export type PullEvent =
  | { readonly kind: 'window-start'; readonly window: Window; readonly index: number; readonly count: number }
  | { readonly kind: 'window-unchanged'; readonly window: Window; readonly entries: readonly ManifestWindow[] }
  | { readonly kind: 'window-done'; readonly entry: ManifestWindow }
  | { readonly kind: 'window-failed'; readonly entry: ManifestWindow }
  | { readonly kind: 'progress'; readonly rows: number; readonly bytes: number }
  | { readonly kind: 'retry'; readonly why: string; readonly waitMs: number }
  | { readonly kind: 'split'; readonly window: Window; readonly into: readonly [Window, Window] }
  | { readonly kind: 'rewrite'; readonly why: Rewrite }
  | { readonly kind: 'waiting-quiet'; readonly windows: readonly string[]; readonly waitMs: number }
  | { readonly kind: 'orphans-removed'; readonly files: readonly string[] }
  | { readonly kind: 'files-recovered'; readonly files: readonly string[] }
  | { readonly kind: 'folder-linked'; readonly out: string; readonly generations: string }
  | { readonly kind: 'run-resumed' }
  | { readonly kind: 'job-started'; readonly id: string; readonly windows: number; readonly unchangedAsked: number }
  | { readonly kind: 'job-progress'; readonly done: number; readonly windows: number }
  | { readonly kind: 'job-not-offered'; readonly why: string }
  | { readonly kind: 'delta-start'; readonly start: DeltaStart['kind']; readonly grownFrom?: { readonly from: string; readonly to: string } }
  | { readonly kind: 'delta-restart'; readonly code: string; readonly why: string; readonly then: 'whole-range' | 'passes' }
  | { readonly kind: 'delta-not-offered'; readonly why: string };

/**
 * How a run's delta started: from the folder's token, its watermark (`since`), or nothing (the
 * whole view); and the code of a start the service refused (an expired token, a changed view),
 * after which it started again from nothing.
 */
export interface DeltaUsed {
  readonly start: DeltaStart['kind'];
  /**
   * The delta was merged into the folder (JSON Lines; Parquet from a token). False: a Parquet
   * folder the delta could not keep this run (no token yet, a delta too large for one answer, a
   * token refused) took a token by `since` and was pulled by the run's other passes.
   */
  readonly merged: boolean;
  readonly restarted?: string;
}

/** How a run asked for its range: one delta merged into the folder, one export job (its files from storage), or window by window. */
export type Via = 'delta' | 'job' | 'windows';

/** Why a run rewrote the whole folder: the columns changed, or an older client's folder had no validators. */
export type Rewrite = 'schema' | 'older-client';

/**
 * What a run did with a window of the folder: `pulled` (new or changed, confirmed; through a
 * delta: written whole from a delta that started from nothing), `merged` (a delta's changes and
 * removals merged into its files), `moving` (still being written while pulled: kept as pulled,
 * checked again by the next run), `unchanged` (its ETag still holds; through a delta: nothing of
 * it changed), `failed`, or `not-tried` (the run stopped before it).
 */
export type WindowStatus = 'pulled' | 'merged' | 'moving' | 'unchanged' | 'failed' | 'not-tried';

/** One window of the folder (a manifest entry) as the run left it. */
export interface WindowOutcome {
  /** `YYYY-MM`, or `from_to` for a part of a month. */
  readonly label: string;
  readonly from: string;
  readonly to: string;
  readonly status: WindowStatus;
  /** Every write before it is in the window's files (the service's X-Summary-As-Of); absent when unknown. */
  readonly asOf?: string;
  readonly rows: number;
  readonly bytes: number;
  readonly files: readonly ManifestFile[];
  readonly error?: string;
  /** Through a delta: the records written into the window (created, changed, or moved in). */
  readonly changed?: number;
  /** Through a delta: the records the window held and no longer holds (deleted, left the view, or moved to another window). */
  readonly removed?: number;
}

export interface PullSummary {
  /** How the run asked for its range. */
  readonly via: Via;
  /** The run's export job (through a job): its id, and the time every write before which is in its files. */
  readonly job?: { readonly id: string; readonly transactionTime: string };
  readonly delta?: DeltaUsed;
  /** Windows checked or pulled: the range's months and the windows the folder holds besides. */
  readonly windows: number;
  /** Of those, the windows pulled (new, changed, or all of a rewrite). */
  readonly pulled: number;
  /** Of those, the windows the service said are unchanged. */
  readonly unchanged: number;
  readonly rewritten?: Rewrite;
  /** Every window of the folder as the run left it, in date order. */
  readonly outcomes: readonly WindowOutcome[];
  /** Windows still being written while pulled: kept as pulled, checked again by the next run. */
  readonly moving: readonly string[];
  readonly failed: readonly ManifestWindow[];
  /** Why the pull stopped before its last window (the service could not be reached; a rewrite failed). */
  readonly stopped?: string;
  /** Every write that landed before it is in the folder (the oldest asOf of its windows); absent when unknown. */
  readonly watermark?: string;
  readonly rows: number;
  readonly bytes: number;
  readonly files: readonly string[];
  /** Entries of the folder this pull did not write that readers would load with its files (folder.ts, foreignFiles). */
  readonly foreign?: readonly string[];
  /** A strict run (--until-quiet) whose windows were still being written at its bound. */
  readonly notQuiet?: boolean;
}

/** Whether some windows are to be run again: failed, or not tried (the run stopped). */
export function toRunAgain(summary: PullSummary): boolean {
  return summary.failed.length > 0 || summary.stopped !== undefined || summary.notQuiet === true;
}

/**
 * Whether the run is complete: every window checked or pulled (still being written or not), and
 * nothing else in the folder for a reader to load. The folder then holds every write before its
 * watermark.
 */
export function isComplete(summary: PullSummary): boolean {
  return !toRunAgain(summary) && (summary.foreign?.length ?? 0) === 0;
}

/** The manifest entry of a window that failed: no files, the reason, and the request id for support. */
export function failedEntry(window: Window, error: { message: string; requestId: string }, finishedAt: string, label: string): ManifestWindow {
  return { window: label, from: window.from, to: window.to, status: 'failed', rows: 0, bytes: 0, files: [], requestIds: error.requestId ? [error.requestId] : [], error: error.message, finishedAt };
}

/** A window's outcome from its manifest entry and what the run did with it. */
export function outcomeOf(entry: ManifestWindow, status: WindowStatus): WindowOutcome {
  return {
    label: entry.window, from: entry.from, to: entry.to, status: entry.status === 'failed' ? 'failed' : status,
    ...(entry.asOf === undefined ? {} : { asOf: entry.asOf }), rows: entry.rows, bytes: entry.bytes, files: entry.files,
    ...(entry.error === undefined ? {} : { error: entry.error }),
  };
}

/** Month labels in a row as ranges (`2025-01..2025-09, 2025-11`): a nightly run's unchanged windows in one line. */
export function labelRanges(labels: readonly string[]): string {
  const parts: string[] = [];
  let start = '';
  let last = '';
  const close = () => {
    if (start) parts.push(start === last ? start : `${start}..${last}`);
  };
  for (const label of labels) {
    if (/^\d{4}-\d{2}$/.test(label) && /^\d{4}-\d{2}$/.test(last) && label === nextMonth(last)) {
      last = label;
      continue;
    }
    close();
    start = label;
    last = label;
  }
  close();
  return parts.join(', ');
}

function nextMonth(month: string): string {
  const [year, index] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, index, 1)).toISOString().slice(0, 7);
}
