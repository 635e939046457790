import { ApiError } from '../../errors/api-error.js';
import type { Format } from '../../model/operation-contract.js';
import { AS_OF_HEADER, resultAsOf, resultEtag, SCHEMA_HEADER } from '../../output/result-etag.js';
import type { RecordStore, ResultVersion } from '../../store/record-store.js';
import { matchesIfNoneMatch } from '../if-none-match.js';
import type { OutputStageInput } from './output-stage.js';

/** A result's validator, taken before any of its records is read, its count, and the time it reflects. */
export interface ValidatedResult {
  readonly etag: string;
  readonly records: number;
  /** resultAsOf of when the version was taken. */
  readonly asOf: string;
  /** The caller's If-None-Match still holds: once the request is otherwise valid, it ends with 412 (unchangedError). */
  readonly unchanged: boolean;
  /** What the ETag was worked out from, and when it was taken (ms, by the service's clock, before the aggregate): an export job keeps both (check-windows.ts). */
  readonly version: ResultVersion;
  readonly takenAt: number;
}

/**
 * Takes the result's version from `source` (one aggregate; the reader's source of nothing for a query that matches nothing) and its ETag,
 * before a record is read: records written after it make the next check differ, never the reverse.
 * Whether the caller's If-None-Match still holds is returned, not thrown: a request that is bad
 * for another reason gets that 4xx first (RFC 9110 §13.2.1), then unchangedError.
 */
export async function validateResult({ scope, query, requestId, precondition, meter, deps, schemaTags }: OutputStageInput, format: Format, source: Pick<RecordStore, 'version'>): Promise<ValidatedResult> {
  const takenAt = deps.clock();
  const version = await source.version(scope, query, meter);
  const etag = resultEtag({ scope, query, format, version, now: new Date(deps.clock()), requestId, schema: schemaTags[format] });
  return { etag, records: version.records, asOf: resultAsOf(takenAt), unchanged: precondition !== undefined && matchesIfNoneMatch(precondition, etag), version, takenAt };
}

/** The 412 RESULT_UNCHANGED of a result whose If-None-Match holds, with its validators. */
export function unchangedError(validated: ValidatedResult, schema: string): ApiError {
  return new ApiError('RESULT_UNCHANGED', 'The result of these filters has not changed since the ETag you sent in If-None-Match: the answer you have is current. Send the request without If-None-Match to get it again.', {
    headers: validatorHeaders(validated, schema),
  });
}

/**
 * The validators an answer carries: its ETag, the fingerprint of its columns, and the time it
 * reflects (absent on a page read from a cursor of an earlier deploy, which kept none).
 */
export function validatorHeaders({ etag, asOf }: { etag: string; asOf?: string | undefined }, schema: string): Record<string, string> {
  return { ETag: etag, [SCHEMA_HEADER]: schema, ...(asOf === undefined ? {} : { [AS_OF_HEADER]: asOf }) };
}
