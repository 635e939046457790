/**
 * A run's range through the service's delta (docs/consuming.md, "Kept by the delta"): one delta
 * of the whole range, merged into the folder's windows locally, and committed with the new token
 * (folder.ts: the manifest first, then the renames), so that a run stopped at any point leaves the
 * folder and its token as they were, or as the next run finishes them. Only windows whose contents
 * changed are written.
 *
 * JSON Lines (jsonl-copy.ts) start from the folder's token for the same range; else, for a folder
 * that holds every window of the range, from its watermark (`since`: what changed since, and the
 * ids kept); else from nothing (the whole view). Parquet (parquet-copy.ts) merges only from a
 * token: a folder without one, a delta too large for one answer, or a token the service no longer
 * continues is pulled by the run's other passes (a job, or window by window), and then adopts a
 * token (adoptToken). A token the service will not continue starts again, and says so.
 */
import { DATASETS, dateMembers } from './datasets.js';
import { DeltaNotOffered, DeltaRestart, DeltaTooLarge, fetchDeltaFiles, SinceRefused, walkDelta, type DeltaStart } from './delta-walk.js';
import { WindowFailure } from './fetch-window.js';
import { mergeLines, readWindowLines, type Line } from './jsonl-copy.js';
import { aloneIn, dateField, heldPart, homesOf, wholeEntry, within, type Token } from './held-months.js';
import { dataFile, tablesOf } from './layout.js';
import { watermarkOf, type ManifestFile, type ManifestWindow } from './manifest.js';
import { mergeTables, readParquetDelta, readWindowIds, type ParquetDelta } from './parquet-copy.js';
import { overlaps } from './plan.js';
import { outcomeOf, type DeltaUsed, type WindowOutcome } from './pull-summary.js';
import { commit, save, type Run } from './run-state.js';
import { fileLabel, isGrowing, windowLabel, type Window } from './windows.js';

/** A window after a delta's merge. */
export interface MergedWindow {
  /** It reads as before: nothing written. */
  readonly same: boolean;
  /** Its files after the merge: written hidden (`staged`), or kept as they were. */
  readonly files: readonly { readonly file: ManifestFile; readonly staged: boolean }[];
  readonly rows: number;
  /** Records written into it (created, changed, or moved in). */
  readonly changed: number;
  /** Records it held and no longer holds. */
  readonly removed: number;
}

/**
 * A Parquet folder the delta cannot keep this run: it has no token for the range, or the delta is
 * too large for one answer, or the service refused the token (`code`). Its other passes pull it.
 */
export class NeedsPass extends Error {
  override readonly name = 'NeedsPass';
  constructor(readonly code: string | undefined, message: string) {
    super(message);
  }
}

/** What a delta answered, as the commit takes it. */
interface Answered {
  readonly token: string;
  readonly asOf: string;
  readonly schema: string;
  readonly requestIds: readonly string[];
}

/**
 * Brings the range's windows (`months`) up to date through one delta and commits what changed
 * with the new token. Throws WindowFailure (the run stops; the folder is as it was), PullStopped,
 * DeltaNotOffered, or (Parquet) NeedsPass, before anything is written.
 */
export async function deltaPass(run: Run, months: readonly Window[]): Promise<DeltaUsed> {
  return run.options.format === 'jsonl' ? jsonlDelta(run, months) : parquetDelta(run, months);
}

