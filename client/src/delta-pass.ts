/**
 * A run's range through the service's delta (docs/consuming.md, "Kept by the delta"): one delta
 * of the whole range, merged into the folder's windows locally. Where it starts: the folder's
 * token, kept in its manifest for the same range; else, for a folder that holds every window of
 * the range intact, its watermark (`since`: what changed since, and the ids kept); else nothing
 * (the whole view, every window written from it). A token the service will not continue (expired,
 * another view, altered) starts again from nothing, and says so. Only the windows whose contents
 * changed are written again, hidden, and committed together with the new token (folder.ts), so a
 * run stopped at any point leaves the folder and its token as they were, or as they are now.
 */
import { DATASETS } from './datasets.js';
import { DeltaRestart, walkDelta, type DeltaStart, type WalkedDelta } from './delta-walk.js';
import { PullStopped, WindowFailure } from './fetch-window.js';
import { lineOf, readWindowLines, writeWindowLines, type Line } from './jsonl-copy.js';
import type { ManifestWindow } from './manifest.js';
import { overlaps } from './plan.js';
import { outcomeOf, type DeltaUsed, type WindowOutcome } from './pull-summary.js';
import { commit, save, type Run } from './run-state.js';
import { fileLabel, isGrowing, windowLabel, type Window } from './windows.js';

/** What a window of the range held before the delta: its entry and its lines, or none to merge into. */
interface Held {
  readonly entry: ManifestWindow;
  readonly lines: ReadonlyMap<string, Line>;
}

/**
 * Brings the range's windows (`months`) up to date through one delta and commits what changed with
 * the new token. Throws WindowFailure (the run stops; the folder is as it was), PullStopped, or
 * DeltaNotOffered before anything is written.
 */
export async function deltaPass(run: Run, months: readonly Window[]): Promise<DeltaUsed> {
  const { options, manifest } = run;
  const held = heldWindows(run, months);
  const whole = months.every((month) => held.has(month));
  const token = manifest.delta;
  const start: DeltaStart = whole && token && token.from === options.from && token.to === options.to ? { kind: 'token', token: token.token }
    : whole && manifest.watermark !== undefined && manifest.schema !== undefined ? { kind: 'since', since: manifest.watermark }
      : { kind: 'full' };
  run.observe({ kind: 'delta-start', start: start.kind });
  let walked: WalkedDelta;
  let restarted: string | undefined;
  try {
    walked = await walkDelta(run.context, options, start);
    // A copy of other columns cannot be merged into (a `since` is not bound to a view as a token is).
    if (start.kind !== 'full' && walked.schema !== manifest.schema) throw new DeltaRestart('SCHEMA_CHANGED', 'the columns your roles see are not the folder\'s');
  } catch (error) {
    if (!(error instanceof DeltaRestart) || start.kind === 'full') {
      if (error instanceof DeltaRestart) throw new PullStopped(`the service refuses a delta that starts from nothing (${error.code}: ${error.message})`);
      throw error;
    }
    restarted = error.code;
    run.observe({ kind: 'delta-restart', code: error.code, why: error.message });
    walked = await walkDelta(run.context, options, { kind: 'full' });
  }
  const used = restarted === undefined ? start : { kind: 'full' as const };
  merge(run, months, used.kind, held, walked);
  return { start: start.kind, ...(restarted === undefined ? {} : { restarted }) };
}

/**
 * The windows of the range the folder holds as one intact entry each (exactly the window, done,
 * its files as listed), with their lines. A window held otherwise (in parts, failed, a file
 * changed by hand) is none.
 */
function heldWindows(run: Run, months: readonly Window[]): Map<Window, Held> {
  const idField = DATASETS[run.options.dataset].idField;
  const held = new Map<Window, Held>();
  for (const month of months) {
    const inside = run.manifest.windows.filter((entry) => overlaps(entry, month));
    const entry = inside[0];
    if (inside.length !== 1 || !entry || entry.status !== 'done' || entry.from !== month.from || entry.to !== month.to) continue;
    const lines = readWindowLines(run.out, entry, idField);
    if (lines) held.set(month, { entry, lines });
  }
  return held;
}

/**
 * The delta applied to the windows `held`: a token or a `since` continues them (records the delta
 * does not name are kept, for a `since` only those it keeps); a start from nothing keeps none, and
 * a window that reads as it did is left alone all the same. A record changed in place keeps its
 * line's place; new ones come after.
 */
