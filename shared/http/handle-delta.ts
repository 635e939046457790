import { randomBytes } from 'node:crypto';
import type { HttpRequest } from '@azure/functions';
import { EXPORT_DEADLINE_MS } from '../config/platform-limit.js';
import { pageBlob } from '../delta/delta-blobs.js';
import type { DeltaDeps } from '../delta/delta-deps.js';
import { decodePage, encodePage, sameBinding, type KeptPage } from '../delta/delta-pages.js';
import { deltaParquetPlan, deltaRows } from '../delta/delta-rows.js';
import { deltaBinding, runDelta, type DeltaOutcome } from '../delta/run-delta.js';
import type { StateBinding } from '../delta/state-codec.js';
import { ApiError } from '../errors/api-error.js';
import { deltaMembers, type FilterMember } from '../filters/filter-members.js';
import { parseFilters } from '../filters/parse-filters.js';
import { DELTA_PAGE_MEMBER, DELTA_PAGES_HOURS, DELTA_SINCE_MEMBER, DELTA_TOKEN_HEADER, DELTA_TOKEN_MEMBER, deltaNames } from '../model/delta-operations.js';
import { exportFile, mediaTypeOf, type OperationNames } from '../model/operation-contract.js';
import type { StoredRecord } from '../model/view.js';
import { OutputLimitExceeded } from '../output/output-limit-exceeded.js';
import { isTimestamp } from '../output/parquet/value-reading.js';
import { AS_OF_HEADER, resultAsOf, SCHEMA_HEADER } from '../output/result-etag.js';
import { cleaningWarning, cleanRecord, newCleaningReport, type CleaningPlan, type CleaningReport } from '../output/record-cleaner.js';
import { STREAM_PAGE_SIZE } from '../store/record-store.js';
import { BUSY_RETRY_SECONDS } from '../results/result-reader.js';
import { outcomeError } from './output-stages/answer-outcome.js';
import type { SummaryQuery } from '../model/summary-query.js';
import { callerGone, CallerGone } from './caller-gone.js';
import { notAcceptable } from './handle-summary.js';
import { negotiateOffer } from './negotiate.js';
import type { HttpResult } from './output-stages/output-stage.js';
import { linkBase } from './output-stages/page-links.js';
import { readJsonBody } from './read-json-body.js';
import { baseHeaders } from './response-headers.js';
import { serveRequest } from './serve-request.js';
import type { SummaryEndpoint } from './summary-endpoint.js';

/** A resource's delta operation: its summary operation's prepared resource and collaborators, its own names and members, and the delta feed's deps. */
export interface DeltaEndpoint {
  readonly summary: SummaryEndpoint;
  readonly names: OperationNames;
  readonly members: Readonly<Record<string, FilterMember>>;
  readonly delta: DeltaDeps;
}

export function deltaEndpoint(summary: SummaryEndpoint, delta: DeltaDeps): DeltaEndpoint {
  return Object.freeze({ summary, names: deltaNames(summary.resource), members: deltaMembers(summary.resource), delta });
}

/** Later pages written at once while a JSON delta's first page is answered. */
const PAGE_WRITES = 8;

/**
 * POST /v1/<resource>/delta (docs/api.md, "Deltas"): what changed in the caller's view since a
 * token — the records created or changed, in their current version, and a removal row for each
 * record it was given that left — as JSON pages (next links, then a token and a delta link on the
 * last page) or as one Parquet file (a zip for invoices; the token in X-Summary-Delta-Token).
 * Without a token: the whole view as of now, and a token. The edges are the summary operations'
 * (serve-request.ts); the delta itself is worked out by shared/delta, which speaks no HTTP.
 */
