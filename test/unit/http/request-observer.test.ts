import { describe, expect, it } from '@jest/globals';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { SpanStatusCode } from '@opentelemetry/api';
import { ApiError } from '../../../shared/errors/api-error.js';
import { observeRequest } from '../../../shared/http/request-observer.js';
import type { RequestLogEntry } from '../../../shared/telemetry/request-log-entry.js';

// The observer alone: a recording span from the OpenTelemetry SDK (not registered globally), a
// log that keeps its lines, and the facts a pipeline tells it at the end.
function observed(headers: Record<string, string> = {}) {
  const exporter = new InMemorySpanExporter();
  const span = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test').startSpan('POST /v1/contracts/summary');
  const lines: RequestLogEntry[] = [];
  const log = { request: (entry: RequestLogEntry) => lines.push(entry), fault: () => {}, warning: () => {} };
  // Header names are case-insensitive, as the host's Headers are.
  const observer = observeRequest('contracts.summary', (name) => headers[name.toLowerCase()] ?? null, span, log);
  const finish = () => {
    span.end();
    return exporter.getFinishedSpans()[0]!;
  };
  return { observer, lines, finish };
}

const principal = { clientId: 'client-1', dataTenant: 'contoso', roles: ['Data.Read'] };

describe('the request observer', () => {
  it('keeps the gateway\'s request id and the caller\'s own, and makes one when the gateway gave none', () => {
    expect(observed({ 'x-request-id': 'gw-1' }).observer.requestId).toBe('gw-1');
    expect(observed().observer.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const { observer, lines } = observed({ 'x-request-id': 'gw-1', 'x-client-request-id': 'run:7' });
    observer.finished({ status: 200, headers: {}, body: 'ab', records: 0 }, { principal, format: 'json' });
    expect(lines[0]).toMatchObject({ requestId: 'gw-1', clientRequestId: 'run:7' });
  });

  it('writes one line of the answer and what it was told at the end: caller, bytes, records, store cost', () => {
    const { observer, lines, finish } = observed({ 'x-request-id': 'gw-2' });
    const answer = { status: 200, headers: {}, body: Buffer.from('é'), records: 3, store: { documents: 4, requestCharge: 2.345 } };
    expect(observer.finished(answer, { principal, format: 'parquet' })).toBe(answer);
    expect(lines).toEqual([{
      requestId: 'gw-2', clientRequestId: null, operation: 'contracts.summary', clientId: 'client-1', dataTenant: 'contoso', status: 200,
      code: null, reason: null, durationMs: expect.any(Number), records: 3, storeDocuments: 4, requestCharge: 2.35, bytes: 2,
    }]);
    // The line's members in this order: log queries and dashboards read it as it is written.
    expect(Object.keys(lines[0]!)).toEqual(['requestId', 'clientRequestId', 'operation', 'clientId', 'dataTenant', 'status', 'code', 'reason', 'durationMs', 'records', 'storeDocuments', 'requestCharge', 'bytes']);
    expect(finish().attributes).toMatchObject({ 'summary.operation': 'contracts.summary', 'summary.format': 'parquet', 'summary.client_id': 'client-1', 'summary.records': 3, 'http.response.status_code': 200 });
  });

  it('names a failure by its code and reason, marks a 5xx span as failed, and knows no caller it was not told of', () => {
    const { observer, lines, finish } = observed();
    const error = new ApiError('STORE_UNAVAILABLE', 'down');
    observer.finished({ status: 503, headers: {}, body: '{}', records: 0 }, { failure: { code: 'STORE_UNAVAILABLE', error } });
    expect(lines[0]).toMatchObject({ status: 503, code: 'STORE_UNAVAILABLE', reason: null, clientId: null, dataTenant: null, storeDocuments: null, requestCharge: null });
    const span = finish();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['summary.error_code']).toBe('STORE_UNAVAILABLE');
    expect(span.attributes).not.toHaveProperty('summary.format');
  });

  it('carries the reason an error gives beside its code, in the line and the span', () => {
    const { observer, lines, finish } = observed();
    const error = new ApiError('INVALID_TOKEN', 'expired', { reason: 'expired' });
    observer.finished({ status: 401, headers: {}, body: '{}', records: 0 }, { failure: { code: 'INVALID_TOKEN', error } });
    expect(lines[0]).toMatchObject({ code: 'INVALID_TOKEN', reason: 'expired' });
    expect(finish().attributes).toMatchObject({ 'summary.error_code': 'INVALID_TOKEN', 'summary.error_reason': 'expired' });
  });

  it('adds what cleaning found, only when it found something', () => {
    const { observer, lines } = observed();
    const cleaning = { nulled: 1, recordsLeftOut: 2, linesLeftOut: 0, problems: [{ record: 'C1', field: 'title' }] };
    observer.finished({ status: 200, headers: {}, body: '', records: 1, cleaning }, { principal, format: 'json' });
    expect(lines[0]!.malformed).toEqual({ recordsLeftOut: 2, linesLeftOut: 0, nulled: 1, where: [{ record: 'C1', field: 'title' }] });
  });
});
