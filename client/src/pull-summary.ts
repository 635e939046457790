/**
 * What a pull tells: its events as they happen (the CLI's progress line), and its summary at the
 * end, which says whether the folder is exact.
 */
import type { ManifestWindow } from './manifest.js';
import type { WindowFailure } from './fetch-window.js';
import { windowLabel, type Window } from './windows.js';

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
  | { readonly kind: 'orphans-removed'; readonly files: readonly string[] }
  | { readonly kind: 'files-recovered'; readonly files: readonly string[] };

/** Why a run rewrote the whole folder: the columns changed, or an older client's folder had no validators. */
export type Rewrite = 'schema' | 'older-client';

export interface PullSummary {
  /** Windows checked or pulled: the range's months and the windows the folder holds besides. */
  readonly windows: number;
  /** Windows pulled (new, changed, or all of a rewrite). */
  readonly pulled: number;
  /** Windows the service said are unchanged. */
  readonly unchanged: number;
  readonly rewritten?: Rewrite;
  /** Windows pulled but still changing when asked again: the next run checks them again. */
  readonly unconfirmed: readonly string[];
  readonly failed: readonly ManifestWindow[];
  /** Why the pull stopped before its last window (the service could not be reached; a rewrite failed). */
  readonly stopped?: string;
  readonly rows: number;
  readonly bytes: number;
  readonly files: readonly string[];
  /** Entries of the folder this pull did not write that readers would load with its files (folder.ts, foreignFiles). */
  readonly foreign?: readonly string[];
}

/** Whether some windows are to be run again: failed, still changing, or not tried (the run stopped). */
export function toRunAgain(summary: PullSummary): boolean {
  return summary.failed.length > 0 || summary.unconfirmed.length > 0 || summary.stopped !== undefined;
}

/**
 * Whether a summary says the folder equals the service: every window checked or pulled, and
 * confirmed, and nothing else in the folder for a reader to load.
 */
export function isExact(summary: PullSummary): boolean {
  return !toRunAgain(summary) && (summary.foreign?.length ?? 0) === 0;
}

/** What a window's pull left: its entries, the files written hidden for them, and what could not be confirmed. */
export interface WindowEntries {
  readonly entries: ManifestWindow[];
  readonly staged: string[];
  readonly unconfirmed: string[];
}

/** An empty WindowEntries, to add a window's parts to. */
export function noEntries(): WindowEntries {
  return { entries: [], staged: [], unconfirmed: [] };
}

/** A summary with nothing counted yet, to count a run's windows into. */
export function newSummary(windows: number) {
  return { windows, pulled: 0, unchanged: 0, unconfirmed: [] as string[], failed: [] as ManifestWindow[], files: [] as string[], rows: 0, bytes: 0, stopped: undefined as string | undefined };
}

/** Counts a committed pull's entries into the summary and tells the observer of each. */
export function report(summary: ReturnType<typeof newSummary>, pulled: WindowEntries, observe: (event: PullEvent) => void): void {
  summary.pulled++;
  summary.unconfirmed.push(...pulled.unconfirmed);
  tally(summary, pulled.entries);
  for (const entry of pulled.entries) {
    if (entry.status === 'failed') summary.failed.push(entry);
    observe({ kind: entry.status === 'failed' ? 'window-failed' : 'window-done', entry });
  }
}

/** The manifest entry of a window that failed: no files, the reason, and the request id for support. */
export function failedEntry(window: Window, error: WindowFailure, now: () => number): ManifestWindow {
  return { window: windowLabel(window), from: window.from, to: window.to, status: 'failed', rows: 0, bytes: 0, files: [], requestIds: error.requestId ? [error.requestId] : [], error: error.message, finishedAt: new Date(now()).toISOString() };
}

/** Adds entries' rows, bytes and files to a summary. */
export function tally(summary: { rows: number; bytes: number; files: string[] }, entries: readonly ManifestWindow[]): void {
  for (const entry of entries) {
    summary.rows += entry.rows;
    summary.bytes += entry.bytes;
    summary.files.push(...entry.files.map((file) => file.file));
  }
}