export async function handleDelta(endpoint: DeltaEndpoint, request: HttpRequest): Promise<HttpResult> {
  const { summary, names } = endpoint;
  const { deps } = summary;
  return serveRequest(names, deps, request, async ({ principal, header, meter, requestId, told }) => {
    const offer = negotiateOffer(header('accept'), summary.offers) ?? notAcceptable(summary.offers);
    told.format = offer.format;
    const body = await readJsonBody({ headers: request.headers, body: request.body });
    const { view, cleaning, schemaTags } = summary.prepare(principal.roles);
    const params = new URL(request.url).searchParams;
    const json = offer.format === 'json';
    const query = parseFilters({ body, query: params, view, members: endpoint.members, maxPageSize: deps.config.maxPageSize, ranges: 'open', ...(json ? {} : { exportMediaType: offer.mediaType }) });
    const scope = { tenant: principal.dataTenant, view };
    const given = query.given;
    const links = deltaLinks(deps.config.publicBaseUrl, names.path, params, body, typeof given.pageSize === 'number' ? given.pageSize : undefined);
    const now = deps.clock();
    if (typeof given[DELTA_PAGE_MEMBER] === 'string') {
      if (!json) throw new ApiError('PAGINATION_NOT_ALLOWED', `A Parquet delta is one file: ${DELTA_PAGE_MEMBER} names a later page of a JSON delta. Leave it out, or ask for JSON.`);
      const binding = deltaBinding(scope, principal.clientId, query);
      const page = await keptPage(endpoint.delta, binding, given[DELTA_PAGE_MEMBER], now);
      return answerPage(page, { requestId, now, links, pagesId: given[DELTA_PAGE_MEMBER].split('.')[0]!, schema: schemaTags.json });
    }
    const token = given[DELTA_TOKEN_MEMBER];
    const since = startedSince(given, json, now);
    // A delta reads the store as an export does (a first one the whole view): within an export
    // slot and the export deadline, stopped when its caller goes away; refused before any read.
    const release = await deps.exportSlots.acquire({ clientId: principal.clientId, tenant: scope.tenant });
    if (!release) throw outcomeError({ kind: 'busy', retryAfterSeconds: BUSY_RETRY_SECONDS.request }, '');
    const gone = callerGone(request);
    const deadline = AbortSignal.timeout(EXPORT_DEADLINE_MS);
    const signal = gone ? AbortSignal.any([gone, deadline]) : deadline;
    try {
      const report = newCleaningReport();
      const outcome = await runDelta({
        scope, query, clientId: principal.clientId, token: typeof token === 'string' ? token : undefined, ...(since === undefined ? {} : { since }), now, meter, signal, deps: endpoint.delta,
        give: (record) => cleanRecord(cleaning, record, report),
      });
      if (outcome.kind !== 'delta') throw tokenProblem(outcome, endpoint.delta.tokenDays);
      const rows = deltaRows(cleaning, outcome.delta, outcome.kept);
      // Every write before the next delta's start is in this one or an earlier one.
      const asOf = resultAsOf(now);
      const warning = cleaningWarning(report);
      const cost = { store: meter, ...(warning ? { cleaning: report } : {}) };
      if (!json) {
        const body = await renderParquet(rows, cleaning, { requestId, now, query, token: outcome.token, maxBytes: deps.config.parquetMaxBytes, signal, report });
        const file = exportFile(query.resource.export);
        return {
          status: 200,
          headers: { ...baseHeaders(file.mediaType, requestId), [DELTA_TOKEN_HEADER]: outcome.token, [AS_OF_HEADER]: asOf, [SCHEMA_HEADER]: schemaTags.parquet, 'Content-Disposition': `attachment; filename="${query.resource.name}-delta-${requestId}.${file.extension}"` },
          body,
          records: rows.length,
          ...cost,
        };
      }
      const pageSize = typeof given.pageSize === 'number' ? given.pageSize : deps.config.maxPageSize;
      const { first, pagesId } = await keepPages(rows, { blobs: endpoint.delta.blobs, tenant: scope.tenant, binding: outcome.binding, now, pageSize, token: outcome.token, asOf, signal });
      return { ...answerPage(first, { requestId, now, links, pagesId, schema: schemaTags.json, ...(warning ? { warning } : {}) }), ...cost };
    } catch (error) {
      if (gone?.aborted) throw new CallerGone('the caller went away during the delta');
      if (deadline.aborted) throw outcomeError({ kind: 'overDeadline', deadlineMs: EXPORT_DEADLINE_MS }, '');
      throw error;
    } finally {
      release();
    }
  });
}

/**
 * The pages of a JSON delta: pages 2..n kept before the first is answered (a link handed out
 * always answers), the token and as-of on the last; the first returned.
 */
async function keepPages(rows: readonly StoredRecord[], context: { readonly blobs: DeltaDeps['blobs']; readonly tenant: string; readonly binding: StateBinding; readonly now: number; readonly pageSize: number; readonly token: string; readonly asOf: string; readonly signal: AbortSignal }): Promise<{ readonly first: KeptPage; readonly pagesId: string }> {
  const { pageSize } = context;
  const totalPages = Math.max(1, Math.ceil(rows.length / pageSize));
  const pagesId = randomBytes(16).toString('hex');
  const kept = (page: number): KeptPage => ({
    binding: context.binding, created: Math.floor(context.now / 1000), page, pageSize, totalPages, totalRecords: rows.length,
    rows: rows.slice((page - 1) * pageSize, page * pageSize),
    ...(page === totalPages ? { deltaToken: context.token, asOf: context.asOf } : {}),
  });
  const later = Array.from({ length: totalPages - 1 }, (_, index) => index + 2);
  for (let at = 0; at < later.length; at += PAGE_WRITES) {
    context.signal.throwIfAborted();
    await Promise.all(later.slice(at, at + PAGE_WRITES).map(async (page) => context.blobs.put(pageBlob(context.tenant, pagesId, page), await encodePage(kept(page)))));
  }
  return { first: kept(1), pagesId };
}

