import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGateway, type GatewayLogEntry } from '../../dev/gateway.js';

// The local stand-in for API Management, on a real loopback server, in front of a host listener
// that records what the function side would see.
const KEY = 'dev-subscription-key-test-0001';
let server: Server;
let url: string;
let seen: { headers: IncomingHttpHeaders; requestId: string }[] = [];
const logged: GatewayLogEntry[] = [];

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

  it('sets X-Request-ID when the caller sent none, and keeps a valid one', async () => {
    seen = [];
    await fetch(url, { method: 'POST', headers: { 'ocp-apim-subscription-key': KEY } });
    await fetch(url, { method: 'POST', headers: { 'ocp-apim-subscription-key': KEY, 'x-request-id': 'abc-123' } });
    expect(seen[0]?.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[0]?.requestId).toBe(seen[0]?.headers['x-request-id']);
    expect(seen[1]?.requestId).toBe('abc-123');
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
    expect(logged.at(-1)).toMatchObject({ status: 401, code: 'INVALID_SUBSCRIPTION_KEY' });
    expect(JSON.stringify(logged)).not.toContain(KEY);
  });
});