function merge(run: Run, months: readonly Window[], used: DeltaStart['kind'], held: ReadonlyMap<Window, Held>, walked: WalkedDelta): void {
  const copy = used === 'full' ? new Map<Window, Held>() : held;
  const { dataset, by } = run.options;
  const field = (DATASETS[dataset].dateFields as Readonly<Record<string, string>>)[by]!;
  const home = new Map<string, Window>();
  for (const [id, record] of walked.changed) {
    const day = String(record[field] ?? '').slice(0, 10);
    const month = months.find((window) => window.from <= day && day <= window.to);
    if (!month) throw new WindowFailure(`the delta holds ${id} of ${field} ${day || 'none'}, which is in no window of ${run.options.from}..${run.options.to}: the folder is left as it was`, walked.requestIds.at(-1));
    home.set(id, month);
  }
  const placed = new Set<string>();
  const contents = new Map<Window, { lines: Line[]; changed: number; removed: number }>();
  for (const month of months) {
    const lines: Line[] = [];
    let changed = 0;
    let removed = 0;
    for (const [id, line] of copy.get(month)?.lines ?? []) {
      if (home.get(id) === month) {
        lines.push(lineOf(walked.changed.get(id)!));
        placed.add(id);
        changed++;
      } else if (!home.has(id) && !walked.removed.has(id) && (walked.kept === undefined || walked.kept.has(id))) {
        lines.push(line);
      } else {
        removed++;
      }
    }
    contents.set(month, { lines, changed, removed });
  }
  for (const [id, month] of home) {
    if (placed.has(id)) continue;
    const content = contents.get(month)!;
    content.lines.push(lineOf(walked.changed.get(id)!));
    content.changed++;
  }
  commitMerge(run, months, used, contents, walked, held);
}

/** Writes the windows whose lines changed, and commits them with the token; the others learn the delta's time. */
function commitMerge(run: Run, months: readonly Window[], used: DeltaStart['kind'], contents: ReadonlyMap<Window, { lines: Line[]; changed: number; removed: number }>, walked: WalkedDelta, before: ReadonlyMap<Window, Held>): void {
  const { manifest, options } = run;
  const finishedAt = new Date(run.now()).toISOString();
  const requestIds = walked.requestIds.slice(-1);
  const fresh: ManifestWindow[] = [];
  const staged: string[] = [];
  const outcomes = new Map<Window, WindowOutcome>();
  for (const month of months) {
    const content = contents.get(month)!;
    const old = before.get(month);
    const same = old !== undefined && sameLines([...old.lines.values()], content.lines);
    if (same) {
      const entry = { ...old.entry, asOf: walked.asOf };
      manifest.windows = manifest.windows.map((listed) => (listed === old.entry ? entry : listed));
      outcomes.set(month, { ...outcomeOf(entry, 'unchanged'), changed: 0, removed: 0 });
      continue;
    }
    const files = writeWindowLines(run.out, options.dataset, fileLabel(month, isGrowing(month, run.now())), content.lines);
    for (const file of files) {
      run.staged.add(file.file);
      staged.push(file.file);
    }
    const entry: ManifestWindow = {
      window: windowLabel(month), from: month.from, to: month.to, status: 'done', asOf: walked.asOf,
      rows: content.lines.length, bytes: files.reduce((total, file) => total + file.bytes, 0), files, requestIds, finishedAt,
    };
    fresh.push(entry);
    outcomes.set(month, { ...outcomeOf(entry, used === 'full' ? 'pulled' : 'merged'), changed: content.changed, removed: content.removed });
  }
  manifest.delta = { token: walked.token, from: options.from, to: options.to };
  run.schema = walked.schema;
  manifest.schema = walked.schema;
  if (fresh.length > 0) {
    commit(run, (entry) => fresh.some((window) => overlaps(entry, window)), { kind: 'pulled', fresh, kept: [], staged });
  } else {
    save(run);
  }
  for (const month of months) {
    const outcome = outcomes.get(month)!;
    run.windows.set(month.from, { window: month, status: outcome.status === 'unchanged' ? 'unchanged' : 'pulled', outcomes: [outcome], failures: [] });
  }
}

function sameLines(a: readonly Line[], b: readonly Line[]): boolean {
  return a.length === b.length && a.every((line, index) => line === b[index]);
}
