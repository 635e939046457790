import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGateway } from '../../dev/gateway.js';
import type { RequestLogEntry } from '../../shared/telemetry/request-log-entry.js';

// The local stand-in for API Management, on a real loopback server, in front of a host listener
// that records what the function side would see.
const KEY = 'dev-subscription-key-test-0001';
let server: Server;
let url: string;
let seen: { headers: IncomingHttpHeaders; requestId: string }[] = [];
const logged: RequestLogEntry[] = [];

beforeAll(async () => {
  const gateway = createGateway([KEY, 'dev-subscription-key-test-0002'], async (request, response, requestId) => {
    seen.push({ headers: { ...request.headers }, requestId });
    response.writeHead(204);
    response.end();
  }, (entry) => logged.push(entry));
  server = createServer((request, response) => void gateway(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/contracts/summary`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the local gateway', () => {
  it('strips the subscription key before the function sees the request', async () => {
    seen = [];
    const response = await fetch(url, { method: 'POST', headers: { 'ocp-apim-subscription-key': KEY, 'x-api-key': 'kept' } });
    expect(response.status).toBe(204);
    expect(seen[0]?.headers).not.toHaveProperty('ocp-apim-subscription-key');
    expect(seen[0]?.headers['x-api-key']).toBe('kept');
  });

  it('gives every request an id of its own, whatever the caller sent in X-Request-ID', async () => {
    seen = [];
    await fetch(url, { method: 'POST', headers: { 'ocp-apim-subscription-key': KEY } });
    await fetch(url, { method: 'POST', headers: { 'ocp-apim-subscription-key': KEY, 'x-request-id': 'abc-123' } });
    await fetch(url, { method: 'POST', headers: { 'ocp-apim-subscription-key': KEY, 'x-request-id': 'abc-123' } });
    for (const request of seen) {
      expect(request.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(request.requestId).toBe(request.headers['x-request-id']);
    }
    expect(new Set(seen.map((request) => request.requestId)).size).toBe(3);
  });

  it('passes a valid caller id on and echoes it as X-Client-Request-ID, drops an invalid one, and ignores a forged one', async () => {
    seen = [];
    const kept = await fetch(url, { method: 'POST', headers: { 'ocp-apim-subscription-key': KEY, 'x-request-id': 'pipeline-run:42' } });
    expect(kept.headers.get('x-client-request-id')).toBe('pipeline-run:42');
    expect(seen[0]?.headers['x-client-request-id']).toBe('pipeline-run:42');
    const dropped = await fetch(url, { method: 'POST', headers: { 'ocp-apim-subscription-key': KEY, 'x-request-id': 'has spaces' } });
    expect(dropped.headers.get('x-client-request-id')).toBeNull();
    expect(seen[1]?.headers).not.toHaveProperty('x-client-request-id');
    await fetch(url, { method: 'POST', headers: { 'ocp-apim-subscription-key': KEY, 'x-client-request-id': 'forged' } });
    expect(seen[2]?.headers).not.toHaveProperty('x-client-request-id');
  });

  it('accepts every subscription key and refuses a missing or wrong one with 401 problem+json', async () => {
    seen = [];
    expect((await fetch(url, { method: 'POST', headers: { 'ocp-apim-subscription-key': 'dev-subscription-key-test-0002' } })).status).toBe(204);
    const attempts: Record<string, string>[] = [{}, { 'ocp-apim-subscription-key': 'wrong' }, { 'ocp-apim-subscription-key': `${KEY}0` }];
    for (const headers of attempts) {
      const response = await fetch(url, { method: 'POST', headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      const problem = (await response.json()) as { code: string; requestId: string };
      expect(problem.code).toBe('INVALID_SUBSCRIPTION_KEY');
      expect(problem.requestId).toBe(response.headers.get('x-request-id'));
    }
    expect(seen).toHaveLength(1);
    expect(logged.at(-1)).toMatchObject({ status: 401, code: 'INVALID_SUBSCRIPTION_KEY', operation: null, clientId: null, records: 0 });
    expect(Object.keys(logged.at(-1)!).sort()).toEqual(['bytes', 'clientId', 'clientRequestId', 'code', 'dataTenant', 'durationMs', 'operation', 'reason', 'records', 'requestCharge', 'requestId', 'status', 'storeDocuments']);
    expect(JSON.stringify(logged)).not.toContain(KEY);
  });
});
