import type { HttpRequest } from '@azure/functions';
import { ApiError } from '../errors/api-error.js';
import { parseFilters } from '../filters/parse-filters.js';
import { negotiateOffer, type Offer } from './negotiate.js';
import { readJsonBody } from './read-json-body.js';
import { parseIfNoneMatch } from '../results/if-none-match.js';
import { callerGone } from './caller-gone.js';
import { serveRequest } from './serve-request.js';
import { OUTPUT_STAGES } from './output-stages/stages.js';
import type { HttpResult } from './output-stages/output-stage.js';
import type { SummaryEndpoint } from './summary-endpoint.js';

/**
 * The request pipeline of both summary operations, in one place (its edges, which every
 * operation shares, in serve-request.ts): request id → credentials (before anything about the request is looked at) → Accept → body →
 * filters (checked against the caller's view) → If-None-Match → the output stage of the format
 * Accept chose (it takes the result's validator, answers 412 where the precondition still holds,
 * else reads the store) → content coding (Accept-Encoding). It knows no format: the stage says
 * whether its requests are pages. Every failure is an ApiError answered as problem+json; anything
 * else is a 500 INTERNAL. The observer is there at the start and at the end: it is told then who
 * called, the format, the failure and the answer, and writes the log line (with what the store
 * reads cost, failures included), span and metrics.
 *
 * @example
 * const endpoint = summaryEndpoint(CONTRACTS, createSummaryDeps(loadConfig()));
 * const result = await handleSummary(endpoint, request); // an HttpRequest of @azure/functions
 * result.status; // 200, 412 when If-None-Match holds, or a problem+json 4xx/5xx
 */
export async function handleSummary(endpoint: SummaryEndpoint, request: HttpRequest): Promise<HttpResult> {
  const { deps, names } = endpoint;
  return serveRequest(names, deps, request, async ({ principal, header, meter, requestId, told }) => {
    const offer = negotiateOffer(header('accept'), endpoint.offers) ?? notAcceptable(endpoint.offers);
    told.format = offer.format;
    const stage = OUTPUT_STAGES[offer.format];
    const body = await readJsonBody({ headers: request.headers, body: request.body });
    const { view, cleaning, schemaTags } = endpoint.prepare(principal.roles);
    const params = new URL(request.url).searchParams;
    const query = parseFilters({ body, query: params, view, members: endpoint.members, maxPageSize: deps.config.maxPageSize, ...(stage.paged ? {} : { exportMediaType: offer.mediaType }) });
    // Preconditions are looked at only once the request is known to be good (RFC 9110 §13.2.1).
    const precondition = parseIfNoneMatch(header('if-none-match'));
    const gone = callerGone(request);
    return stage.respond({
      scope: { tenant: principal.dataTenant, view }, cleaning, schemaTags, query, requestId, clientId: principal.clientId, deps, meter,
      request: { path: names.path, params, body },
      ...(gone ? { callerGone: gone } : {}), ...(precondition ? { precondition } : {}),
    });
  });
}

/** 406 NOT_ACCEPTABLE, naming what the operation answers. */
export function notAcceptable(offers: readonly Offer[]): never {
  throw new ApiError('NOT_ACCEPTABLE', `This endpoint answers ${offers.map((offer) => offer.mediaType).join(', ')}; set Accept to one of them, or leave Accept out for JSON.`);
}
