/**
 * The state of one pull run (pull.ts): its phase, the folder's lock, the manifest, the schema its
 * answers must have, the files written hidden and not committed yet, and what it did with each
 * window; and the steps that change it (commit, record, fail a window, discard the staged files).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { WindowFailure, type FetchContext } from './fetch-window.js';
import { commitEntries } from './folder.js';
import { partialFile } from './layout.js';
import { saveManifest, type Manifest, type ManifestWindow } from './manifest.js';
import { overlaps } from './plan.js';
import { failedEntry, outcomeOf, type PullEvent, type Rewrite, type WindowOutcome, type WindowStatus } from './pull-summary.js';
import { windowLabel, type Window } from './windows.js';
import type { PullOptions } from './pull.js';


/** Where a run is: what it may still change. */
export type Phase = 'starting' | 'updating' | 'rewriting' | 'waiting-quiet' | 'settling' | 'done';

/** The run's state: everything the steps below read and change. */
export interface Run {
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
  /** The export job the run's range came through (job-pass.ts). */
  job?: { readonly id: string; readonly transactionTime: string };
}

/** A pass ends early: the columns the caller sees changed, and the folder is rewritten whole. */
export const SCHEMA_CHANGED = { kind: 'schema-changed' } as const;
export type SchemaChanged = typeof SCHEMA_CHANGED;

/** A window's answer: new entries with their hidden files (and the parts that were unchanged), or unchanged whole. */
export type Pulled = { readonly kind: 'pulled'; readonly fresh: ManifestWindow[]; readonly kept: ManifestWindow[]; readonly staged: string[] };
export type Unchanged = { readonly kind: 'unchanged'; readonly kept: ManifestWindow[] };

/** The windows visited that hold an entry still being written. */
export function movingWindows(run: Run): Window[] {
  const moving = run.manifest.windows.filter((entry) => entry.moving);
  return [...run.visited.values()].map(({ window }) => window).filter((window) => moving.some((entry) => overlaps(entry, window)));
}

/**
 * Every window of the folder as the run left it, by label: what the run did with it, else (the
 * run stopped before it) `not-tried`; the parts of a window that failed whole are its failure.
 */
export function outcomesOf(run: Run): WindowOutcome[] {
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

export function expectSchema(run: Run, answered: string): boolean {
  run.schema ??= answered;
  return answered === run.schema;
}

/**
 * Lists a window's entries in the manifest in place of those `replaces` picks, with the run's
 * schema, saves it, and renames their hidden files into place.
 */
export function commit(run: Run, replaces: (entry: ManifestWindow) => boolean, pulled: Pulled): void {
  const entries = [...pulled.kept, ...pulled.fresh];
  commitEntries(run.out, run.manifest, { replaces, entries, staged: new Set(pulled.staged), ...(run.schema === undefined ? {} : { schema: run.schema }) }, () => save(run));
  for (const file of pulled.staged) run.staged.delete(file);
}

export function save(run: Run): void {
  saveManifest(run.out, run.manifest);
  run.saved = true;
}

/**
 * A window that could not be pulled: the files pulled before stay listed, the failure is kept
 * beside them for support (unless `listed` is false: a rewrite that fails leaves the manifest as
 * it was), and the next run pulls the window whole. Returns its entry.
 */
export function failWindow(run: Run, window: Window, error: WindowFailure, listed = true): ManifestWindow {
  const entry = failedEntry(window, error, new Date(run.now()).toISOString(), windowLabel(window));
  if (listed) {
    const { manifest } = run;
    manifest.windows = [...manifest.windows.filter((existing) => !(existing.status === 'failed' && overlaps(existing, window))), entry].sort((a, b) => a.from.localeCompare(b.from));
    if (run.saved) save(run);
  }
  for (const [label, outcome] of run.outcomes) if (overlaps(outcome, window)) run.outcomes.delete(label);
  run.outcomes.set(entry.window, outcomeOf(entry, 'failed'));
  run.visited.set(window.from, { window, status: 'failed' });
  run.failed.push(entry);
  run.observe({ kind: 'window-failed', entry });
  return entry;
}

/** What the run did with a window: `kept` entries as `status`, `fresh` ones pulled (or moving, or failed). */
export function record(run: Run, window: Window, status: 'pulled' | 'unchanged', kept: readonly ManifestWindow[], fresh: readonly ManifestWindow[]): void {
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
export function discardStaged(run: Run): void {
  for (const file of run.staged) rmSync(join(run.out, partialFile(file)), { force: true });
  run.staged.clear();
}
