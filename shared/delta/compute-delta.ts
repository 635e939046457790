/**
 * A delta of one view: what changed in it since a state, and what left it (docs/decisions.md,
 * "The delta feed"). Changes are the view's records written since the state's time; removals are
 * found by counts: where the view now holds fewer records in a part of its key range than the
 * state's unchanged records plus the changed ones there, the part is halved and counted again down
 * to a handful of records, whose ids alone are read; a missing one is gone (deleted) or changed out
 * of the view, which one its store write time tells.
 */
import type { RemovalReason } from '../model/delta-operations.js';
import type { SummaryQuery } from '../model/summary-query.js';
import type { Scope, StoredRecord } from '../model/view.js';
import { QUIET_SECONDS } from '../output/result-etag.js';
import { DELTA_KEY_MEMBER } from '../store/build-sql.js';
import type { DeltaReads, StoreMeter } from '../store/record-store.js';
import { compareKeys, valuesHash, type DeltaEntry, type DeltaState } from './delta-state.js';

export interface Removal {
  readonly id: string;
  readonly reason: RemovalReason;
}

export interface Delta {
  /** The view's records created or changed since the state, in their current version, in no particular order. */
  readonly changed: readonly StoredRecord[];
  readonly removed: readonly Removal[];
  /** The state this delta leaves the caller in: the next token's. */
  readonly next: DeltaState;
}

/**
 * Parts of the key range holding at most this many records are read by id rather than halved
 * again: each halving costs an aggregate, each record of a leaf an id-only read (measured on
 * 100,000 records with 10 deletions: 106 aggregates at 16, and 24 fewer at 64 for ~500 more ids).
 */
export const LEAF_RECORDS = 64;

/** Leaves whose ids are read in one query. */
const LEAVES_PER_READ = 50;

/** Counts in flight at once while removals are searched for: a mass removal must not flood the store. */
const COUNTS_IN_FLIGHT = 4;

/** Ids confirmed gone or moved per query. */
const CONFIRM_BATCH = 200;

/** What a delta is computed over: the view's reads, the caller's scope and query, its key field. */
export interface DeltaInput {
  readonly reads: DeltaReads;
  readonly scope: Scope;
  readonly query: SummaryQuery;
  /** The field whose text ranges the counts are narrowed by (a record's creation time). */
  readonly keyField: string;
  readonly state: DeltaState;
  /** Parts of the query whose records are read whatever their write time (the days a wider range adds to a token's: wider-range.ts). */
  readonly whole?: readonly SummaryQuery[];
  /** The service's clock, ms since the epoch, when the delta begins. */
  readonly now: number;
  /**
   * What the caller is given of a changed record (record-cleaner.ts: exactly its fields), or
   * undefined when it is left out (a malformed required value): such a record is kept in the state
   * as not given, so it is counted where it is and never said to be removed. Absent: as read.
   */
  readonly give?: (record: StoredRecord) => StoredRecord | undefined;
  /** Stops the delta between store reads (the caller went away, or its deadline passed): it throws the signal's reason. */
  readonly signal?: AbortSignal;
  readonly meter?: StoreMeter;
}

interface Expected {
  readonly id: string;
  readonly key: string | undefined;
  /** A record the caller was given before this delta (only those can be removed). */
  readonly given: boolean;
}

export async function computeDelta(input: DeltaInput): Promise<Delta> {
  const { reads, scope, query, keyField, state, meter, signal } = input;
  const idField = query.resource.idField;
  const give = input.give ?? ((record: StoredRecord) => record);
  // The next delta reads from before this one began, by the quiet margin: the store stamps writes
  // by its own clock in whole seconds. What it reads again that the caller has is not sent again.
  const since = Math.max(0, Math.floor(input.now / 1000) - QUIET_SECONDS);
  const seen = new Map<string, DeltaEntry>();
  const changed = new Map<string, StoredRecord>();
  // Given before, now left out of what is answered (a required value turned malformed): the
  // caller's version is no longer in its view as answered, so it is removed, and not given from now on.
  const leftOut = new Map<string, Removal>();
  const reading = [{ part: query, since: state.since }, ...(input.whole ?? []).map((part) => ({ part, since: 0 }))];
  for (const { part, since: from } of reading) {
    for await (const rows of reads.changed(scope, part, from, keyField, meter, signal)) {
      signal?.throwIfAborted();
      for (const row of rows) {
        const { [DELTA_KEY_MEMBER]: key, ...record } = row;
        const id = String(record[idField]);
        const given = give(record);
        const before = state.records.get(id);
        const entry: DeltaEntry = { key: typeof key === 'string' ? key : undefined, hash: given === undefined ? undefined : valuesHash(record) };
        seen.set(id, entry);
        // The last copy read decides, should the store hand a record over twice.
        changed.delete(id);
        leftOut.delete(id);
        if (given !== undefined && before?.hash !== entry.hash) changed.set(id, given);
        else if (given === undefined && before?.hash !== undefined) leftOut.set(id, { id, reason: 'leftView' });
      }
    }
  }
  const expected: Expected[] = [];
  for (const [id, entry] of state.records) if (!seen.has(id)) expected.push({ id, key: entry.key, given: entry.hash !== undefined });
  for (const [id, entry] of seen) expected.push({ id, key: entry.key, given: entry.hash !== undefined && state.records.get(id)?.hash !== undefined });
  const missing = await findMissing(input, expected);
  const removed: Removal[] = [...leftOut.values()];
  const gone: string[] = [];
  for (let at = 0; at < missing.length; at += CONFIRM_BATCH) {
    signal?.throwIfAborted();
    const batch = missing.slice(at, at + CONFIRM_BATCH);
    // Gone; or changed out of the view. One that moved within the view after the changes were
    // read is in it still: the next delta reads it as changed.
    const present = new Set((await reads.keys(scope, query, { ids: batch.map((entry) => entry.id) }, keyField, meter, signal)).map((found) => found.id));
    const absent = batch.filter((entry) => !present.has(entry.id));
    const written = await reads.writtenAt(scope, query, absent.filter((entry) => entry.given).map((entry) => entry.id), meter);
    for (const entry of absent) {
      gone.push(entry.id);
      // A record never given goes from the state without a word: the caller never had it.
      if (entry.given && !leftOut.has(entry.id)) removed.push({ id: entry.id, reason: written.has(entry.id) ? 'leftView' : 'deleted' });
    }
  }
  // What was read, then what is gone. A record changed (or created) and then removed during this
  // delta is not sent: the caller hears of it once, as removed if it had it before, not at all if
  // it never had it (a loader that merges a delta's rows by id in no set order cannot then keep a
  // record the delta also removes). It is not in the next state: sent again if it comes back.
  const records = new Map(state.records);
  for (const [id, entry] of seen) records.set(id, entry);
  for (const id of gone) {
    records.delete(id);
    changed.delete(id);
  }
  return { changed: [...changed.values()], removed, next: { since, records } };
}

