import type { HttpRequest } from '@azure/functions';
import { ApiError } from '../errors/api-error.js';
import { authenticate, type Principal } from '../auth/authenticate.js';
import { parseFilters } from '../filters/parse-filters.js';
import type { ResourceDefinition } from '../model/resource-definition.js';
import { SpanStatusCode } from '@opentelemetry/api';
import { inRequestSpan, recordRequest } from '../telemetry/telemetry.js';
import { exportFile, PARQUET_MEDIA_TYPE } from '../output/export-file.js';
import { negotiate, offersOf, type Format, type Offer } from './negotiate.js';
import type { RequestLogEntry } from './request-log-entry.js';
import { CLIENT_REQUEST_ID_HEADER, pickRequestId, validClientRequestId } from './request-id.js';
import { readJsonBody } from './read-json-body.js';
import { respondJson } from './respond-json.js';
import { respondParquet } from './respond-parquet.js';
import { errorResponse } from './error-response.js';
import { compressResponse } from './compress-response.js';
import type { HttpResult } from './output-stage.js';
import type { SummaryDeps } from './create-summary-deps.js';

/** The output stage of each format. */
const OUTPUT_STAGES = { json: respondJson, parquet: respondParquet } as const;

/**
 * What a resource answers: JSON, and its export under the Parquet media type and, when the export
 * is not one Parquet file (a zip), under its own media type too.
 */
function offers(resource: ResourceDefinition): Offer[] {
  const { mediaType } = exportFile(resource.export);
  return offersOf(['json', 'parquet'], mediaType === PARQUET_MEDIA_TYPE ? [] : [{ format: 'parquet', mediaType }]);
}

/**
 * The request pipeline of both summary operations, in one place:
 * request id → credentials (before anything about the request is looked at) → Accept → body →
 * filters (checked against the caller's view) → store → output stage (JSON page or Parquet
 * export, chosen by Accept) → content coding of JSON answers (Accept-Encoding) → one log line.
 * Every failure is an ApiError answered as problem+json; anything else is a 500 INTERNAL.
 */
export async function handleSummary(resource: ResourceDefinition, request: HttpRequest, deps: SummaryDeps): Promise<HttpResult> {
  const operation = `${resource.name}.summary`;
  return inRequestSpan(`POST /v1/${resource.name}/summary`, (name) => request.headers.get(name), async (span) => {
    const started = performance.now();
    const requestId = pickRequestId(request.headers.get('x-request-id'));
    const clientRequestId = validClientRequestId(request.headers.get(CLIENT_REQUEST_ID_HEADER)) ?? null;
    let principal: Principal | undefined;
    let format: Format | undefined;
    let result: HttpResult;
    let code: string | null = null;
    let reason: string | null = null;
    try {
      principal = await authenticate(
        { authorization: request.headers.get('authorization'), apiKey: request.headers.get('x-api-key') },
        { checkApiKey: deps.checkApiKey, verifyToken: deps.verifyToken, clientRegistry: deps.config.clientRegistry },
      );
      const offered = offers(resource);
      format = negotiate(request.headers.get('accept'), offered);
      if (format === undefined) {
        throw new ApiError('NOT_ACCEPTABLE', `This endpoint answers ${offered.map((offer) => offer.mediaType).join(', ')}; set Accept to one of them, or leave Accept out for JSON.`);
      }
      const body = await readJsonBody(request);
      const view = deps.allowlist.view(resource, principal.roles);
      const query = parseFilters({ body, query: new URL(request.url).searchParams, view, maxPageSize: deps.config.maxPageSize, pagination: format === 'json' });
      result = await OUTPUT_STAGES[format]({ scope: { tenant: principal.dataTenant, view }, query, requestId, clientId: principal.clientId, deps });
    } catch (error) {
      const problem = errorResponse(error, requestId, (unexpected) => deps.log.fault(requestId, unexpected));
      code = problem.code;
      reason = error instanceof ApiError ? error.reason ?? null : null;
      result = problem;
    }
    result = await compressResponse(result, request.headers.get('accept-encoding'));
    const entry: RequestLogEntry = {
      requestId,
      clientRequestId,
      operation,
      clientId: principal?.clientId ?? null,
      dataTenant: principal?.dataTenant ?? null,
      status: result.status,
      code,
      reason,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      records: result.records,
      storeDocuments: result.store?.documents ?? null,
      requestCharge: result.store ? Math.round(result.store.requestCharge * 100) / 100 : null,
      bytes: typeof result.body === 'string' ? Buffer.byteLength(result.body) : result.body.byteLength,
    };
    deps.log.request(entry);
    // The same figures as the log line, on the span and in the metrics: identifiers and counts only.
    span.setAttributes({
      'summary.operation': operation,
      'summary.request_id': requestId,
      ...(clientRequestId !== null ? { 'summary.client_request_id': clientRequestId } : {}),
      ...(format !== undefined ? { 'summary.format': format } : {}),
      'http.request.method': 'POST',
      'http.response.status_code': entry.status,
      ...(code !== null ? { 'summary.error_code': code } : {}),
      ...(reason !== null ? { 'summary.error_reason': reason } : {}),
      ...(entry.dataTenant !== null ? { 'summary.data_tenant': entry.dataTenant } : {}),
      ...(entry.clientId !== null ? { 'summary.client_id': entry.clientId } : {}),
      'summary.records': entry.records,
      'summary.bytes': entry.bytes,
    });
    if (entry.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: code ?? 'error' });
    recordRequest({
      operation, format: format ?? null, status: entry.status, dataTenant: entry.dataTenant, durationMs: entry.durationMs,
      exportBytes: format === 'parquet' && entry.status === 200 ? entry.bytes : null, requestCharge: entry.requestCharge,
    });
    return result;
  });
}
