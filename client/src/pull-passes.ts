/**
 * The passes of a pull run over its windows (pull.ts runs them): the update (every window checked
 * by its ETag, what changed pulled again and committed window by window) and the rewrite (every
 * window pulled hidden, committed at once, when the columns changed). A pass that meets another
 * schema returns SCHEMA_CHANGED. A pass takes each window's answer from its WindowSource: the
 * service, window by window (serviceSource), or an export job's files (job-pass.ts), chosen once.
 */
import { fetchWindow, Unreachable, WindowFailure } from './fetch-window.js';
import { type ManifestWindow } from './manifest.js';
import { overlaps, type Unit } from './plan.js';
import { failedEntry, type Rewrite } from './pull-summary.js';
import { fileLabel, halves, isGrowing, windowLabel, type Window } from './windows.js';
import { commit, discardStaged, expectSchema, record, recordFailure, SCHEMA_CHANGED, type Pulled, type Run, type SchemaChanged, type Unchanged } from './run-state.js';

/** A window's answer, as a pass takes it. */
export type Answer = Pulled | Unchanged | SchemaChanged;

/** Where a pass's answers come from: the service window by window, an export job, (next) a delta. */
export interface WindowSource {
  /** A window checked by the ETags the folder holds, what changed pulled hidden. */
  update(unit: Unit): Promise<Answer>;
  /** A window pulled whole, hidden (a rewrite: nothing may be unchanged). */
  whole(unit: Unit): Promise<Answer>;
  /** Ends what the source still has running and removes the files no pass took. */
  close(): Promise<void>;
}

/** The service, window by window: one conditional request per window or part (fetch-window.ts). */
export function serviceSource(run: Run): WindowSource {
  return {
    update: (unit) => updateUnit(run, unit),
    whole: (unit) => pullWhole(run, unit.window, undefined),
    close: async () => {},
  };
}


/** Checks every window of `units`, pulls again what changed and commits it window by window. */
export async function updateFolder(run: Run, units: readonly Unit[], source: WindowSource): Promise<SchemaChanged | undefined> {
  for (const [index, unit] of units.entries()) {
    run.observe({ kind: 'window-start', window: unit.window, index, count: units.length });
    let answer: Answer;
    try {
      answer = await source.update(unit);
    } catch (error) {
      discardStaged(run);
      if (!(error instanceof WindowFailure)) throw error;
      recordFailure(run, unit.window, error);
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
async function updateUnit(run: Run, unit: Unit): Promise<Answer> {
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
async function pullWhole(run: Run, window: Window, held: ManifestWindow | undefined): Promise<Answer> {
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
export async function rewriteFolder(run: Run, units: readonly Unit[], why: Rewrite, source: WindowSource): Promise<SchemaChanged | undefined> {
  run.schema = undefined;
  run.observe({ kind: 'rewrite', why });
  const all: Pulled = { kind: 'pulled', fresh: [], kept: [], staged: [] };
  for (const [index, unit] of units.entries()) {
    run.observe({ kind: 'window-start', window: unit.window, index, count: units.length });
    let answer: Answer;
    try {
      answer = await source.whole(unit);
    } catch (error) {
      discardStaged(run);
      if (!(error instanceof WindowFailure)) throw error;
      const entry = recordFailure(run, unit.window, error, false);
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

