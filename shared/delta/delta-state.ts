/**
 * What a delta token stands for (docs/decisions.md, "The delta feed"): every record the caller was
 * given, by id, with its key field's stored text (where its record sits in the result's range) and
 * a hash of the values it was given; and the store time the next delta reads changes from. A state
 * is never changed: the next delta makes the next state, so a token asked again answers again.
 */
import { createHash } from 'node:crypto';

/** A record of the view as the caller's last delta found it. */
export interface DeltaEntry {
  /** Its key field's stored text when it was given (undefined: not a text, found by no key range). */
  readonly key: string | undefined;
  /** A hash of the values it was given: the same again is not sent again. Undefined: in the view, but left out of what the caller was given (a malformed required value), so never said to be removed. */
  readonly hash: string | undefined;
}

export interface DeltaState {
  /** The store time (`_ts`, whole seconds) the next delta reads writes from, at or after. */
  readonly since: number;
  /** Every record the caller holds, by id. */
  readonly records: ReadonlyMap<string, DeltaEntry>;
}

/**
 * The hash of a record given in a copy made without the feed (a delta started with `since`): its
 * values are not known, so its next change is sent whatever it holds. No values hash to it.
 */
export const UNKNOWN_VALUES = '';

/** Before the first read: nothing given, every write of the store's life to read. */
export const EMPTY_STATE: DeltaState = Object.freeze({ since: 0, records: new Map<string, DeltaEntry>() });

/** The hash of the values a caller is given of a record (as the store read them, in the view's order). */
export function valuesHash(record: Readonly<Record<string, unknown>>): string {
  return createHash('sha256').update(JSON.stringify(record)).digest('base64url').slice(0, 22);
}

/** Keys in order, as the store's counts compare texts (`>=`, `<`): what a part of the key range is. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
