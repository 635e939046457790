/**
 * A request's result, read: the one place that takes the result's version and ETag, answers the
 * 412, decides "matches nothing", takes a walk's cursor shortcut, holds an export's slot and
 * deadline, reads the store and meters it. The renderers (respond-json.ts, respond-parquet.ts)
 * only turn the records it hands them into an answer; a third consumer (a background export, a
 * new format) reads through the same reader and renders with a renderer of its own.
 */
import { ApiError } from '../../errors/api-error.js';
import type { StoredRecord } from '../../model/view.js';
import type { CursorFailureReport, GuardedCursors } from '../../cursors/guarded-cursors.js';
import { pageCursorKey } from '../../cursors/page-cursors.js';
import { EMPTY_VERSION, type RecordStore, type StorePage } from '../../store/record-store.js';
import { jumpTo } from '../../output/pagination.js';
import { CallerGone, EXPORT_DEADLINE_MS } from '../caller-gone.js';
import type { OutputStageInput } from './output-stage.js';
import { unchangedError, validateResult, type ValidatedResult } from './result-validator.js';

/** The validators an answer carries: the result's ETag and the time it reflects (absent from a cursor of an earlier deploy). */
export interface ResultValidators {
  readonly etag: string;
  readonly asOf?: string | undefined;
}

/** One page of a result, read. */
export interface PageRead {
  readonly validators: ResultValidators;
  /** The result's count: the walk's (from its cursor), or the version's. */
  readonly totalRecords: number;
  /** The page's stored records, as the store returned them (not cleaned yet). */
  readonly records: readonly StoredRecord[];
  /** The next page's cursor was stored: a walk can go on from it. */
  readonly nextReachable: boolean;
}

export interface ResultReader {
  /**
   * One page, at the cost of one page when the caller walks in order: from the cursor the previous
   * page left (exactly `pageSize` documents from its continuation; the walk's total and ETag from
   * the cursor), else the result's version and the first `skip + take` documents (bounded by
   * MAX_RESULT_WINDOW: 400 past it); with an If-None-Match never from a cursor, and 412 once the
   * request is otherwise valid. Then a cursor for the next page.
   */
  page(): Promise<PageRead>;
  /**
   * The export's validators and whether the request's precondition holds (`unchanged`): one
   * aggregate, no export slot, no record read. What `whole` checks first.
   */
  check(): Promise<ValidatedResult>;
  /**
   * The whole result, handed to `render` page by page as the store streams it, within the
   * export's slot and deadline (`render`'s signal fires when the caller has gone or the deadline
   * passed). 412 before a slot is taken when If-None-Match holds. The deadline is the platform's
   * (EXPORT_DEADLINE_MS) unless a consumer gives its own, and a slot is waited for as a request
   * waits, unless the consumer answers no HTTP caller (`background`: an export job's window, which
   * never waits and is refused a slot a request may need: export-slots.ts).
   */
  whole<T>(render: (records: AsyncIterable<readonly StoredRecord[]>, signal: AbortSignal) => Promise<T>, options?: { readonly deadlineMs?: number; readonly background?: boolean }): Promise<{ readonly validators: ValidatedResult; readonly rendered: T }>;
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
 * The reader of one request's result: what every consumer of results (a JSON page, a Parquet
 * export, a third format) asks, so that none of them takes a version, a slot or a store read itself.
 *
 * @example
 * const reader = resultReader(input);
 * const { validators, rendered } = await reader.whole((records, signal) => exportParquet(records, plan, { ...options, signal }));
 */