/**
 * The records of the state and of the changes the view no longer holds, found by counts narrowed down the key range:
 * a part that holds fewer records than expected is halved (its left half counted, the right half
 * the rest) until it holds a handful, or most of it is missing (a mass removal), whose ids are
 * then read.
 */
async function findMissing(input: DeltaInput, expected: readonly Expected[]): Promise<Expected[]> {
  const { reads, scope, query, keyField, meter, signal } = input;
  // Sorted by key, a part of the key range is a run of this array, and the left half of a split a
  // run's prefix. (A kept state is in key order, so this sort finds it nearly sorted.)
  const keyed = expected.filter((entry) => entry.key !== undefined).sort((a, b) => compareKeys(a.key!, b.key!));
  // Records whose key is no text are in no key range: checked one by one (a malformed few), once
  // the view's whole count says that anything is missing at all.
  const unkeyed = expected.filter((entry) => entry.key === undefined);
  if (unkeyed.length > 0 && await reads.count(scope, query, {}, meter) >= expected.length) return [];
  const missing = [...unkeyed];
  const narrowed = (from: string | undefined, before: string | undefined) => ({ key: { field: keyField, ...(from === undefined ? {} : { from }), ...(before === undefined ? {} : { before }) } });
  const limit = inFlight(COUNTS_IN_FLIGHT);
  const count = (from: string | undefined, before: string | undefined) => limit(() => {
    signal?.throwIfAborted();
    return reads.count(scope, query, narrowed(from, before), meter);
  });
  // Parts whose ids are read, once the search has found them all: a few queries for every leaf.
  const leaves: { readonly start: number; readonly end: number; readonly from?: string; readonly before?: string }[] = [];
  /** The part `keyed[start, end)`, whose key range `[from, before)` holds `actual` records now. */
  const search = async (start: number, end: number, from: string | undefined, before: string | undefined, actual: number): Promise<void> => {
    const size = end - start;
    if (actual >= size) return;
    const split = keyed[start + (size >> 1)]!.key!;
    // A handful, most of them missing, or all of one key: the part's ids are read (as many documents as it holds now).
    if (size <= LEAF_RECORDS || (size - actual) * 4 >= size || split === keyed[start]!.key) {
      leaves.push({ start, end, ...(from === undefined ? {} : { from }), ...(before === undefined ? {} : { before }) });
      return;
    }
    const middle = firstAtOrAfter(keyed, start, end, split);
    // One count a split: the right half holds what the part holds less the left half.
    const leftCount = await count(from, split);
    await Promise.all([search(start, middle, from, split, leftCount), search(middle, end, split, before, actual - leftCount)]);
  };
  // The whole key range as a range (every text is at or after ''): a store serves it from its index of the path.
  await search(0, keyed.length, undefined, undefined, await count('', undefined));
  for (let at = 0; at < leaves.length; at += LEAVES_PER_READ) {
    signal?.throwIfAborted();
    const batch = leaves.slice(at, at + LEAVES_PER_READ);
    const ranges = batch.map(({ from, before }) => ({ ...(from === undefined ? {} : { from }), ...(before === undefined ? {} : { before }) }));
    const present = new Set((await reads.keys(scope, query, { keyRanges: { field: keyField, ranges } }, keyField, meter, signal)).map((found) => found.id));
    for (const { start, end } of batch) for (let index = start; index < end; index++) if (!present.has(keyed[index]!.id)) missing.push(keyed[index]!);
  }
  return missing;
}

/** The first index in `sorted[start, end)` whose key is at or after `key` (`end` if none). */
function firstAtOrAfter(sorted: readonly Expected[], start: number, end: number, key: string): number {
  let low = start;
  let high = end;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle]!.key! < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Runs at most `size` of the tasks given to it at once, the others in turn. */
function inFlight(size: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
