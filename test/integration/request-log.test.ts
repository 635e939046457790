import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { accessClaims, callService, startTestService, type TestService } from '../support/test-service.js';

// One log line per request, with the same fields whoever answered it: the pipeline, the host
// (404, 405) or the gateway (a refused subscription key). Our request id, the caller's recorded.
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.stop();
});

const FIELDS = ['bytes', 'clientId', 'clientRequestId', 'code', 'dataTenant', 'durationMs', 'operation', 'reason', 'records', 'requestCharge', 'requestId', 'status', 'storeDocuments'];

function lineFor(requestId: string): Record<string, unknown> {
  const lines = service.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.requestId === requestId && 'status' in line);
  expect(lines).toHaveLength(1);
  const { level: _level, ...line } = lines[0]!;
  return line;
}

describe('the request log', () => {
  it('has one line with the same fields for a served request, a 404, a 405 and a refused subscription key', async () => {
    const token = await service.idp!.signToken(accessClaims(service, 'contoso-basic'));
    const credentials = { authorization: `Bearer ${token}`, 'x-api-key': service.identities.apiKeys[0]!, 'x-request-id': 'my-run:7' };
    const served = await callService(service, 'contracts', { headers: credentials, body: '{"pageSize":2}' });
    const notFound = await fetch(`${service.baseUrl}/v1/suppliers/summary`, { method: 'POST', headers: { 'ocp-apim-subscription-key': service.identities.subscriptionKeys[0]! } });
    const wrongMethod = await fetch(`${service.baseUrl}/v1/contracts/summary`, { method: 'GET', headers: { 'ocp-apim-subscription-key': service.identities.subscriptionKeys[0]! } });
    const refused = await fetch(`${service.baseUrl}/v1/contracts/summary`, { method: 'POST', headers: { 'x-request-id': 'my-run:8' } });
    const expected: [Response, number, string | null, string | null][] = [
      [served, 200, 'contracts.summary', 'my-run:7'],
      [notFound, 404, null, null],
      [wrongMethod, 405, null, null],
      [refused, 401, null, 'my-run:8'],
    ];
    for (const [response, status, operation, clientRequestId] of expected) {
      const requestId = response.headers.get('x-request-id')!;
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      const line = lineFor(requestId);
      expect(Object.keys(line).sort()).toEqual(FIELDS);
      expect([line.status, line.operation, line.clientRequestId]).toEqual([status, operation, clientRequestId]);
    }
    expect(lineFor(served.headers.get('x-request-id')!)).toMatchObject({ clientId: expect.any(String), dataTenant: 'contoso', records: 2 });
  });
});