export function resultReader(input: OutputStageInput): ResultReader {
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
  const validate = (format: 'json' | 'parquet') => validateResult(input, format, source);
  return {
    async page() {
      const { page, pageSize } = query;
      const keyOf = (target: number) => pageCursorKey(scope, clientId, query, target);
      // A walk's total and ETag come with its cursor (the result as its first page found it). A
      // request with a precondition is about the result as it is now: checked, and if changed, read without one.
      const cursor = page > 1 && !precondition ? await cursors.get(scope.tenant, keyOf(page), report) : undefined;
      let validators: ResultValidators;
      let totalRecords: number;
      let read: StorePage | undefined;
      if (cursor) {
        validators = { etag: cursor.etag, asOf: cursor.asOf };
        totalRecords = cursor.totalRecords;
        read = await source.page(scope, query, { skip: 0, take: pageSize, continuation: cursor.continuation }, meter);
      } else {
        const validated = await validate('json');
        validators = validated;
        totalRecords = validated.records;
        const resultWindow = deps.config.maxResultWindow;
        const jump = jumpTo(page, pageSize, totalRecords, resultWindow);
        // A page the request may not jump to is its 400 first, If-None-Match or not (RFC 9110 §13.2.1).
        if (jump && !jump.withinWindow) throw windowExceeded(resultWindow);
        if (validated.unchanged) throw unchangedError(validated, input.schemaTags.json);
        if (jump) read = await source.page(scope, query, { skip: jump.skip, take: jump.take }, meter);
      }
      const continuation = read?.continuation;
      const nextReachable = Boolean(continuation) && page * pageSize < totalRecords
        && await cursors.put(scope.tenant, keyOf(page + 1), { continuation: continuation!, totalRecords, etag: validators.etag, ...(validators.asOf === undefined ? {} : { asOf: validators.asOf }) }, report);
      return { validators, totalRecords, records: read?.records ?? [], nextReachable };
    },

    check: () => validate('parquet'),

    async whole(render, options = {}) {
      const deadlineMs = options.deadlineMs ?? EXPORT_DEADLINE_MS;
      const background = options.background === true;
      const slot = async () => {
        const release = await deps.exportSlots.acquire({ clientId, tenant: scope.tenant, background });
        if (release) return release;
        throw new ApiError('EXPORTS_BUSY', 'Too many exports are running: one at a time per client application and per data tenant, and a few per instance. Wait for your running export to finish, then retry.', { headers: { 'Retry-After': '10' } });
      };
      // A request checks first: one that holds costs one aggregate and no slot. A background
      // export, which never waits, asks for its slot first: one refused (and tried again later)
      // costs no store read.
      const early = background ? await slot() : undefined;
      let validated: ValidatedResult;
      try {
        validated = await validate('parquet');
        if (validated.unchanged) throw unchangedError(validated, input.schemaTags.parquet);
      } catch (error) {
        early?.();
        throw error;
      }
      // Gone while the version was taken: no slot, no store read for nobody.
      if (callerGone?.aborted) {
        early?.();
        throw new CallerGone('the caller went away before the export started');
      }
      const release = early ?? await slot();
      // The export stops reading the store when its caller has gone, or at its deadline (every host).
      const deadline = AbortSignal.timeout(deadlineMs);
      const stop = callerGone ? AbortSignal.any([callerGone, deadline]) : deadline;
      try {
        return { validators: validated, rendered: await render(source.stream(scope, query, meter), stop) };
      } catch (error) {
        if (stop.aborted && callerGone?.aborted) throw new CallerGone('the caller went away during the export');
        if (stop.aborted) {
          throw new ApiError('STORE_UNAVAILABLE', `The export did not finish within ${deadlineMs / 1000} s: the store is too slow for this range now. Retry later, or export a shorter range.`, { headers: { 'Retry-After': '60' } });
        }
        throw error;
      } finally {
        release();
      }
    },
  };
}

function windowExceeded(window: number): ApiError {
  return new ApiError('RESULT_WINDOW_EXCEEDED', `Pages can reach the first ${window} records of a result only, unless you walk to them page by page; narrow the filters (for example a shorter date range), walk from page 1, or export the whole result as Parquet.`, {
    errors: [{ member: 'page', code: 'RESULT_WINDOW_EXCEEDED', message: `page × pageSize may reach at most record ${window} when jumping to a page.` }],
  });
}
