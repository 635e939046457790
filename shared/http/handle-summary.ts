import type { HttpRequest } from '@azure/functions';
import { ApiError } from '../errors/api-error.js';
import { authenticate, type Principal } from '../auth/authenticate.js';
import { parseFilters } from '../filters/parse-filters.js';
import type { ResourceDefinition } from '../model/resource-definition.js';
import { negotiate } from './negotiate.js';
import { CLIENT_REQUEST_ID_HEADER, pickRequestId, validClientRequestId } from './request-id.js';
import { readJsonBody } from './read-json-body.js';
import { respondJson } from './respond-json.js';
import { respondParquet } from './respond-parquet.js';
import { errorResponse } from './error-response.js';
import { compressResponse } from './compress-response.js';
import type { HttpResult } from './output-stage.js';
import type { SummaryDeps } from './create-summary-deps.js';

/** The formats both operations produce, each with its output stage. */
const AVAILABLE_FORMATS = ['json', 'parquet'] as const;
const OUTPUT_STAGES = { json: respondJson, parquet: respondParquet } as const;

/**
 * The request pipeline of both summary operations, in one place:
 * request id → credentials (before anything about the request is looked at) → Accept → body →
 * filters (checked against the caller's view) → store → output stage (JSON page or Parquet
 * export, chosen by Accept) → content coding of JSON answers (Accept-Encoding) → one log line.
 * Every failure is an ApiError answered as problem+json; anything else is a 500 INTERNAL.
 */
export async function handleSummary(resource: ResourceDefinition, request: HttpRequest, deps: SummaryDeps): Promise<HttpResult> {
  const started = performance.now();
  const requestId = pickRequestId(request.headers.get('x-request-id'));
  const clientRequestId = validClientRequestId(request.headers.get(CLIENT_REQUEST_ID_HEADER)) ?? null;
  let principal: Principal | undefined;
  let result: HttpResult;
  let code: string | null = null;
  try {
    principal = await authenticate(
      { authorization: request.headers.get('authorization'), apiKey: request.headers.get('x-api-key') },
      { checkApiKey: deps.checkApiKey, verifyToken: deps.verifyToken, clientRegistry: deps.config.clientRegistry },
    );
    const format = negotiate(request.headers.get('accept'), AVAILABLE_FORMATS);
    if (format === undefined) {
      throw new ApiError('NOT_ACCEPTABLE', 'This endpoint answers application/json or application/vnd.apache.parquet; set Accept to one of them, or leave Accept out for JSON.');
    }
    const body = await readJsonBody(request);
    const view = deps.allowlist.view(resource, principal.roles);
    const query = parseFilters({ body, query: new URL(request.url).searchParams, view, maxPageSize: deps.config.maxPageSize, pagination: format === 'json' });
    result = await OUTPUT_STAGES[format]({ scope: { tenant: principal.dataTenant, view }, query, requestId, clientId: principal.clientId, deps });
  } catch (error) {
    const problem = errorResponse(error, requestId, (unexpected) => deps.log.fault(requestId, unexpected));
    code = problem.code;
    result = problem;
  }
  result = await compressResponse(result, request.headers.get('accept-encoding'));
  deps.log.request({
    requestId,
    clientRequestId,
    operation: `${resource.name}.summary`,
    clientId: principal?.clientId ?? null,
    dataTenant: principal?.dataTenant ?? null,
    status: result.status,
    code,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    records: result.records,
    storeDocuments: result.store?.documents ?? null,
    requestCharge: result.store ? Math.round(result.store.requestCharge * 100) / 100 : null,
    bytes: typeof result.body === 'string' ? Buffer.byteLength(result.body) : result.body.byteLength,
  });
  return result;
}
