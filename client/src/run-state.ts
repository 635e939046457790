/**
 * The state of one pull run (pull.ts): the manifest, the schema its answers must have, the files
 * written hidden and not committed yet, and one ledger of what the run did with each window it
 * visited, from which its summary is derived (settleFolder); and the steps that change it (commit,
 * record a window, fail a window, discard the staged files).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { WindowFailure, type FetchContext } from './fetch-window.js';
import { commitEntries } from './folder.js';
import { partialFile } from './layout.js';
import { saveManifest, type Manifest, type ManifestWindow } from './manifest.js';
import { overlaps } from './plan.js';
import type { PullOptions } from './pull-options.js';
import { failedEntry, outcomeOf, type DeltaUsed, type PullEvent, type Rewrite, type WindowOutcome, type WindowStatus } from './pull-summary.js';
import { windowLabel, type Window } from './windows.js';

/** What the run did with one window it visited (a month of the range, or a window the folder holds besides). */
export interface WindowRecord {
  readonly window: Window;
  readonly status: 'pulled' | 'unchanged' | 'failed';
  /** Each of the window's entries (a file's window: the month, or its parts) as the run left it. */
  readonly outcomes: readonly WindowOutcome[];
  /** The failed entries among them, as the manifest records them. */
  readonly failures: readonly ManifestWindow[];
}

/** The run's state: everything the steps below read and change. */
export interface Run {
  readonly out: string;
  readonly options: PullOptions;
  readonly context: FetchContext;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly observe: (event: PullEvent) => void;
  readonly manifest: Manifest;
  /** The manifest is on disk (the folder is this pull's): failures are recorded in it too. */
  saved: boolean;
  /** The schema every answer of this pass must have: the folder's, else the first one answered. */
  schema: string | undefined;
  /** Files written hidden (partialFile) and not committed: removed by discardStaged. */
  readonly staged: Set<string>;
  /** The ledger: what the run did with each window it visited, by the window's first day. A later pass's record replaces an earlier one's. */
  readonly windows: Map<string, WindowRecord>;
  rewritten?: Rewrite;
  stopped?: string;
  /** The export job the run's range came through (job-pass.ts). */
  job?: { readonly id: string; readonly transactionTime: string };
  /** How the delta the run's range came through started (delta-pass.ts). */
  delta?: DeltaUsed;
  /** The run's passes pulled the folder and it took a new delta token for it (delta-pass.ts, adoptToken). */
  adopted?: boolean;
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
  return [...run.windows.values()].map(({ window }) => window).filter((window) => moving.some((entry) => overlaps(entry, window)));
}

/**
 * Every window of the folder as the run left it, by label: what the run did with it, else (the
 * run stopped before it) `not-tried`; the parts of a window that failed whole are its failure.
 */
export function outcomesOf(run: Run): WindowOutcome[] {
  const byLabel = new Map<string, WindowOutcome>();
  for (const record of run.windows.values()) for (const outcome of record.outcomes) byLabel.set(outcome.label, outcome);
  const failures = [...byLabel.values()].filter((outcome) => outcome.status === 'failed');
  for (const entry of run.manifest.windows) {
    if (!byLabel.has(entry.window) && !failures.some((failure) => overlaps(failure, entry))) byLabel.set(entry.window, outcomeOf(entry, 'not-tried'));
  }
  return [...byLabel.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/** The failed entries of the windows as the run left them. */
export function failuresOf(run: Run): ManifestWindow[] {
  return [...run.windows.values()].flatMap((record) => record.failures);
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
export function recordFailure(run: Run, window: Window, error: WindowFailure, listed = true): ManifestWindow {
  const entry = failedEntry(window, error, new Date(run.now()).toISOString(), windowLabel(window));
  if (listed) {
    const { manifest } = run;
    manifest.windows = [...manifest.windows.filter((existing) => !(existing.status === 'failed' && overlaps(existing, window))), entry].sort((a, b) => a.from.localeCompare(b.from));
    if (run.saved) save(run);
  }
  run.windows.set(window.from, { window, status: 'failed', outcomes: [outcomeOf(entry, 'failed')], failures: [entry] });
  run.observe({ kind: 'window-failed', entry });
  return entry;
}

/** What the run did with a window: `kept` entries as `status`, `fresh` ones pulled (or moving, or failed). */
export function record(run: Run, window: Window, status: 'pulled' | 'unchanged', kept: readonly ManifestWindow[], fresh: readonly ManifestWindow[]): void {
  // A window pulled by an earlier pass of this run (--until-quiet) and found unchanged since is
  // still one whose files this run replaced: a pipeline loads it again.
  const earlier = run.windows.get(window.from);
  const before = new Map<string, WindowStatus>(earlier?.outcomes.map((outcome) => [outcome.label, outcome.status]));
  const replaced = (label: string) => before.get(label) === 'pulled' || before.get(label) === 'moving';
  const outcomes = [
    ...kept.map((entry) => outcomeOf(entry, replaced(entry.window) ? 'pulled' : 'unchanged')),
    ...fresh.map((entry) => outcomeOf(entry, entry.moving ? 'moving' : 'pulled')),
  ];
  const failures = fresh.filter((entry) => entry.status === 'failed');
  for (const entry of fresh) run.observe({ kind: entry.status === 'failed' ? 'window-failed' : 'window-done', entry });
  run.windows.set(window.from, { window, status: failures.length > 0 ? 'failed' : earlier?.status === 'pulled' ? 'pulled' : status, outcomes, failures });
}

/** Removes the hidden files the run staged and did not commit (a pass that failed, the run's end). */
export function discardStaged(run: Run): void {
  for (const file of run.staged) rmSync(join(run.out, partialFile(file)), { force: true });
  run.staged.clear();
}