/** The `since` of a delta that starts from a copy made without the feed (ms), or undefined; refused beside a token, with Parquet, or in the future. */
function startedSince(given: SummaryQuery['given'], json: boolean, now: number): number | undefined {
  const text = given[DELTA_SINCE_MEMBER];
  if (typeof text !== 'string') return undefined;
  const problem = (message: string) => new ApiError('INVALID_FILTER', message, { errors: [{ member: DELTA_SINCE_MEMBER, code: 'INVALID_FILTER', message }] });
  if (given[DELTA_TOKEN_MEMBER] !== undefined) throw problem(`${DELTA_SINCE_MEMBER} starts deltas from a copy made without a token: send ${DELTA_SINCE_MEMBER} or ${DELTA_TOKEN_MEMBER}, not both.`);
  if (!json) throw problem(`A delta started with ${DELTA_SINCE_MEMBER} is answered as JSON pages (its kept rows have no Parquet column): ask with Accept: application/json.`);
  const at = isTimestamp(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) throw problem(`${DELTA_SINCE_MEMBER} must be a real ISO 8601 instant, for example 2026-11-28T02:00:00Z.`);
  if (at > now) throw problem(`${DELTA_SINCE_MEMBER} is later than the service's clock (${new Date(now).toISOString()}): send the X-Summary-As-Of of the copy you hold.`);
  return at;
}

/** Where a delta's links start, or none without a public base URL: the request's filters (less its token, page and page size). */
interface DeltaLinks {
  readonly prefix: string;
}

function deltaLinks(publicBaseUrl: string | undefined, path: string, params: URLSearchParams, body: unknown, pageSize: number | undefined): DeltaLinks | undefined {
  const base = linkBase(publicBaseUrl, path, params, body);
  if (!base) return undefined;
  const query = new URLSearchParams(base.query);
  query.delete(DELTA_TOKEN_MEMBER);
  query.delete(DELTA_PAGE_MEMBER);
  query.delete(DELTA_SINCE_MEMBER);
  // The page size only as the caller asked it: a kept delta link follows a changed MAX_PAGE_SIZE.
  if (pageSize !== undefined) query.append('pageSize', String(pageSize));
  return { prefix: query.size > 0 ? `${base.operationUrl}?${query.toString()}&` : `${base.operationUrl}?` };
}

/** One page of a JSON delta: its rows, where it is, the next page's name and link, and on the last the token and the delta link. */
function answerPage(page: KeptPage, context: { readonly requestId: string; readonly now: number; readonly links: DeltaLinks | undefined; readonly pagesId: string; readonly schema: string; readonly warning?: string }): HttpResult {
  const { links } = context;
  const hasNext = page.page < page.totalPages;
  const nextPage = hasNext ? `${context.pagesId}.${page.page + 1}` : undefined;
  const nextLink = nextPage !== undefined && links ? `${links.prefix}${DELTA_PAGE_MEMBER}=${nextPage}` : undefined;
  const deltaLink = page.deltaToken !== undefined && links ? `${links.prefix}${DELTA_TOKEN_MEMBER}=${page.deltaToken}` : undefined;
  const envelope = {
    data: page.rows,
    pagination: { page: page.page, pageSize: page.pageSize, totalRecords: page.totalRecords, totalPages: page.totalPages, hasNext, ...(nextLink === undefined ? {} : { nextLink }) },
    delta: {
      ...(nextPage === undefined ? {} : { nextPage }),
      ...(page.deltaToken === undefined ? {} : { deltaToken: page.deltaToken }),
      ...(deltaLink === undefined ? {} : { deltaLink }),
    },
    meta: { requestId: context.requestId, generatedAt: new Date(context.now).toISOString(), ...(context.warning ? { warning: context.warning } : {}) },
  };
  const headers: Record<string, string> = { ...baseHeaders(`${mediaTypeOf('json')}; charset=utf-8`, context.requestId), [SCHEMA_HEADER]: context.schema };
  if (page.deltaToken !== undefined) headers[DELTA_TOKEN_HEADER] = page.deltaToken;
  if (page.asOf !== undefined) headers[AS_OF_HEADER] = page.asOf;
  const linkHeader = [nextLink === undefined ? undefined : `<${nextLink}>; rel="next"`].filter((link) => link !== undefined);
  if (linkHeader.length > 0) headers.Link = linkHeader.join(', ');
  return { status: 200, headers, body: Buffer.from(JSON.stringify(envelope), 'utf8'), records: page.rows.length };
}