async function jsonlDelta(run: Run, months: readonly Window[]): Promise<DeltaUsed> {
  const { options, manifest } = run;
  const idField = DATASETS[options.dataset].idField;
  const copies = (token: Token | undefined) => {
    const held = new Map<Window, { entry: ManifestWindow; lines: Map<string, Line> }>();
    for (const month of months) {
      const part = heldPart(month, token);
      const entry = part && wholeEntry(manifest, part);
      const lines = entry && readWindowLines(run.out, entry, idField);
      if (entry && lines) held.set(month, { entry, lines });
    }
    return { held, whole: months.every((month) => held.has(month) || !heldPart(month, token)) };
  };
  // A token goes on where the folder holds its range's months (the range may have grown since: wider-range.ts in the service).
  const token = within(manifest.delta, run);
  const byToken = token && copies(token);
  const { held, whole } = byToken?.whole ? byToken : copies(undefined);
  const start: DeltaStart = byToken?.whole ? { kind: 'token', token: token!.token }
    : whole && manifest.watermark !== undefined && manifest.schema !== undefined ? { kind: 'since', since: manifest.watermark }
      : { kind: 'full' };
  run.observe({ kind: 'delta-start', start: start.kind, ...(start.kind === 'token' ? grownFrom(token!, run) : {}) });
  let walked;
  let restarted: string | undefined;
  try {
    walked = await walkDelta(run.context, options, start);
    // A copy of other columns cannot be merged into (a `since` is not bound to a view as a token is).
    if (start.kind !== 'full' && walked.schema !== manifest.schema) throw new DeltaRestart('SCHEMA_CHANGED', 'the columns your roles see are not the folder\'s');
  } catch (caught) {
    const error = caught instanceof SinceRefused ? new DeltaRestart('SINCE_REFUSED', caught.message) : caught;
    if (!(error instanceof DeltaRestart) || start.kind === 'full') throw error;
    restarted = error.code;
    run.observe({ kind: 'delta-restart', code: error.code, why: error.message, then: 'whole-range' });
    walked = await walkDelta(run.context, options, { kind: 'full' });
  }
  const used = restarted === undefined ? start.kind : 'full';
  const found = walked;
  const homes = homesOf(run, months, [...found.changed].map(([id, record]) => [id, String(record[dateField(run)] ?? '').slice(0, 10)]), found.requestIds.at(-1));
  // A token continues the copy: what the delta does not name stays; a `since` keeps what it names kept; from nothing, nothing stays.
  const keep = (id: string) => used !== 'full' && !found.removed.has(id) && !found.changed.has(id) && (found.kept === undefined || found.kept.has(id));
  const merged = new Map<Window, MergedWindow>();
  for (const month of months) {
    const copy = held.get(month);
    const label = fileLabel(month, isGrowing(month, run.now()));
    const rewrite = copy !== undefined && (!aloneIn(manifest, copy.entry, month) || copy.entry.files.some((file) => file.file !== dataFile(options.dataset, options.dataset, label, 'jsonl')));
    const result = mergeLines(run.out, options.dataset, label, copy?.lines, found, homes.get(month) ?? [], keep, rewrite);
    stage(run, result);
    merged.set(month, result);
  }
  commitMerged(run, months, used === 'full' ? 'pulled' : 'merged', merged, new Map([...held].map(([month, { entry }]) => [month, entry])), found);
  return { start: start.kind, merged: true, ...(restarted === undefined ? {} : { restarted }) };
}

async function parquetDelta(run: Run, months: readonly Window[]): Promise<DeltaUsed> {
  const { options, manifest } = run;
  const { dataset } = options;
  const idField = DATASETS[dataset].idField;
  // A token goes on where the folder holds its range's months (the range may have grown since: wider-range.ts in the service).
  const token = within(manifest.delta, run);
  if (!token) throw new NeedsPass(undefined, 'the folder has no delta token for this range');
  const tables = tablesOf(dataset, 'parquet');
  const notWhole = (part: Window) => new NeedsPass(undefined, `${windowLabel(part)} is not held whole by the folder`);
  const entries = months.map((month) => {
    const part = heldPart(month, token);
    const entry = part && wholeEntry(manifest, part);
    if (part && (!entry || entry.files.length !== tables.length)) throw notWhole(part);
    return entry;
  });
  // A month the token's range did not reach is written from the delta alone, in a held month's schema and footer.
  const template = entries.find((entry) => entry !== undefined);
  if (!template) throw new NeedsPass(undefined, 'the folder holds no month of the range');
  run.observe({ kind: 'delta-start', start: 'token', ...grownFrom(token, run) });
  // The delta is asked while the months' ids are read (checked against the manifest, then
  // decoded): the service's answer is what a run mostly waits for.
  const fetching = fetchDeltaFiles(run.context, options, token.token);
  // Handled where it is awaited below; marked handled now, as it may fail while the ids are read.
  fetching.catch(() => undefined);
  const held = new Map<Window, { entry: ManifestWindow; ids: Set<string> }>();
  try {
    for (const [index, month] of months.entries()) {
      const entry = entries[index];
      if (!entry) continue;
      const ids = await readWindowIds(run.out, entry, tables, idField);
      if (!ids) throw notWhole(heldPart(month, token)!);
      held.set(month, { entry, ids });
    }
  } catch (error) {
    // A file changed since its run, or gone: the answer is let go (its state unused) before the
    // run's other passes take the folder; one request more than reading first made, for a damaged folder only.
    await fetching.catch(() => undefined);
    throw error;
  }
  let files;
  try {
    files = await fetching;
  } catch (error) {
    if (error instanceof DeltaRestart || error instanceof DeltaTooLarge) throw restartedBy(run, error);
    throw error;
  }
  if (files.schema !== manifest.schema) throw restartedBy(run, new DeltaRestart('SCHEMA_CHANGED', 'the columns your roles see are not the folder\'s'));
  const delta = await readParquetDelta(files, idField, dateField(run));
  let homes: Map<Window, string[]>;
  try {
    homes = homesOf(run, months, [...delta.changed], files.requestId);
  } catch (error) {
    // A Parquet delta says an instant, not the stored text the service files a record by: one
    // stored with an offset may fall outside the range by UTC. The range goes by its ETags.
    if (error instanceof WindowFailure) throw restartedBy(run, new DeltaRestart('OUTSIDE_RANGE', error.message));
    throw error;
  }
  const named = (id: string) => delta.changed.has(id) || delta.removed.has(id);
  const merged = new Map<Window, MergedWindow>();
  for (const month of months) {
    const copy = held.get(month);
    const { entry, ids } = copy ?? { entry: template, ids: new Set<string>() };
    const mine = homes.get(month) ?? [];
    const label = fileLabel(month, isGrowing(month, run.now()));
    const names = tables.map((table) => dataFile(dataset, table, label, 'parquet'));
    // Written whatever changed: a month added, a file to be named for its days now, or a month sharing its days with another entry.
    const into = !copy || !aloneIn(manifest, entry, month) || entry.files.some((file, index) => file.file !== names[index]) ? { names, fresh: !copy, filters: windowFilters(run, month) } : undefined;
    if (!into && mine.length === 0 && ![...ids].some(named)) {
      merged.set(month, { same: true, files: [], rows: entry.rows, changed: 0, removed: 0 });
      continue;
    }
    try {
      const result = await mergeTables(run.out, entry, delta, mine, (id) => !named(id), idField, files.requestId, into);
      stage(run, result);
      merged.set(month, result);
    } catch (error) {
      if (error instanceof DeltaRestart) throw restartedBy(run, error);
      throw error;
    }
  }
  commitMerged(run, months, 'merged', merged, new Map([...held].map(([month, { entry }]) => [month, entry])), { ...files, requestIds: [files.requestId] });
  return { start: 'token', merged: true };
}

