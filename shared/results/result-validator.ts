import type { Format } from '../model/operation-contract.js';
import type { SummaryQuery } from '../model/summary-query.js';
import type { Scope } from '../model/view.js';
import { resultAsOf, resultEtag } from '../output/result-etag.js';
import type { RecordStore, ResultVersion, StoreMeter } from '../store/record-store.js';

/** A result's validator, taken before any of its records is read, its count, and the time it reflects. */
export interface ValidatedResult {
  readonly etag: string;
  readonly records: number;
  /** resultAsOf of when the version was taken. */
  readonly asOf: string;
  /** What the ETag was worked out from, and when it was taken (ms, by the service's clock, before the aggregate): an export job keeps both (check-windows.ts). */
  readonly version: ResultVersion;
  readonly takenAt: number;
}

/** Which result an ETag names: the caller's scope and query, in one format, through a view whose columns have this fingerprint. */
export interface EtagSubject {
  readonly scope: Scope;
  readonly query: SummaryQuery;
  readonly format: Format;
  readonly schemaTag: string;
}

/**
 * The ETag of `subject` at `version`, as of `now` (a version written within the quiet period is
 * "moving": result-etag.ts). The one way an ETag is worked out: the reader's, and a kick-off's
 * check of an ETag against the version recorded with it (check-windows.ts).
 */
export function etagAt({ scope, query, format, schemaTag }: EtagSubject, version: ResultVersion, now: number, requestId: string): string {
  return resultEtag({ scope, query, format, version, now: new Date(now), requestId, schema: schemaTag });
}

/**
 * Takes the result's version from `source` (one aggregate; the reader's source of nothing for a
 * query that matches nothing) and its ETag, before a record is read: records written after it
 * make the next check differ, never the reverse.
 */
export async function validateResult(subject: EtagSubject, source: Pick<RecordStore, 'version'>, context: { readonly clock: () => number; readonly meter: StoreMeter; readonly requestId: string }): Promise<ValidatedResult> {
  const takenAt = context.clock();
  const version = await source.version(subject.scope, subject.query, context.meter);
  // As of when the version was taken: the instant a kick-off's check works the ETag out at again
  // (check-windows.ts), and a job's manifest tells a window moving by (export-manifest.ts).
  const etag = etagAt(subject, version, takenAt, context.requestId);
  return { etag, records: version.records, asOf: resultAsOf(takenAt), version, takenAt };
}
