import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import azureFunctions from '@azure/functions';
import { CONTRACTS } from '../../shared/model/contracts.js';
import { loadConfig } from '../../shared/config/load-config.js';
import { createSummaryDeps } from '../../shared/app/create-summary-deps.js';
import { handleSummary } from '../../shared/http/handle-summary.js';
import { summaryEndpoint } from '../../shared/http/summary-endpoint.js';
import { createCosmosClient } from '../../shared/store/create-cosmos-client.js';
import type { RequestLogEntry } from '../../shared/telemetry/request-log-entry.js';
import { startCosmosServer, type RunningCosmosServer } from '../../dev/cosmos-server.js';
import { startIdentityProvider, type IdentityProvider } from '../../dev/identity-provider.js';
import { throwawayServerCertificate } from '../../dev/local-ca.js';
import { loadDevIdentities } from '../../dev/identities.js';
import { localServiceSettings } from '../../dev/local-stack.js';
import { requestTokens, type TokenResponse } from '../../dev/request-tokens.js';
import { seedStore } from '../../dev/seed-store.js';

// The pipeline in-process, built by the production factory, with the parts it talks to started
// here and no stack: the embedded Cosmos server (seeded through the SDK, reached over HTTPS on
// loopback) and the dev identity provider (its JWKS fetched by the real verifier). Settings vary
// per test.
const identities = loadDevIdentities();
/** Enough for a jump past a result window of 50. */
const RECORDS_PER_TENANT = 60;
let cosmos: RunningCosmosServer;
let idp: IdentityProvider;
let baseSettings: Record<string, string>;
const tokens = new Map<string, TokenResponse>();

beforeAll(async () => {
  cosmos = await startCosmosServer({ port: 0 });
  const client = createCosmosClient({ endpoint: cosmos.endpoint, key: cosmos.key, allowSelfSignedTls: true });
  try {
    await seedStore(client, { tenants: ['contoso'], recordsPerTenant: RECORDS_PER_TENANT });
  } finally {
    client.dispose();
  }
  idp = await startIdentityProvider({ identities, certificate: await throwawayServerCertificate() });
  for (const name of ['contoso-full']) tokens.set(name, await requestTokens(idp.url, identities, name));
  baseSettings = { ...localServiceSettings(identities, idp.url, cosmos), LOG_REQUESTS: 'false' };
}, 60000);

afterAll(async () => {
  await idp?.stop();
  await cosmos?.stop();
});

function depsWith(settings: Record<string, string>, lines: string[] = [], clock?: () => number) {
  const config = loadConfig({ ...baseSettings, ...settings });
  return createSummaryDeps(config, {
    ...(clock ? { clock } : {}),
    log: {
      request: (entry: RequestLogEntry) => lines.push(JSON.stringify(entry)),
      fault: (requestId, error) => lines.push(JSON.stringify({ requestId, fault: String(error) })),
      warning: (requestId, message) => lines.push(JSON.stringify({ requestId, warning: message })),
    },
  });
}

function request(body: unknown, as = 'contoso-full', headers: Record<string, string> = {}) {
  return new azureFunctions.HttpRequest({
    method: 'POST',
    url: 'http://localhost/api/v1/contracts/summary',
    headers: {
      authorization: `Bearer ${tokens.get(as)!.access_token}`,
      'x-api-key': identities.apiKeys[1]!,
      'content-type': 'application/json',
      ...headers,
    },
    body: { string: JSON.stringify(body) },
  });
}

describe('the summary pipeline in-process', () => {
  it('answers a page of the caller\'s records from the store', async () => {
    const response = await handleSummary(summaryEndpoint(CONTRACTS, depsWith({})), request({ pageSize: 7 }));
    expect(response.status).toBe(200);
    const envelope = JSON.parse(Buffer.from(response.body as Uint8Array).toString('utf8')) as { data: unknown[]; pagination: { totalRecords: number } };
    expect(envelope.data).toHaveLength(7);
    expect(envelope.pagination.totalRecords).toBe(RECORDS_PER_TENANT);
  });

  it('reads one clock everywhere: moved past the token\'s expiry, the same token is refused, then taken again', async () => {
    let now = Date.now();
    const deps = depsWith({}, [], () => now);
    const endpoint = summaryEndpoint(CONTRACTS, deps);
    const body = (answer: { body: string | Uint8Array }) => JSON.parse(Buffer.from(answer.body).toString('utf8')) as { code?: string; meta?: { generatedAt: string } };
    const first = await handleSummary(endpoint, request({ pageSize: 1 }));
    expect([first.status, body(first).meta?.generatedAt]).toEqual([200, new Date(now).toISOString()]);
    // Two hours on (dev tokens live one hour): the remembered credentials and the verifier both see it.
    now += 2 * 3_600_000;
    const later = await handleSummary(endpoint, request({ pageSize: 1 }));
    expect([later.status, body(later).code]).toEqual([401, 'INVALID_TOKEN']);
    now -= 2 * 3_600_000;
    expect((await handleSummary(endpoint, request({ pageSize: 1 }))).status).toBe(200);
  });

  it('refuses a page beyond MAX_RESULT_WINDOW and points to narrower filters or Parquet', async () => {
    const deps = depsWith({ MAX_RESULT_WINDOW: '50', MAX_PAGE_SIZE: '20' });
    const ok = await handleSummary(summaryEndpoint(CONTRACTS, deps), request({ page: 3, pageSize: 10 }));
    expect(ok.status).toBe(200);
    const refused = await handleSummary(summaryEndpoint(CONTRACTS, deps), request({ page: 6, pageSize: 10 }));
    expect(refused.status).toBe(400);
    const problem = JSON.parse(refused.body as string) as { code: string; detail: string };
    expect(problem.code).toBe('RESULT_WINDOW_EXCEEDED');
    expect(problem.detail).toMatch(/Parquet/);
  });

  it('answers 503 STORE_UNAVAILABLE with Retry-After and no partial body when the store is down', async () => {
    const lines: string[] = [];
    const deps = depsWith({ COSMOS_ENDPOINT: 'https://127.0.0.1:9', STORE_TIMEOUT_MS: '3000' }, lines);
    const response = await handleSummary(summaryEndpoint(CONTRACTS, deps), request({}));
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
    const { access_token, id_token } = tokens.get('contoso-full')!;
    await handleSummary(summaryEndpoint(CONTRACTS, deps), request({ contractWorkspaceID: marker }));
    await handleSummary(summaryEndpoint(CONTRACTS, deps), request({ bogus: marker }));
    await handleSummary(summaryEndpoint(CONTRACTS, deps), request({}, 'contoso-full', { 'x-api-key': 'dev-api-key-wrong-9999' }));
    expect(lines).toHaveLength(3);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries[0]).toMatchObject({ operation: 'contracts.summary', clientId: expect.any(String), dataTenant: 'contoso', status: 200 });
    expect(Object.keys(entries[0]!).sort()).toEqual(['bytes', 'clientId', 'clientRequestId', 'code', 'dataTenant', 'durationMs', 'operation', 'reason', 'records', 'requestCharge', 'requestId', 'status', 'storeDocuments']);
    expect(entries[1]).toMatchObject({ status: 400, code: 'UNKNOWN_FILTER' });
    expect(entries[2]).toMatchObject({ status: 401, code: 'INVALID_API_KEY', clientId: null });
    const secrets = [access_token, id_token, access_token.split('.')[2]!, ...identities.apiKeys, 'dev-api-key-wrong-9999', ...identities.clients.map((c) => c.clientSecret), marker, 'bogus'];
    for (const line of lines) for (const secret of secrets) expect(line).not.toContain(secret);
  });
});
