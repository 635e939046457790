import type { HttpRequest } from '@azure/functions';
import { ApiError } from '../errors/api-error.js';
import { parseFilters } from '../filters/parse-filters.js';
import { inRequestSpan } from '../telemetry/telemetry.js';
import { negotiateOffer, type Offer } from './negotiate.js';
import { CallerGone, callerGone } from './caller-gone.js';
import { observeRequest, type RequestFacts } from './request-observer.js';
import { baseHeaders } from './response-headers.js';
import { readJsonBody } from './read-json-body.js';
import { parseIfNoneMatch } from './if-none-match.js';
import type { StoreMeter } from '../store/record-store.js';
import { OUTPUT_STAGES } from './handlers/stages.js';
import { errorResponse } from './error-response.js';
import { compressResponse } from './compress-response.js';
import type { HttpResult } from './handlers/output-stage.js';
import type { SummaryEndpoint } from './summary-endpoint.js';

/**
 * The request pipeline of both summary operations, in one place:
 * request id → credentials (before anything about the request is looked at) → Accept → body →
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
  const { headers } = request;
  const header = (name: string) => headers.get(name);
  return inRequestSpan(names.spanName, header, async (span) => {
    const observer = observeRequest(names.logName, header, span, deps.log);
    const { requestId } = observer;
    const meter: StoreMeter = { documents: 0, requestCharge: 0 };
    const told: { -readonly [K in keyof RequestFacts]: RequestFacts[K] } = {};
    let answer: HttpResult;
    try {
      const principal = (told.principal = await deps.authenticate({ authorization: header('authorization'), apiKey: header('x-api-key') }));
      const offer = negotiateOffer(header('accept'), endpoint.offers) ?? notAcceptable(endpoint.offers);
      told.format = offer.format;
      const stage = OUTPUT_STAGES[offer.format];
      const body = await readJsonBody({ headers, body: request.body });
      const { view, cleaning, schemaTags } = endpoint.prepare(principal.roles);
      const params = new URL(request.url).searchParams;
      const query = parseFilters({ body, query: params, view, members: endpoint.members, maxPageSize: deps.config.maxPageSize, ...(stage.paged ? {} : { exportMediaType: offer.mediaType }) });
      // Preconditions are looked at only once the request is known to be good (RFC 9110 §13.2.1).
      const precondition = parseIfNoneMatch(header('if-none-match'));
      const gone = callerGone(request);
      answer = await stage.respond({
        scope: { tenant: principal.dataTenant, view }, cleaning, schemaTags, query, requestId, clientId: principal.clientId, deps, meter,
        request: { path: names.path, params, body },
        ...(gone ? { callerGone: gone } : {}), ...(precondition ? { precondition } : {}),
      });
    } catch (error) {
      if (error instanceof CallerGone) {
        // Nobody is there to read an answer: 499 goes to the log line only.
        answer = { status: 499, headers: baseHeaders('text/plain', requestId), body: '', records: 0 };
      } else {
        const problem = errorResponse(error, requestId, (unexpected) => deps.log.fault(requestId, unexpected));
        told.failure = { code: problem.code, error };
        answer = withCost(problem, meter);
      }
    }
    return observer.finished(await compressResponse(answer, header('accept-encoding')), told);
  });
}

/** A failed answer with what its store reads cost, when the store was read before it failed (a 412 after its check). */
function withCost<T extends HttpResult>(answer: T, meter: StoreMeter): T {
  return meter.documents > 0 || meter.requestCharge > 0 ? { ...answer, store: meter } : answer;
}

function notAcceptable(offers: readonly Offer[]): never {
  throw new ApiError('NOT_ACCEPTABLE', `This endpoint answers ${offers.map((offer) => offer.mediaType).join(', ')}; set Accept to one of them, or leave Accept out for JSON.`);
}
