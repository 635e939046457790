/**
 * What the service reports to OpenTelemetry: spans and metrics through `@opentelemetry/api` only
 * (no SDK here: without a registered provider every call is a no-op, so tests and the local stack
 * pay nothing). Where they go is decided at start-up (`start-telemetry.ts`: Application Insights
 * in Azure). Attributes are identifiers and figures only: never a token, key, secret, header or
 * body.
 */
import { context, isSpanContextValid, metrics, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Counter, type Histogram, type Meter, type Span } from '@opentelemetry/api';

const SCOPE = 'summary-data-service';

/** The tracer of the service's own spans (a proxy: it follows whatever provider is registered). */
export const tracer = trace.getTracer(SCOPE);

/**
 * Runs `work` in a child span of `parent` (the active context); an exception marks the span as
 * failed. A span that nothing records and that carries no trace to pass on (no provider is
 * registered and no caller's trace came in: tests, the local stack) is not made active: the work
 * runs as it is: there is no context to carry.
 */
export function inSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL, parent: Context = context.active()): Promise<T> {
  const span = tracer.startSpan(name, { kind, attributes }, parent);
  if (!span.isRecording() && !isSpanContextValid(span.spanContext())) {
    try {
      return work(span);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs a request's work in a server span that continues the caller's W3C trace (`traceparent`,
 * as API Management or the local gateway send it), or starts one.
 */
export function inRequestSpan<T>(name: string, header: (name: string) => string | null, work: (span: Span) => Promise<T>): Promise<T> {
  const parent = propagation.extract(context.active(), {}, { keys: () => ['traceparent', 'tracestate'], get: (_carrier, key) => header(key) ?? undefined });
  return inSpan(name, {}, work, SpanKind.SERVER, parent);
}

interface Instruments {
  readonly cursorFailures: Counter;
  readonly duration: Histogram;
  readonly exportBytes: Histogram;
  readonly requestCharge: Histogram;
}

// The metrics API has no proxy: a meter taken before a provider is registered stays a no-op, so
// instruments are made from the provider current at the time of recording.
const made = new WeakMap<Meter, Instruments>();
function instruments(): Instruments {
  const meter = metrics.getMeter(SCOPE);
  let found = made.get(meter);
  if (!found) {
    found = {
      cursorFailures: meter.createCounter('summary.page_cursors.failures', { description: 'Page cursor reads and writes that failed, timed out or were skipped by the breaker: the page was read without them.' }),
      duration: meter.createHistogram('summary.request.duration', { unit: 'ms', description: 'Duration of a summary request, by operation, format and status.' }),
      exportBytes: meter.createHistogram('summary.export.bytes', { unit: 'By', description: 'Bytes of a Parquet or zip export.' }),
      requestCharge: meter.createHistogram('summary.store.request_charge', { unit: '{RU}', description: 'Request charge the store reported for a request, by operation and data tenant.' }),
    };
    made.set(meter, found);
  }
  return found;
}

/** What one request is recorded with. */
export interface RequestFigures {
  readonly operation: string;
  readonly format: string | null;
  readonly status: number;
  readonly dataTenant: string | null;
  readonly durationMs: number;
  readonly exportBytes: number | null;
  readonly requestCharge: number | null;
}

/** Records a request's metrics. */
export function recordRequest(figures: RequestFigures): void {
  const { duration, exportBytes, requestCharge } = instruments();
  const dimensions = { 'summary.operation': figures.operation, 'summary.format': figures.format ?? 'none', 'http.response.status_code': figures.status };
  duration.record(figures.durationMs, dimensions);
  if (figures.exportBytes !== null) exportBytes.record(figures.exportBytes, { 'summary.operation': figures.operation });
  if (figures.requestCharge !== null) requestCharge.record(figures.requestCharge, { 'summary.operation': figures.operation, 'summary.data_tenant': figures.dataTenant ?? 'none' });
}

/** Counts a page cursor call that did not help: which call, and why. */
export function recordCursorFailure(call: 'get' | 'put', reason: string): void {
  instruments().cursorFailures.add(1, { 'summary.cursor_call': call, 'summary.cursor_failure': reason });
}
