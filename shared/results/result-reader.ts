/**
 * A result, read: the one place that takes the result's version and ETag, holds it against the
 * caller's precondition, decides "matches nothing", takes a walk's cursor shortcut, holds an
 * export's slot and deadline, reads the store and meters it. It speaks no HTTP: what it read comes
 * back as an outcome (records, unchanged, busy, …), and each consumer answers the outcome its own
 * way — the HTTP stages as status codes and problems (../http/output-stages/), an export job's
 * window as its recorded outcome (../exports/run-window.ts), a kick-off as the windows it queues.
 */
import type { Format } from '../model/operation-contract.js';
import type { SummaryQuery } from '../model/summary-query.js';
import type { Scope, StoredRecord } from '../model/view.js';
import type { CursorFailureReport, GuardedCursors } from '../cursors/guarded-cursors.js';
import { pageCursorKey } from '../cursors/page-cursors.js';
import { EMPTY_VERSION, type RecordStore, type StoreMeter, type StorePage } from '../store/record-store.js';
import { jumpTo } from '../output/pagination.js';
import { matchesIfNoneMatch, type IfNoneMatch } from './if-none-match.js';
import type { ResultDeps } from './result-deps.js';
import { validateResult, type ValidatedResult } from './result-validator.js';

/** What a result is read from and for: whose it is, which query, in which format, under which precondition. */
export interface ResultInput {
  readonly scope: Scope;
  readonly query: SummaryQuery;
  /** The format the result is answered in: part of its ETag. */
  readonly format: Format;
  /** The fingerprint of the view's columns in that format (X-Summary-Schema, part of every ETag). */
  readonly schemaTag: string;
  readonly requestId: string;
  /** The calling client application: page cursors and export slots are per client. */
  readonly clientId: string;
  /** The caller's If-None-Match: while the result still has one of those ETags, the outcome is `unchanged`. */
  readonly precondition?: IfNoneMatch | undefined;
  /** What the store reads cost: every read adds to it (failures included). */
  readonly meter: StoreMeter;
  /** Fires when the caller has gone: an export stops reading and frees its slot. */
  readonly callerGone?: AbortSignal | undefined;
  readonly deps: ResultDeps;
}

/** The validators an answer carries: the result's ETag and the time it reflects (absent from a cursor of an earlier deploy). */
export interface ResultValidators {
  readonly etag: string;
  readonly asOf?: string | undefined;
}

/** The caller's precondition holds: the result is as its ETag says, and no record was read. */
export interface Unchanged {
  readonly kind: 'unchanged';
  readonly validators: ValidatedResult;
}

/** One page of a result, read. */
export interface PageRead {
  readonly kind: 'page';
  readonly validators: ResultValidators;
  /** The result's count: the walk's (from its cursor), or the version's. */
  readonly totalRecords: number;
  /** The page's stored records, as the store returned them (not cleaned yet). */
  readonly records: readonly StoredRecord[];
  /** The next page's cursor was stored: a walk can go on from it. */
  readonly nextReachable: boolean;
}

/** A page past the records a jump may reach (MAX_RESULT_WINDOW): only a walk gets there. */
export interface BeyondWindow {
  readonly kind: 'beyondWindow';
  readonly resultWindow: number;
}

/** A page of the result, or why there is none. */
export type PageOutcome = PageRead | Unchanged | BeyondWindow;

/** The result has changed since the caller's ETag (or none was sent). */
export interface Changed {
  readonly kind: 'changed';
  readonly validators: ValidatedResult;
}

/** The whole result, rendered. */
export interface Rendered<T> {
  readonly kind: 'records';
  readonly validators: ValidatedResult;
  readonly rendered: T;
}

/** No export slot now: try again after `retryAfterSeconds`; nothing was read. */
export interface Busy {
  readonly kind: 'busy';
  readonly retryAfterSeconds: number;
}

/** The export did not finish within its deadline: the store is too slow for this result now. */
export interface OverDeadline {
  readonly kind: 'overDeadline';
  readonly deadlineMs: number;
}

/** The caller went away: the export stopped (or never started) and nobody is answered. */
export interface Gone {
  readonly kind: 'gone';
}

/** The whole result, or why it was not rendered. */
export type WholeOutcome<T> = Rendered<T> | Unchanged | Busy | OverDeadline | Gone;

/**
 * When a consumer refused an export slot tries again: a request is told to retry after
 * `request` seconds; an export job's window comes back after `background` (no worker waits for it).
 */
export const BUSY_RETRY_SECONDS = Object.freeze({ request: 10, background: 5 });

export interface ResultReader {
  /**
   * One page, at the cost of one page when the caller walks in order: from the cursor the previous
   * page left (exactly `pageSize` documents from its continuation; the walk's total and ETag from
   * the cursor), else the result's version and the first `skip + take` documents (bounded by
   * MAX_RESULT_WINDOW); with a precondition never from a cursor. Then a cursor for the next page.
   * A page that may not be jumped to is `beyondWindow` whatever the precondition (RFC 9110 §13.2.1:
   * a request that is bad for another reason is answered that first).
   */
  page(): Promise<PageOutcome>;
  /** The result's validators and whether the precondition holds: one aggregate, no export slot, no record read. */
  check(): Promise<Changed | Unchanged>;
  /**
   * The whole result, handed to `render` page by page as the store streams it, within an export
   * slot and `deadlineMs` (`render`'s signal fires when the caller has gone or the deadline
   * passed). `unchanged` before a slot is taken when the precondition holds. A slot is waited for
   * as a request waits, unless the consumer answers no caller (`background`: an export job's
   * window, which never waits and is refused a slot a request may need: export-slots.ts).
   */
  whole<T>(render: (records: AsyncIterable<readonly StoredRecord[]>, signal: AbortSignal) => Promise<T>, options: { readonly deadlineMs: number; readonly background?: boolean }): Promise<WholeOutcome<T>>;
}