/** A Parquet delta that cannot be merged: said, and left to the run's other passes. */
function restartedBy(run: Run, error: DeltaRestart | DeltaTooLarge): NeedsPass {
  const code = error instanceof DeltaRestart ? error.code : 'DELTA_TOO_LARGE';
  run.observe({ kind: 'delta-restart', code, why: error.message, then: 'passes' });
  return new NeedsPass(code, error.message);
}

/**
 * A token for a Parquet folder its other passes pulled this run (docs/api.md: "A copy made without
 * a token"): one JSON delta started with `since`, the folder's watermark, answers what changed
 * since and the id of every other record of the view, and a token whose state is exactly those
 * records. The folder is made to hold exactly them: the months that hold a changed record, or that
 * a changed record's date names, are checked again by their ETags (`recheck`), and every record no
 * row names (gone since, or written after the token) is taken out of its month, which is written
 * again; the token is committed with them. A folder that holds a record its token does not know
 * would never learn that the record was removed. Undefined where the service offers no delta, the
 * call fails or a month cannot be checked again: the folder then keeps no token.
 */
export async function adoptToken(run: Run, months: readonly Window[], recheck: (windows: readonly Window[]) => Promise<boolean>): Promise<'adopted' | 'not-offered' | undefined> {
  const { options, manifest } = run;
  const idField = DATASETS[options.dataset].idField;
  const since = watermarkOf(manifest);
  if (since === undefined) return undefined;
  let walked;
  try {
    walked = await walkDelta(run.context, options, { kind: 'since', since });
  } catch (error) {
    if (error instanceof DeltaNotOffered) return 'not-offered';
    if (error instanceof WindowFailure || error instanceof SinceRefused || error instanceof DeltaRestart) return undefined;
    throw error;
  }
  const named = new Set([...walked.kept ?? [], ...walked.changed.keys()]);
  const homes = homesOf(run, months, [...walked.changed].map(([id, record]) => [id, String(record[dateField(run)] ?? '').slice(0, 10)] as const), walked.requestIds.at(-1));
  const heldIds = async () => {
    const held = new Map<Window, { entry: ManifestWindow; ids: Set<string> }>();
    for (const month of months) {
      const entry = wholeEntry(manifest, month);
      const ids = entry && await readWindowIds(run.out, entry, tablesOf(options.dataset, 'parquet'), idField);
      if (!entry || !ids) return undefined;
      held.set(month, { entry, ids });
    }
    return held;
  };
  let held = await heldIds();
  if (!held) return undefined;
  const again = months.filter((month) => homes.has(month) || [...held!.get(month)!.ids].some((id) => walked.changed.has(id)));
  if (again.length > 0) {
    if (!await recheck(again)) return undefined;
    held = await heldIds();
    if (!held) return undefined;
  }
  const merged = new Map<Window, MergedWindow>();
  for (const month of months) {
    const { entry, ids } = held.get(month)!;
    if ([...ids].every((id) => named.has(id))) {
      merged.set(month, { same: true, files: [], rows: entry.rows, changed: 0, removed: 0 });
      continue;
    }
    const result = await mergeTables(run.out, entry, NO_DELTA, [], (id) => named.has(id), idField, walked.requestIds.at(-1) ?? '');
    stage(run, result);
    merged.set(month, result);
  }
  commitMerged(run, months, 'merged', merged, new Map([...held].map(([month, { entry }]) => [month, entry])), { ...walked, schema: manifest.schema ?? walked.schema }, false);
  return 'adopted';
}

