/**
 * A JSON delta of a pull's range, walked to its last page (docs/api.md, "Deltas"): the records
 * created or changed since the start (a token, a copy's `since`, or nothing: the whole view), the
 * removals, after a `since` the ids kept, and the token to keep with the time it reflects. A
 * token the service will not continue is DeltaRestart (start again without one); a service with
 * no delta operation is DeltaNotOffered. Anything else fails as a window's request would
 * (fetch-window.ts: refusal), and leaves nothing: the walk holds its rows in memory.
 */
import { call, refusal, unpack, unreadAnswer, WindowFailure, type FetchContext } from './fetch-window.js';
import { DATASETS, dateMembers } from './datasets.js';
import { printable } from './printable.js';
import { problemCode } from './retry.js';
import { BodyTooLarge, validatorsOf, type DeltaPage } from './summary-api.js';

/** Where a delta starts: the folder's token, the watermark of a copy made without one, or nothing (the whole view). */
export type DeltaStart = { readonly kind: 'token'; readonly token: string } | { readonly kind: 'since'; readonly since: string } | { readonly kind: 'full' };

/** A record as a delta row gives it: its members as the summary operation answers them. */
export type DeltaRecord = Readonly<Record<string, unknown>>;

export interface WalkedDelta {
  /** The records created or changed, by id (their current version). */
  readonly changed: ReadonlyMap<string, DeltaRecord>;
  /** The records the caller was given that left its view, by id: `deleted` or `leftView`. */
  readonly removed: ReadonlyMap<string, string>;
  /** After a start with `since`: every other record of the view now (kept as the copy holds it). */
  readonly kept: ReadonlySet<string> | undefined;
  /** The token to keep for the next delta. */
  readonly token: string;
  /** X-Summary-As-Of of the last page: every create and change written before it is in this delta or an earlier one. */
  readonly asOf: string;
  /** X-Summary-Schema of the answers: the columns the caller's view has. */
  readonly schema: string;
  readonly requestIds: readonly string[];
}

/** The codes that say a token cannot be continued, and that starting again without one is the way on. */
const RESTART_CODES = new Set(['INVALID_DELTA_TOKEN', 'DELTA_TOKEN_NOT_FOUND', 'DELTA_TOKEN_EXPIRED', 'DELTA_VIEW_CHANGED', 'DELTA_FILTERS_CHANGED']);

