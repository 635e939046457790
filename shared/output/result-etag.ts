/**
 * The validators of an answer (RFC 9110 §8.8): the ETag of a caller's result, and the fingerprint
 * of its columns. Both are worked out from what the answer is made of, never from its bytes, so
 * they are the same on every instance and after every restart, and a check costs one aggregate
 * (docs/decisions.md, "Validators").
 */
import { createHash } from 'node:crypto';
import type { Format } from '../model/operation-contract.js';
import type { SummaryQuery } from '../model/summary-query.js';
import type { Scope, View } from '../model/view.js';
import type { ResultVersion } from '../store/record-store.js';

/**
 * The revision of how stored records are answered (JSON values, Parquet types and encodings).
 * Part of every validator, so a deploy that changes an answer for unchanged data changes every
 * ETag and schema fingerprint, and mirrors pull again. test/unit/output/output-revision.test.ts
 * fails when the bytes of a fixed answer change, until this is raised and its figure updated.
 */
export const OUTPUT_REVISION = 2;

/**
 * How long after a matching record's write a version still counts as moving. Cosmos `_ts` has
 * whole seconds, so a second write to a record in the second a version was taken in changes
 * nothing an aggregate sees; and the store's clock is not ours. A version whose latest write is
 * this recent (or ahead of our clock) gets an ETag no later answer will have: the next check
 * pulls again instead of missing that write.
 */
export const QUIET_SECONDS = 5;

/** The response header with the fingerprint of the answer's columns. */
export const SCHEMA_HEADER = 'X-Summary-Schema';

/** The response header with the time the answer reflects (resultAsOf). */
export const AS_OF_HEADER = 'X-Summary-As-Of';

/**
 * The time an answer reflects, given when its version was taken (before the version's query, by
 * the service's clock): every write that landed before it is in the answer. QUIET_SECONDS before
 * that whole second, since the store stamps writes by its own clock, not ours, in whole seconds.
 * It says nothing of when the result was last written (no write time of the caller's records).
 */
export function resultAsOf(takenAt: number): string {
  return new Date((Math.floor(takenAt / 1000) - QUIET_SECONDS) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * The fingerprint of the columns a view answers in a format: the fields and line fields with their
 * types, in order, and the output revision. It changes exactly when a reader's schema of the
 * answer would (a role, the roles-to-datapoints configuration, a deploy that changes a field or an
 * encoding). 32 hex digits.
 */
export function schemaTag(view: View, format: Format): string {
  return digest([OUTPUT_REVISION, format, view.resource.name, view.fields, view.lineFields]);
}

/** What a result's ETag is worked out from. */
export interface ResultEtagInput {
  readonly scope: Scope;
  readonly query: SummaryQuery;
  readonly format: Format;
  readonly version: ResultVersion;
  readonly now: Date;
  /** Makes a moving version's ETag one of its own (see QUIET_SECONDS). */
  readonly requestId: string;
  /** schemaTag(scope.view, format), where the caller made it once for the view (summary-endpoint.ts); worked out here when absent. */
  readonly schema?: string;
}

/**
 * The weak ETag of the caller's result to these filters in this format: the tenant, the view
 * (fields, line fields, Drafts), the schema, the filters, the order, and the result's version. The
 * page and page size are not part of it: every page of a walk names the same result. Weak, because
 * two answers of one result differ in their request id and time.
 */
export function resultEtag({ scope, query, format, version, now, requestId, schema }: ResultEtagInput): string {
  const moving = isMoving(version.latestWrite, now.getTime());
  return `W/"${digest([
    schema ?? schemaTag(scope.view, format),
    scope.tenant,
    scope.view.drafts,
    // What decides which records and references show besides the columns.
    scope.view.resource.drafts ?? null,
    scope.view.resource.draftReferences ?? null,
    query.filters.map((filter) => (filter.kind === 'equals' ? [filter.field.name, filter.value] : [filter.field.name, filter.from, filter.to])),
    query.orderBy,
    query.order,
    version.records,
    version.latestWrite,
    moving ? `${requestId} ${now.getTime()}` : '',
  ])}"`;
}

/**
 * Whether a version whose latest write is `latestWrite` (the store's whole seconds), taken at
 * `takenAt` (milliseconds, the service's clock), is still moving: that write is within
 * QUIET_SECONDS of it, or ahead. A result read then may lack a write made in the same second; its
 * ETag is one of its own, and whoever holds it asks again.
 */
export function isMoving(latestWrite: number, takenAt: number): boolean {
  return latestWrite >= Math.floor(takenAt / 1000) - QUIET_SECONDS;
}

function digest(material: unknown): string {
  return createHash('sha256').update(JSON.stringify(material)).digest('hex').slice(0, 32);
}
