import type { RequestLogEntry } from '../shared/telemetry/request-log-entry.js';

/** A log line for a request nothing else logs (a gateway refusal, a 404 or 405 of the host). */
export function unmatchedRequestLog(requestId: string, clientRequestId: string | null, status: number, code: string, bytes: number, started: number): RequestLogEntry {
  return {
    requestId, clientRequestId, operation: null, clientId: null, dataTenant: null, status, code, reason: null,
    durationMs: Math.round((performance.now() - started) * 10) / 10, records: 0, bytes, storeDocuments: null, requestCharge: null,
  };
}
