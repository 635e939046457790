import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import azureFunctions from '@azure/functions';
import { metrics } from '@opentelemetry/api';
import { AggregationTemporality, MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { loadConfig } from '../../shared/config/load-config.js';
import { createAuthenticator, createSummaryDeps } from '../../shared/app/create-summary-deps.js';
import { createTokenVerifier } from '../../shared/auth/token-verifier.js';
import { handleSummary } from '../../shared/http/handle-summary.js';
import { summaryEndpoint } from '../../shared/http/summary-endpoint.js';
import { CONTRACTS } from '../../shared/model/contracts.js';
import { INVOICES } from '../../shared/model/invoices.js';
import type { ResourceDefinition } from '../../shared/model/resource-definition.js';
import { accessToken, identities } from '../support/stack.js';

// The spans and metrics of a request, through the production pipeline against the real store,
// read back with the OpenTelemetry SDK's in-memory exporters: what a platform engineer sees in
// Application Insights, and never a secret.
class PullReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

const spans = new InMemorySpanExporter();
const tracerProvider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const reader = new PullReader();
const meterProvider = new MeterProvider({ readers: [reader] });
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const silent = { request: () => {}, fault: () => {}, warning: () => {} };

beforeAll(() => {
  tracerProvider.register();
  metrics.setGlobalMeterProvider(meterProvider);
});

afterAll(async () => {
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
});

const deps = () => createSummaryDeps(loadConfig({ ...process.env, LOG_REQUESTS: 'false' }), { log: silent });

async function request(resource: ResourceDefinition, accept: string, token: string, body = '{"createdFrom":"2025-03-01","createdTo":"2025-03-31","pageSize":5}') {
  return new azureFunctions.HttpRequest({
    method: 'POST',
    url: `http://localhost/api/v1/${resource.name}/summary`,
    headers: {
      authorization: `Bearer ${token}`, 'x-api-key': identities.apiKeys[0]!, 'content-type': 'application/json', accept,
      'x-request-id': 'gateway-id-1', 'x-client-request-id': 'my-run:1', traceparent: `00-${TRACE_ID}-b7ad6b7169203331-01`,
    },
    body: { string: body },
  });
}

const byName = (list: ReadableSpan[], name: string) => list.filter((span) => span.name === name);

describe('telemetry', () => {
  it('has a request span continuing the caller\'s W3C trace, with the request\'s identifiers and figures', async () => {
    spans.reset();
    const token = await accessToken('contoso-full');
    const result = await handleSummary(summaryEndpoint(CONTRACTS, deps()), await request(CONTRACTS, 'application/json', token));
    expect(result.status).toBe(200);
    const [server] = byName(spans.getFinishedSpans(), 'POST /v1/contracts/summary');
    expect(server!.spanContext().traceId).toBe(TRACE_ID);
    expect(server!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(server!.attributes).toMatchObject({
      'summary.operation': 'contracts.summary', 'summary.format': 'json', 'http.response.status_code': 200, 'summary.data_tenant': 'contoso',
      'summary.client_id': expect.any(String), 'summary.records': 5, 'summary.bytes': expect.any(Number),
      'summary.request_id': 'gateway-id-1', 'summary.client_request_id': 'my-run:1',
    });
  });

  it('has child spans for the token check and for every store round trip, with documents and request charge', async () => {
    spans.reset();
    const token = await accessToken('contoso-basic');
    await handleSummary(summaryEndpoint(INVOICES, deps()), await request(INVOICES, 'application/json', token));
    const finished = spans.getFinishedSpans();
    const [server] = byName(finished, 'POST /v1/invoices/summary');
    const children = finished.filter((span) => span.parentSpanContext?.spanId === server!.spanContext().spanId);
    // The result's version (COUNT and MAX in one query), then the page.
    expect(children.map((span) => span.name).sort()).toEqual(['cosmos query', 'cosmos query', 'verify access token']);
    expect(byName(finished, 'verify access token')[0]!.attributes['summary.credentials_remembered']).toBeUndefined();
    const queries = byName(finished, 'cosmos query');
    for (const query of queries) {
      expect(query.attributes).toMatchObject({ 'db.system': 'cosmosdb', 'db.collection.name': 'invoices', 'summary.request_charge': expect.any(Number) });
    }
    expect(queries.map((query) => query.attributes['summary.documents']).sort()).toEqual([1, 5]);
  });

  it('has the token check\'s span also when the credentials are answered from memory', async () => {
    // The production deps, their verifier counted: the second request must not reach it.
    const config = loadConfig({ ...process.env, LOG_REQUESTS: 'false' });
    const verify = createTokenVerifier(config.auth);
    let verified = 0;
    const same = createSummaryDeps(config, { log: silent, authenticate: createAuthenticator(config, { verifyToken: (token) => (verified++, verify(token)) }) });
    const token = await accessToken('contoso-full');
    await handleSummary(summaryEndpoint(CONTRACTS, same), await request(CONTRACTS, 'application/json', token));
    spans.reset();
    const again = await handleSummary(summaryEndpoint(CONTRACTS, same), await request(CONTRACTS, 'application/json', token));
    expect(again.status).toBe(200);
    expect(verified).toBe(1);
    const finished = spans.getFinishedSpans();
    const [server] = byName(finished, 'POST /v1/contracts/summary');
    const checks = byName(finished, 'verify access token');
    expect(checks.map((span) => span.parentSpanContext?.spanId)).toEqual([server!.spanContext().spanId]);
    expect(checks[0]!.attributes['summary.credentials_remembered']).toBe(true);
  });

  it('marks a refused request with its error code, and a key-set fetch with its own span', async () => {
    spans.reset();
    const fresh = deps();
    await handleSummary(summaryEndpoint(CONTRACTS, fresh), await request(CONTRACTS, 'application/json', await accessToken('contoso-full')));
    expect(byName(spans.getFinishedSpans(), 'fetch key set').length).toBeGreaterThan(0);
    spans.reset();
    const refused = await handleSummary(summaryEndpoint(CONTRACTS, fresh), await request(CONTRACTS, 'application/json', await accessToken('contoso-full'), '{"bogus":1}'));
    expect(refused.status).toBe(400);
    const [server] = byName(spans.getFinishedSpans(), 'POST /v1/contracts/summary');
    expect(server!.attributes).toMatchObject({ 'http.response.status_code': 400, 'summary.error_code': 'UNKNOWN_FILTER' });
  });

  it('records request duration, export bytes and request charge as metrics', async () => {
    const token = await accessToken('contoso-full');
    await handleSummary(summaryEndpoint(CONTRACTS, deps()), await request(CONTRACTS, 'application/vnd.apache.parquet', token, '{"createdFrom":"2025-03-01","createdTo":"2025-03-31"}'));
    const { resourceMetrics } = await reader.collect();
    const found = (resourceMetrics as ResourceMetrics).scopeMetrics.flatMap((scope) => scope.metrics);
    const named = (name: string) => found.find((metric) => metric.descriptor.name === name);
    const duration = named('summary.request.duration')!;
    expect(duration.dataPoints.map((point) => point.attributes)).toEqual(expect.arrayContaining([
      { 'summary.operation': 'contracts.summary', 'summary.format': 'json', 'http.response.status_code': 200 },
      { 'summary.operation': 'contracts.summary', 'summary.format': 'parquet', 'http.response.status_code': 200 },
    ]));
    expect(named('summary.export.bytes')!.dataPoints.length).toBeGreaterThan(0);
    expect(named('summary.store.request_charge')!.dataPoints[0]!.attributes).toMatchObject({ 'summary.data_tenant': 'contoso' });
  });

  it('never carries a token, key or secret in a span', async () => {
    spans.reset();
    const token = await accessToken('contoso-full');
    await handleSummary(summaryEndpoint(CONTRACTS, deps()), await request(CONTRACTS, 'application/json', token));
    await handleSummary(summaryEndpoint(CONTRACTS, deps()), await request(CONTRACTS, 'application/json', `${token}x`));
    const text = JSON.stringify(spans.getFinishedSpans().map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status })));
    expect(text.length).toBeGreaterThan(500);
    for (const secret of [token, token.split('.')[2]!, ...identities.apiKeys, ...identities.subscriptionKeys, ...identities.clients.map((client) => client.clientSecret)]) {
      expect(text.includes(secret)).toBe(false);
    }
  });
});
