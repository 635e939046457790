import { ApiError } from '../../errors/api-error.js';
import type { StoredRecord } from '../../model/view.js';
import { buildJsonEnvelope, jsonEnvelopeBytes } from '../../output/json-envelope.js';
import { cleaningWarning, cleanRecord, newCleaningReport } from '../../output/record-cleaner.js';
import { CURSOR_GUARD, guardedCursors, type CursorFailureReport } from '../../cursors/guarded-cursors.js';
import { pageCursorKey } from '../../cursors/page-cursors.js';
import { recordCursorFailure } from '../../telemetry/telemetry.js';
import type { StorePage } from '../../store/record-store.js';
import type { OutputStage } from './output-stage.js';
import { baseHeaders } from '../response-headers.js';
import { mediaTypeOf } from '../../model/operation-contract.js';
import { linkBase, pageLinks } from './page-links.js';
import { jumpTo, paginate } from '../../output/pagination.js';
import { unchangedError, validateResult, validatorHeaders } from './result-validator.js';

/**
 * The JSON output stage, one page at the cost of one page when the caller walks in order:
 * - with the cursor that the previous page left for this one, exactly `pageSize` documents from
 *   its continuation, and the walk's total and ETag from the cursor (taken once, stable over the walk);
 * - without one (a first page, a jump, an expired or unreachable cursor), the result's version
 *   (one aggregate: its count and ETag) and the first `skip + take` documents — the only path
 *   bounded by MAX_RESULT_WINDOW (400 past it, pointing to narrower filters or a Parquet export);
 * - with an If-None-Match, never from a cursor: the version is taken, a precondition that holds
 *   ends the request with 412 before a record is read, and otherwise the page is the result as it is now;
 * then a cursor for the next page. Neither store read happens when the query matches nothing the
 * caller may see. A page past the end is an empty 200 with a warning.
 */
export const respondJson: OutputStage = async (input) => {
  const { scope, cleaning, query, requestId, clientId, request, deps, meter, precondition } = input;
  const { page, pageSize } = query;
  const keyOf = (target: number) => pageCursorKey(scope, clientId, query, target);
  // A failing cursor store only costs the walk its shortcut; each failure is logged and counted.
  const cursors = guardedCursors(deps.cursors, { ...CURSOR_GUARD, now: deps.clock });
  const report: CursorFailureReport = (call, reason, error) => {
    deps.log.warning(requestId, `page cursor ${call} failed (${reason})${error instanceof Error ? `: ${error.name}` : ''}; the page is read without it`);
    recordCursorFailure(call, reason);
  };
  // A walk's total and ETag come with its cursor (the result as its first page found it). A request
  // with a precondition is about the result as it is now: checked, and if changed, read without one.
  const cursor = page > 1 && !query.matchesNothing && !precondition ? await cursors.get(scope.tenant, keyOf(page), report) : undefined;
  const validated = cursor ? undefined : await validateResult(input, 'json');
  const etag = cursor?.etag ?? validated!.etag;
  const asOf = cursor ? cursor.asOf : validated!.asOf;
  const resultWindow = deps.config.maxResultWindow;
  let totalRecords = 0;
  let read: StorePage | undefined;
  let nextReachable = false;
  if (cursor) {
    totalRecords = cursor.totalRecords;
    read = await deps.store.page(scope, query, { skip: 0, take: pageSize, continuation: cursor.continuation }, meter);
  } else if (!query.matchesNothing) {
    totalRecords = validated!.records;
    const jump = jumpTo(page, pageSize, totalRecords, resultWindow);
    // A page the request may not jump to is its 400 first, If-None-Match or not (RFC 9110 §13.2.1).
    if (jump && !jump.withinWindow) throw windowExceeded(resultWindow);
    if (validated!.unchanged) throw unchangedError(validated!, scope, 'json');
    if (jump) read = await deps.store.page(scope, query, { skip: jump.skip, take: jump.take }, meter);
  }
  if (validated?.unchanged) throw unchangedError(validated, scope, 'json');
  if (read?.continuation && page * pageSize < totalRecords) {
    nextReachable = await cursors.put(scope.tenant, keyOf(page + 1), { continuation: read.continuation, totalRecords, etag, ...(asOf === undefined ? {} : { asOf }) }, report);
  }
  // Every value checked against its field, and exactly the allowlisted fields, on the way out (record-cleaner.ts).
  const cleaned = newCleaningReport();
  const records: StoredRecord[] = [];
  for (const record of read?.records ?? []) {
    const answered = cleanRecord(cleaning, record, cleaned);
    if (answered !== undefined) records.push(answered);
  }
  const warning = cleaningWarning(cleaned);
  const pagination = paginate({ page, pageSize, totalRecords, resultWindow, nextReachable });
  const envelope = buildJsonEnvelope(records, pagination, { requestId, generatedAt: new Date(deps.clock()), ...(warning ? { warning } : {}) });
  const headers = { ...baseHeaders(`${mediaTypeOf('json')}; charset=utf-8`, requestId), ...validatorHeaders({ etag, asOf }, scope, 'json') };
  const links = linkBase(deps.config.publicBaseUrl, request.path, request.params, request.body);
  if (links) {
    // A link follower stops where the links stop, reading no warning: a next page that exists but
    // cannot be reached (its cursor could not be stored) is a retryable 503, never a silent end.
    if (pagination.windowEnds) throw nextPageUnreachable();
    const { header, next } = pageLinks(links, pagination);
    headers.Link = header;
    if (next !== undefined) envelope.pagination.nextLink = next;
  }
  return {
    status: 200,
    headers,
    // Encoded once here: the host needs bytes anyway, and the log needs their count
    // (Buffer.byteLength of a 400 kB string cost a sixth of a 1000-row request, measured).
    body: jsonEnvelopeBytes(envelope),
    records: records.length,
    store: meter,
    ...(warning ? { cleaning: cleaned } : {}),
  };
};

function nextPageUnreachable(): ApiError {
  return new ApiError('STORE_UNAVAILABLE', 'The link to the next page could not be made (the page cursor store is unavailable): ask for this page again shortly.', { headers: { 'Retry-After': '1' } });
}

function windowExceeded(window: number): ApiError {
  return new ApiError('RESULT_WINDOW_EXCEEDED', `Pages can reach the first ${window} records of a result only, unless you walk to them page by page; narrow the filters (for example a shorter date range), walk from page 1, or export the whole result as Parquet.`, {
    errors: [{ member: 'page', code: 'RESULT_WINDOW_EXCEEDED', message: `page × pageSize may reach at most record ${window} when jumping to a page.` }],
  });
}