/** A later page kept for this caller, view and filters, within its life; else one answer, whatever the reason (it never says whether the page exists). */
async function keptPage(deps: DeltaDeps, binding: ReturnType<typeof deltaBinding>, name: string, now: number): Promise<KeptPage> {
  const [pagesId, number] = name.split('.');
  const bytes = await deps.blobs.get(pageBlob(binding.tenant, pagesId!, Number(number)));
  const page = bytes && await decodePage(bytes);
  if (!page || !sameBinding(page.binding, binding) || page.page !== Number(number) || page.created + DELTA_PAGES_HOURS * 3600 < Math.floor(now / 1000)) {
    throw new ApiError('DELTA_PAGE_NOT_FOUND', `This page of a delta is not here for you: a delta's later pages are kept ${DELTA_PAGES_HOURS} hours, for the client, view and filters that asked for it. Ask for the delta again with the deltaToken you sent for its first page (or without one, to start again).`);
  }
  return page;
}

/** The Parquet (or zip) of a delta's rows: the view's columns, each nullable, then `_removed`; the token in the footer too. */
async function renderParquet(rows: readonly StoredRecord[], cleaning: CleaningPlan, options: { readonly requestId: string; readonly now: number; readonly query: SummaryQuery; readonly token: string; readonly maxBytes: number; readonly signal: AbortSignal; readonly report: CleaningReport }): Promise<Uint8Array> {
  const { exportParquet, footerMetadata } = await import('../output/export-parquet.js');
  const generatedAt = new Date(options.now);
  async function* stream(): AsyncIterable<readonly StoredRecord[]> {
    for (let at = 0; at < rows.length || at === 0; at += STREAM_PAGE_SIZE) yield rows.slice(at, at + STREAM_PAGE_SIZE);
  }
  // The footer says the filters of the delta, not the token it was asked with (the new one is beside them).
  const { [DELTA_TOKEN_MEMBER]: _sent, [DELTA_PAGE_MEMBER]: _page, [DELTA_SINCE_MEMBER]: _since, ...filters } = options.query.given;
  try {
    const metadata = [...footerMetadata({ requestId: options.requestId, generatedAt, query: { ...options.query, given: filters } }), { key: 'summary.deltaToken', value: options.token }];
    return (await exportParquet(stream(), deltaParquetPlan(cleaning), { maxBytes: options.maxBytes, metadata, generatedAt, signal: options.signal, report: options.report })).body;
  } catch (error) {
    if (error instanceof OutputLimitExceeded) {
      throw new ApiError('RESULT_TOO_LARGE', `This delta would exceed ${options.maxBytes} bytes as one Parquet answer: ask for it as JSON pages (Accept: application/json) with the same deltaToken, or narrow the filters.`);
    }
    throw error;
  }
}

/** The problem of a token that came to no state: each says to start again without a token where that is the way on. */
function tokenProblem(outcome: Exclude<DeltaOutcome, { readonly kind: 'delta' }>, days: number): ApiError {
  switch (outcome.kind) {
    case 'malformed':
      return new ApiError('INVALID_DELTA_TOKEN', 'deltaToken is not a token of this service: send it exactly as a delta gave it (d1.…), or leave it out to start again.', { errors: [{ member: DELTA_TOKEN_MEMBER, code: 'INVALID_DELTA_TOKEN', message: 'deltaToken must be a token a delta of this operation gave.' }] });
    case 'notFound':
      return new ApiError('DELTA_TOKEN_NOT_FOUND', 'This deltaToken names no delta of yours for this operation (it is another client\'s or tenant\'s, of another resource, altered, or unknown). Start again: ask without a deltaToken for the whole view and a new token.');
    case 'expired':
      return new ApiError('DELTA_TOKEN_EXPIRED', `This deltaToken is older than the ${days} days the service answers tokens for. Start again: ask without a deltaToken for the whole view and a new token.`);
    case 'viewChanged':
      return new ApiError('DELTA_VIEW_CHANGED', 'What your roles let you see has changed since this deltaToken was given (fields, lines or Drafts): a delta cannot say what that changed. Start again: ask without a deltaToken for the whole view as you see it now.');
    case 'filtersChanged':
      return new ApiError('DELTA_FILTERS_CHANGED', 'This deltaToken was given for other filters: a token continues the filters it was given for, or the same with a wider date range (an earlier From, a later To). Send those filters with it, or start again without a deltaToken for these.');
  }
}