/** The service will not continue the folder's token (or its `since`): the code it gave, and what it said. */
export class DeltaRestart extends Error {
  override readonly name = 'DeltaRestart';
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

/** The service has no delta operation (an older service, or one without export storage, which keeps the tokens). */
export class DeltaNotOffered extends Error {
  override readonly name = 'DeltaNotOffered';
}

/** The service refuses a `since` (later than its clock): `serviceTime`, its clock as its answer's Date says (ms), if it says. */
export class SinceRefused extends Error {
  override readonly name = 'SinceRefused';
  constructor(readonly serviceTime: number | undefined, message: string) {
    super(message);
  }
}

/** A delta too large for one Parquet answer (the service's PARQUET_MAX_BYTES, or this client's SUMMARY_MAX_EXPORT_BYTES). */
export class DeltaTooLarge extends Error {
  override readonly name = 'DeltaTooLarge';
}

/** A delta as Parquet: its tables' files (invoices: both of the zip), the token to keep and the time it reflects. */
export interface DeltaFiles {
  readonly tables: readonly { readonly table: string; readonly bytes: Uint8Array }[];
  readonly token: string;
  readonly asOf: string;
  readonly schema: string;
  readonly requestId: string;
}

/** The delta of `range` since `token` as one Parquet answer (a zip of two for invoices), its entries checked as an export's. */
export async function fetchDeltaFiles(context: FetchContext, range: { readonly from: string; readonly to: string }, token: string): Promise<DeltaFiles> {
  const members = dateMembers(context.by);
  const body = { ...context.filters, [members.from]: range.from, [members.to]: range.to, deltaToken: token };
  let result;
  try {
    result = await call(context, (signal) => context.api.deltaExport(context.dataset, body, signal));
  } catch (error) {
    if (error instanceof BodyTooLarge && error.exporting) throw new DeltaTooLarge(`the delta is larger than SUMMARY_MAX_EXPORT_BYTES (${error.limit})`);
    throw unreadAnswer(error);
  }
  const requestId = result.response.headers.get('x-request-id') ?? '';
  if (!result.data) {
    if (result.response.status === 413 && problemCode(result.error) === 'RESULT_TOO_LARGE') throw new DeltaTooLarge('the delta is larger than one Parquet answer of the service may be');
    refuse(result.response, result.error, requestId, 1, { kind: 'token', token });
  }
  const next = result.response.headers.get('x-summary-delta-token') ?? '';
  const { asOf, schema } = validatorsOf(result.response);
  if (next === '' || asOf === '' || schema === '') throw new WindowFailure('the delta\'s answer gives no X-Summary-Delta-Token, X-Summary-As-Of or X-Summary-Schema (a service older than this client?)', requestId);
  return { tables: unpack(context.dataset, new Uint8Array(result.data), context.api.maxExportBytes, requestId), token: next, asOf, schema, requestId };
}

/** The most pages one delta's walk takes (10 million rows at the largest page size). */
const MAX_DELTA_PAGES = 10_000;

/**
 * Walks the delta of `range` (with the pull's filters) from `start` to its last page; without
 * `keepRows`, only for its token (its rows are read and let go).
 */
export async function walkDelta(context: FetchContext, range: { readonly from: string; readonly to: string }, start: DeltaStart, keepRows = true): Promise<WalkedDelta> {
  const { dataset } = context;
  const idField = DATASETS[dataset].idField;
  const members = dateMembers(context.by);
  const filters = { ...context.filters, [members.from]: range.from, [members.to]: range.to, pageSize: context.pageSize };
  const first = start.kind === 'token' ? { deltaToken: start.token } : start.kind === 'since' ? { since: start.since } : {};
  const changed = new Map<string, DeltaRecord>();
  const removed = new Map<string, string>();
  const kept = start.kind === 'since' ? new Set<string>() : undefined;
  const requestIds: string[] = [];
  let schema = '';
  let announced = MAX_DELTA_PAGES;
  let nextPage: string | undefined;
  for (let page = 1; ; page++) {
    const body = { ...filters, ...(page === 1 ? first : { deltaPage: nextPage }) };
    const result = await call(context, (signal) => context.api.delta(dataset, body, signal)).catch((error: unknown) => {
      throw unreadAnswer(error);
    });
    const requestId = result.response.headers.get('x-request-id') ?? '';
    if (!result.data) refuse(result.response, result.error, requestId, page, start);
    if (!isDeltaPage(result.data)) throw new WindowFailure(`page ${page} of the delta is not a delta page (data, pagination and delta)`, requestId);
    requestIds.push(requestId);
    const { data, pagination, delta } = result.data;
    if (page === 1) {
      announced = Math.min(announced, Math.max(1, pagination.totalPages));
      schema = validatorsOf(result.response).schema;
    }
    if (keepRows) for (const row of data) takeRow(row, idField, { changed, removed, kept }, requestId);
    context.onProgress(data.length, 0);
    if (!pagination.hasNext) {
      const token = delta.deltaToken;
      if (typeof token !== 'string' || token === '') throw new WindowFailure(`the delta's last page (${page}) gives no deltaToken: a service older than this client?`, requestId);
      const { asOf } = validatorsOf(result.response);
      if (asOf === '' || schema === '') throw new WindowFailure('the delta\'s answers give no X-Summary-As-Of or no X-Summary-Schema: the folder could not say what it holds (a service older than this client?)', requestId);
      return { changed, removed, kept, token, asOf, schema, requestIds };
    }
    if (page >= announced) throw new WindowFailure(`the delta announced ${announced} page${announced === 1 ? '' : 's'}, and page ${page} says there is more`, requestId);
    if (typeof delta.nextPage !== 'string' || delta.nextPage === '') throw new WindowFailure(`page ${page} of the delta says there is more but names no next page`, requestId);
    nextPage = delta.nextPage;
  }
}

/** A delta's answer that is not a page: a token to start again without, no operation, or a refusal as a window's. */
function refuse(response: Response, error: unknown, requestId: string, page: number, start: DeltaStart): never {
  const code = problemCode(error);
  if (start.kind === 'since' && response.status === 400 && code === 'INVALID_FILTER') {
    const date = Date.parse(response.headers.get('date') ?? '');
    const detail = (error as { detail?: unknown } | undefined)?.detail;
    throw new SinceRefused(Number.isNaN(date) ? undefined : date, typeof detail === 'string' ? printable(detail) : code);
  }
  if (response.status === 404 || response.status === 405) {
    // A 404 of the service's own (a page kept no longer) is a problem with a code; the host's for a missing route has none.
    if (code === 'no problem document' || code === 'NOT_FOUND') throw new DeltaNotOffered('the service offers no delta (an older service, or one without export storage)');
  }
  if (page === 1 && RESTART_CODES.has(code)) {
    const detail = (error as { detail?: unknown } | undefined)?.detail;
    throw new DeltaRestart(code, typeof detail === 'string' ? printable(detail) : code);
  }
  refusal(response, error, requestId);
  throw new WindowFailure(`the delta answered ${response.status} ${printable(code)}`, requestId);
}

/** Files one row of a page: a removal, a kept id, or a record (a later row of an id replaces an earlier one). */
function takeRow(row: unknown, idField: string, into: { changed: Map<string, DeltaRecord>; removed: Map<string, string>; kept: Set<string> | undefined }, requestId: string): void {
  const record = row as Record<string, unknown> | null;
  const id = record?.[idField];
  if (typeof record !== 'object' || record === null || Array.isArray(record) || typeof id !== 'string') {
    throw new WindowFailure(`a row of the delta has no ${idField}: ${printable(JSON.stringify(row) ?? String(row), 120)}`, requestId);
  }
  if ('_removed' in record) {
    into.changed.delete(id);
    into.removed.set(id, String(record._removed));
  } else if ('_kept' in record) {
    if (!into.kept) throw new WindowFailure(`the delta keeps ${printable(id)} (a row of a start with since), but it was asked with a token`, requestId);
    into.kept.add(id);
  } else {
    into.removed.delete(id);
    into.changed.set(id, record);
  }
}

function isDeltaPage(value: unknown): value is DeltaPage {
  const page = value as Partial<DeltaPage> | null;
  const pagination = page?.pagination as Partial<DeltaPage['pagination']> | undefined;
  return Array.isArray(page?.data) && typeof page?.delta === 'object' && page.delta !== null
    && Number.isSafeInteger(pagination?.totalPages) && typeof pagination?.hasNext === 'boolean';
}
