import { SpanStatusCode, type Span } from '@opentelemetry/api';
import type { Principal } from '../auth/authenticate.js';
import { ApiError } from '../errors/api-error.js';
import { recordRequest } from '../telemetry/telemetry.js';
import { CLIENT_REQUEST_ID_HEADER, type Format } from '../model/operation-contract.js';
import type { HttpResult } from './output-stages/output-stage.js';
import type { RequestLogEntry, RequestLogger } from '../telemetry/request-log-entry.js';
import { pickRequestId, validClientRequestId } from './request-id.js';

/**
 * What the pipeline tells about one request when it ends: who called, in which format, and how it
 * failed. Each is absent when the request failed before it was known.
 */
export interface RequestFacts {
  /** The caller the credentials named. */
  readonly principal?: Principal;
  /** The format Accept chose. */
  readonly format?: Format;
  /** The problem answered, and what was thrown. */
  readonly failure?: { readonly code: string; readonly error: unknown };
}

/**
 * Observes one request at its edges: made when it starts (its id, its start time), told the
 * answer and the facts of the request when it ends. From those one set of figures becomes the log
 * line, the request span's attributes and the metrics (identifiers and counts only: never a
 * token, key, header value or body).
 */
export interface RequestObserver {
  /** Our id of the request: the gateway's, else a new one. */
  readonly requestId: string;
  /** The answer as it goes out: writes the log line, the span attributes and the metrics. */
  finished(answer: HttpResult, facts: RequestFacts): HttpResult;
}

/** Starts observing a request of `operation` (`<resource>.summary`), its work in `span`. */
export function observeRequest(operation: string, header: (name: string) => string | null, span: Span, log: RequestLogger): RequestObserver {
  const started = performance.now();
  const requestId = pickRequestId(header('x-request-id'));
  const clientRequestId = validClientRequestId(header(CLIENT_REQUEST_ID_HEADER)) ?? null;
  return {
    requestId,
    finished(answer, { principal, format, failure }) {
      const code = failure?.code ?? null;
      const reason = failure?.error instanceof ApiError ? failure.error.reason ?? null : null;
      const entry: { -readonly [K in keyof RequestLogEntry]: RequestLogEntry[K] } = {
        requestId,
        clientRequestId,
        operation,
        clientId: principal?.clientId ?? null,
        dataTenant: principal?.dataTenant ?? null,
        status: answer.status,
        code,
        reason,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        records: answer.records,
        storeDocuments: answer.store?.documents ?? null,
        requestCharge: answer.store ? Math.round(answer.store.requestCharge * 100) / 100 : null,
        bytes: typeof answer.body === 'string' ? Buffer.byteLength(answer.body) : answer.body.byteLength,
      };
      // Last, and only when there is something to say (a spread in the literal cost every line more).
      if (answer.cleaning) entry.malformed = { recordsLeftOut: answer.cleaning.recordsLeftOut, linesLeftOut: answer.cleaning.linesLeftOut, nulled: answer.cleaning.nulled, where: answer.cleaning.problems };
      log.request(entry);
      // Without a telemetry provider (the local stack, tests) the span records nothing: nothing to build for it.
      if (span.isRecording()) span.setAttributes({
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
      return answer;
    },
  };
}
