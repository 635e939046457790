/**
 * What the result reader's outcomes are over HTTP: the validators an answer carries, and the
 * problem of every outcome that is not records (412 RESULT_UNCHANGED, 503 EXPORTS_BUSY, …). The
 * one place a read's outcome becomes a status code.
 */
import { ApiError } from '../../errors/api-error.js';
import { AS_OF_HEADER, SCHEMA_HEADER } from '../../output/result-etag.js';
import type { Busy, BeyondWindow, Gone, OverDeadline, Unchanged } from '../../results/result-reader.js';
import { CallerGone } from '../caller-gone.js';

/**
 * The validators an answer carries: its ETag, the fingerprint of its columns, and the time it
 * reflects (absent on a page read from a cursor of an earlier deploy, which kept none).
 */
export function validatorHeaders({ etag, asOf }: { etag: string; asOf?: string | undefined }, schema: string): Record<string, string> {
  return { ETag: etag, [SCHEMA_HEADER]: schema, ...(asOf === undefined ? {} : { [AS_OF_HEADER]: asOf }) };
}

/** The error a request answers for an outcome without records (`schema`: the X-Summary-Schema of the format asked). */
export function outcomeError(outcome: Unchanged | Busy | BeyondWindow | OverDeadline | Gone, schema: string): Error {
  switch (outcome.kind) {
    case 'unchanged':
      return new ApiError('RESULT_UNCHANGED', 'The result of these filters has not changed since the ETag you sent in If-None-Match: the answer you have is current. Send the request without If-None-Match to get it again.', {
        headers: validatorHeaders(outcome.validators, schema),
      });
    case 'busy':
      return new ApiError('EXPORTS_BUSY', 'Too many exports are running: one at a time per client application and per data tenant, and a few per instance. Wait for your running export to finish, then retry.', { headers: { 'Retry-After': String(outcome.retryAfterSeconds) } });
    case 'beyondWindow':
      return new ApiError('RESULT_WINDOW_EXCEEDED', `Pages can reach the first ${outcome.resultWindow} records of a result only, unless you walk to them page by page; narrow the filters (for example a shorter date range), walk from page 1, or export the whole result as Parquet.`, {
        errors: [{ member: 'page', code: 'RESULT_WINDOW_EXCEEDED', message: `page × pageSize may reach at most record ${outcome.resultWindow} when jumping to a page.` }],
      });
    case 'overDeadline':
      return new ApiError('STORE_UNAVAILABLE', `The export did not finish within ${outcome.deadlineMs / 1000} s: the store is too slow for this range now. Retry later, or export a shorter range.`, { headers: { 'Retry-After': '60' } });
    case 'gone':
      return new CallerGone('the caller went away during the export');
  }
}