/** The result of a query that matches nothing the caller may see: no store is asked. */
const NOTHING: Pick<RecordStore, 'version' | 'page' | 'stream'> = {
  version: async () => EMPTY_VERSION,
  page: async () => ({ records: [], continuation: undefined }),
  stream: async function* nothing() {},
};

/** No cursors for a result of nothing: a walk of it has no second page. */
const NO_CURSORS: GuardedCursors = { get: async () => undefined, put: async () => false };

/**
 * The reader of one result: what every consumer of results (a JSON page, a Parquet export, an
 * export job's window, a kick-off's check) asks, so that none of them takes a version, a slot or
 * a store read itself.
 *
 * @example
 * const read = await readResult(input).whole((records, signal) => exportParquet(records, plan, { ...options, signal }), { deadlineMs });
 * if (read.kind === 'records') return read.rendered;
 */
export function readResult(input: ResultInput): ResultReader {
  const { scope, query, requestId, clientId, deps, meter, precondition, callerGone } = input;
  // Decided once: a query that matches nothing reads no store and no cursor.
  const empty = query.matchesNothing;
  const source = empty ? NOTHING : deps.store;
  // A failing cursor store only costs the walk its shortcut; each failure is logged here (the
  // guard, made with the deps, counts it).
  const cursors = empty ? NO_CURSORS : deps.pageCursors;
  const report: CursorFailureReport = (call, reason, error) => {
    deps.log.warning(requestId, `page cursor ${call} failed (${reason})${error instanceof Error ? `: ${error.name}` : ''}; the page is read without it`);
  };
  const validate = () => validateResult(input, source, { clock: deps.clock, meter, requestId });
  const holds = (validated: ValidatedResult) => precondition !== undefined && matchesIfNoneMatch(precondition, validated.etag);
  return {
    async page() {
      const { page, pageSize } = query;
      const keyOf = (target: number) => pageCursorKey(scope, clientId, query, target);
      // A walk's total and ETag come with its cursor (the result as its first page found it). A
      // read with a precondition is about the result as it is now: checked, and if changed, read without one.
      const cursor = page > 1 && !precondition ? await cursors.get(scope.tenant, keyOf(page), report) : undefined;
      let validators: ResultValidators;
      let totalRecords: number;
      let read: StorePage | undefined;
      if (cursor) {
        validators = { etag: cursor.etag, asOf: cursor.asOf };
        totalRecords = cursor.totalRecords;
        read = await source.page(scope, query, { skip: 0, take: pageSize, continuation: cursor.continuation }, meter);
      } else {
        const validated = await validate();
        validators = validated;
        totalRecords = validated.records;
        const resultWindow = deps.config.maxResultWindow;
        const jump = jumpTo(page, pageSize, totalRecords, resultWindow);
        if (jump && !jump.withinWindow) return { kind: 'beyondWindow', resultWindow };
        if (holds(validated)) return { kind: 'unchanged', validators: validated };
        if (jump) read = await source.page(scope, query, { skip: jump.skip, take: jump.take }, meter);
      }
      const continuation = read?.continuation;
      const nextReachable = Boolean(continuation) && page * pageSize < totalRecords
        && await cursors.put(scope.tenant, keyOf(page + 1), { continuation: continuation!, totalRecords, etag: validators.etag, ...(validators.asOf === undefined ? {} : { asOf: validators.asOf }) }, report);
      return { kind: 'page', validators, totalRecords, records: read?.records ?? [], nextReachable };
    },

    async check() {
      const validators = await validate();
      return { kind: holds(validators) ? 'unchanged' : 'changed', validators };
    },

    async whole(render, { deadlineMs, background = false }) {
      const busy: Busy = { kind: 'busy', retryAfterSeconds: background ? BUSY_RETRY_SECONDS.background : BUSY_RETRY_SECONDS.request };
      const slot = () => deps.exportSlots.acquire({ clientId, tenant: scope.tenant, background });
      // A request checks first: one that holds costs one aggregate and no slot. A background
      // export, which never waits, asks for its slot first: one refused (and tried again later)
      // costs no store read.
      const early = background ? await slot() : undefined;
      if (background && !early) return busy;
      let validated: ValidatedResult;
      try {
        validated = await validate();
      } catch (error) {
        early?.();
        throw error;
      }
      // Unchanged, or gone while the version was taken: no slot, no store read for nobody.
      const unchanged = holds(validated);
      if (unchanged || callerGone?.aborted) {
        early?.();
        return unchanged ? { kind: 'unchanged', validators: validated } : { kind: 'gone' };
      }
      const release = early ?? await slot();
      if (!release) return busy;
      // The export stops reading the store when its caller has gone, or at its deadline (every host).
      const deadline = AbortSignal.timeout(deadlineMs);
      const stop = callerGone ? AbortSignal.any([callerGone, deadline]) : deadline;
      try {
        return { kind: 'records', validators: validated, rendered: await render(source.stream(scope, query, meter), stop) };
      } catch (error) {
        if (stop.aborted && callerGone?.aborted) return { kind: 'gone' };
        if (stop.aborted) return { kind: 'overDeadline', deadlineMs };
        throw error;
      } finally {
        release();
      }
    },
  };
}
