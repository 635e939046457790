import type { SummaryQuery } from '../model/summary-query.js';
import type { Scope, StoredRecord } from '../model/view.js';
import type { Narrowing } from './build-sql.js';

/** Records per store round trip of an export (one page of `stream`): bounds what is held before encoding. */
export const STREAM_PAGE_SIZE = 1000;

/**
 * Records per store round trip of the delta feed's read of what changed: it holds them all anyway,
 * and a store that resumes a query by reading it again up to the continuation (the embedded one)
 * read a whole view of 100,000 in 100 round trips in 51 s, in 10 in 14 s.
 */
export const CHANGED_PAGE_SIZE = 10_000;

/** Which part of a result to read: `take` records after `skip`, from the start or from a continuation. */
export interface PageRequest {
  readonly skip: number;
  readonly take: number;
  /** Where an earlier read stopped (a store continuation token); absent: from the first record. */
  readonly continuation?: string;
}

/** The records of one page, and where the read stopped, if the result goes on. */
export interface StorePage {
  readonly records: StoredRecord[];
  /** Continues exactly after the last record read; absent when nothing follows. Never leaves the server. */
  readonly continuation?: string;
}

/**
 * What reads cost, measured at the seam: documents the store handed to the function and the
 * request charge the store reported (RUs on Cosmos; 0 where the server reports none).
 */
export interface StoreMeter {
  documents: number;
  requestCharge: number;
}

/**
 * What aggregates over a result tell of its state, without reading a record document: how many
 * records match, and the latest store write time among them (Cosmos `_ts`, whole seconds). Once a
 * version is taken with every matching write older than its second, any later create, update
 * (whatever the writer did to its own date fields) or record moving into the result raises
 * `latestWrite`, and a delete or a record moving out alone lowers `records` (result-etag.ts tells
 * the versions taken too close to a write apart: docs/store.md, "Validators").
 */
export interface ResultVersion {
  readonly records: number;
  /** The latest write time of a matching record, in seconds since the epoch (0 for none). */
  readonly latestWrite: number;
}

/** A version, and when it was taken (ms since the epoch, the service's clock, before its aggregate): what an ETag was worked out from. */
export interface TakenVersion extends ResultVersion {
  readonly takenAt: number;
}

/** The version of a result that matches nothing. */
export const EMPTY_VERSION: ResultVersion = Object.freeze({ records: 0, latestWrite: 0 });

/**
 * The data access seam. Implementations must scope every read to `scope.tenant`, apply every
 * filter of the query, hide Drafts unless `scope.view.drafts`, select only the view's fields and
 * order by `query.orderBy`/`query.order` with ties broken by id. Faults are thrown as `ApiError`
 * STORE_UNAVAILABLE (503), never as partial results. Every read adds what it cost to `meter`.
 */
export interface RecordStore {
  /** How many records match, and the state of the result (aggregates only; no record document is read). */
  version(scope: Scope, query: SummaryQuery, meter?: StoreMeter): Promise<ResultVersion>;
  /**
   * The matching records from position `skip` (0-based, counted from the continuation when one is
   * given), at most `take` of them, in order, reading exactly `skip + take` documents (fewer at the
   * end of the result), and the continuation right after them.
   */
  page(scope: Scope, query: SummaryQuery, request: PageRequest, meter?: StoreMeter): Promise<StorePage>;
  /**
   * Every matching record, in order, read page by page as the consumer pulls (for exports): each
   * item is the records of one store round trip, so a consumer awaits once per page, not once
   * per record. Stopping the iteration stops reading the store.
   */
  stream(scope: Scope, query: SummaryQuery, meter?: StoreMeter): AsyncIterable<readonly StoredRecord[]>;
}

/** A record of a narrowed result: its id (the resource's id field) and its key field's stored value. */
export interface KeyedId {
  readonly id: string;
  readonly key: unknown;
}

/**
 * The delta feed's reads (shared/delta, docs/decisions.md "The delta feed"): the record store's
 * reads of a view, narrowed to what was written since a store time and to a part of the key
 * field's range, of the records whose id field is a text (the feed knows a record by it). The
 * same rules as RecordStore: tenant, filters, Drafts, visible fields, faults.
 */
export interface DeltaReads {
  /** The view's records written at or after `since` (`_ts`), as `stream` reads them but in no particular order, each with its `keyField`'s stored value (build-sql.ts DELTA_KEY_MEMBER). */
  changed(scope: Scope, query: SummaryQuery, since: number, keyField: string, meter?: StoreMeter, signal?: AbortSignal): AsyncIterable<readonly StoredRecord[]>;
  /** How many of the view's records are in the narrowing (aggregates only: no document is read). */
  count(scope: Scope, query: SummaryQuery, narrowing: Narrowing, meter?: StoreMeter): Promise<number>;
  /** The ids and `keyField` values of the view's records in the narrowing: each one read counts as a document. `signal` stops the read (as it stops `changed`). */
  keys(scope: Scope, query: SummaryQuery, narrowing: Narrowing, keyField: string, meter?: StoreMeter, signal?: AbortSignal): Promise<KeyedId[]>;
  /** The store write times (`_ts`) of the tenant's records of these ids that exist, in any view, by id: one document each. */
  writtenAt(scope: Scope, query: SummaryQuery, ids: readonly string[], meter?: StoreMeter): Promise<ReadonlyMap<string, number>>;
}