/** A delta that names nothing (a folder's months only filtered to a token's records). */
const NO_DELTA: ParquetDelta = { tables: [], removed: new Map(), changed: new Map() };

/** The range the folder's token was given for, where the run's is wider (said, as the days added come whole). */
function grownFrom(token: Token, run: Run): { grownFrom?: { from: string; to: string } } {
  return token.from === run.options.from && token.to === run.options.to ? {} : { grownFrom: { from: token.from, to: token.to } };
}

/** Files a merge wrote hidden are the run's to remove if it stops before they are committed. */
function stage(run: Run, result: MergedWindow): void {
  for (const { file, staged } of result.files) if (staged) run.staged.add(file.file);
}

/** The members a file of `month` is asked with, in a held file's footer (`summary.filters`): its date pair set to the month's days. */
function windowFilters(run: Run, month: Window): (held: string) => string {
  const pair = dateMembers(run.options.by);
  return (held) => {
    let members: unknown;
    try {
      members = JSON.parse(held);
    } catch {
      return held;
    }
    return members !== null && typeof members === 'object' && !Array.isArray(members) ? JSON.stringify({ ...members, [pair.from]: month.from, [pair.to]: month.to }) : held;
  };
}

/**
 * Commits the windows whose contents changed (their staged files) with the delta's token, at once;
 * the others learn the delta's time. `status`: what a changed window was (`merged`, or `pulled`
 * from a delta that started from nothing).
 */
function commitMerged(run: Run, months: readonly Window[], status: 'merged' | 'pulled', merged: ReadonlyMap<Window, MergedWindow>, held: ReadonlyMap<Window, ManifestWindow>, answered: Answered, all = true): void {
  const { manifest, options } = run;
  const finishedAt = new Date(run.now()).toISOString();
  const fresh: ManifestWindow[] = [];
  const staged: string[] = [];
  const outcomes = new Map<Window, WindowOutcome>();
  for (const month of months) {
    const result = merged.get(month)!;
    const old = held.get(month);
    if (result.same && old) {
      // Unchanged, the window holds every write before the delta's time (after a token's adoption
      // it keeps what its pass said: the run already told what it did with it).
      if (!all) continue;
      const { moving: _moving, etag, ...kept } = old;
      // Its days are the month's (a range made wider grows its last month: the same file, more days;
      // its footer names the days it was written for). A validator of other days validates nothing here.
      const grown = old.from !== month.from || old.to !== month.to;
      const entry = { ...kept, ...(grown || etag === undefined ? {} : { etag }), window: windowLabel(month), from: month.from, to: month.to, asOf: answered.asOf };
      manifest.windows = manifest.windows.map((listed) => (listed === old ? entry : listed));
      outcomes.set(month, { ...outcomeOf(entry, 'unchanged'), changed: 0, removed: 0 });
      continue;
    }
    for (const { file, staged: hidden } of result.files) {
      if (!hidden) continue;
      run.staged.add(file.file);
      staged.push(file.file);
    }
    const files = result.files.map(({ file }) => file);
    const entry: ManifestWindow = {
      window: windowLabel(month), from: month.from, to: month.to, status: 'done', asOf: answered.asOf,
      rows: result.rows, bytes: files.reduce((total, file) => total + file.bytes, 0), files, requestIds: answered.requestIds.slice(-1), finishedAt,
    };
    fresh.push(entry);
    outcomes.set(month, { ...outcomeOf(entry, status), changed: result.changed, removed: result.removed });
  }
  manifest.delta = { token: answered.token, from: options.from, to: options.to };
  run.schema = answered.schema;
  manifest.schema = answered.schema;
  if (fresh.length > 0) commit(run, (entry) => fresh.some((window) => overlaps(entry, window)), { kind: 'pulled', fresh, kept: [], staged });
  else save(run);
  for (const [month, outcome] of outcomes) {
    run.windows.set(month.from, { window: month, status: outcome.status === 'unchanged' ? 'unchanged' : 'pulled', outcomes: [outcome], failures: [] });
  }
}
