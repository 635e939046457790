import { CONTRACTS } from '../../shared/model/contracts.js';
import { describe, expect, it } from '@jest/globals';
import azureFunctions from '@azure/functions';
import { loadConfig } from '../../shared/config/load-config.js';
import { createSummaryDeps } from '../../shared/http/create-summary-deps.js';
import { handleSummary } from '../../shared/http/handle-summary.js';
import type { RequestLogEntry } from '../../shared/http/request-log-entry.js';
import { accessToken, identities, tokenResponse } from '../support/stack.js';

// The pipeline in-process, built by the production factory against the real local stack
// (embedded Cosmos through the SDK, the dev identity provider), with settings a test can vary.
function depsWith(settings: Record<string, string>, lines: string[] = []) {
  const config = loadConfig({ ...process.env, ...settings });
  return createSummaryDeps(config, {
    log: {
      request: (entry: RequestLogEntry) => lines.push(JSON.stringify(entry)),
      fault: (requestId, error) => lines.push(JSON.stringify({ requestId, fault: String(error) })),
      warning: (requestId, message) => lines.push(JSON.stringify({ requestId, warning: message })),
    },
  });
}

async function request(body: unknown, as = 'contoso-full', headers: Record<string, string> = {}) {
  return new azureFunctions.HttpRequest({
    method: 'POST',
    url: 'http://localhost/api/v1/contracts/summary',
    headers: {
      authorization: `Bearer ${await accessToken(as)}`,
      'x-api-key': identities.apiKeys[1]!,
      'content-type': 'application/json',
      ...headers,
    },
    body: { string: JSON.stringify(body) },
  });
}

describe('the summary pipeline in-process', () => {
  it('refuses a page beyond MAX_RESULT_WINDOW and points to narrower filters or Parquet', async () => {
    const deps = depsWith({ MAX_RESULT_WINDOW: '50', MAX_PAGE_SIZE: '20' });
    const ok = await handleSummary(CONTRACTS, await request({ page: 3, pageSize: 10 }), deps);
    expect(ok.status).toBe(200);
    const refused = await handleSummary(CONTRACTS, await request({ page: 6, pageSize: 10 }), deps);
    expect(refused.status).toBe(400);
    const problem = JSON.parse(refused.body as string) as { code: string; detail: string };
    expect(problem.code).toBe('RESULT_WINDOW_EXCEEDED');
    expect(problem.detail).toMatch(/Parquet/);
  });

  it('answers 503 STORE_UNAVAILABLE with Retry-After and no partial body when the store is down', async () => {
    const lines: string[] = [];
    const deps = depsWith({ COSMOS_ENDPOINT: 'https://127.0.0.1:9', STORE_TIMEOUT_MS: '3000' }, lines);
    const response = await handleSummary(CONTRACTS, await request({}), deps);
    expect(response.status).toBe(503);
    expect(response.headers['Retry-After']).toMatch(/^\d+$/);
    const problem = JSON.parse(response.body as string) as Record<string, unknown>;
    expect(problem.code).toBe('STORE_UNAVAILABLE');
    expect(problem).not.toHaveProperty('data');
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ status: 503, code: 'STORE_UNAVAILABLE' });
  }, 20000);

  it('writes one structured line per request with no token, key, secret or body', async () => {
    const lines: string[] = [];
    const deps = depsWith({}, lines);
    const marker = 'CW0042';
    const { access_token, id_token } = await tokenResponse('contoso-full');
    await handleSummary(CONTRACTS, await request({ contractWorkspaceID: marker }), deps);
    await handleSummary(CONTRACTS, await request({ bogus: marker }), deps);
    await handleSummary(CONTRACTS, await request({}, 'contoso-full', { 'x-api-key': 'dev-api-key-wrong-9999' }), deps);
    expect(lines).toHaveLength(3);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries[0]).toMatchObject({ operation: 'contracts.summary', clientId: expect.any(String), dataTenant: 'contoso', status: 200 });
    expect(Object.keys(entries[0]!).sort()).toEqual(['bytes', 'clientId', 'clientRequestId', 'code', 'dataTenant', 'durationMs', 'operation', 'reason', 'records', 'requestCharge', 'requestId', 'status', 'storeDocuments']);
    expect(entries[2]).toMatchObject({ status: 401, code: 'INVALID_API_KEY', clientId: null });
    const secrets = [access_token, id_token, access_token.split('.')[2]!, ...identities.apiKeys, 'dev-api-key-wrong-9999', ...identities.clients.map((c) => c.clientSecret), marker, 'bogus'];
    for (const line of lines) for (const secret of secrets) expect(line).not.toContain(secret);
  });
});
