import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SignTokenOptions } from '../../dev/identity-provider.js';
import { requestTokens } from '../../dev/request-tokens.js';
import { accessClaims, callService, startTestService, type TestService } from '../support/test-service.js';

// OWASP API2 (broken authentication), over HTTP against a service of this file's own whose
// identity provider signs whatever the attack needs. Every refusal is problem+json with
// X-Request-ID; the key set is fetched through a counting fetch.
let service: TestService;
const keySetFetches: string[] = [];

beforeAll(async () => {
  service = await startTestService({
    settings: { AUTH_CLOCK_TOLERANCE_SECONDS: '0' },
    verifier: {
      refetchCooldownMs: 60_000,
      fetch: (async (url: string, init: RequestInit) => {
        keySetFetches.push(String(url));
        return fetch(url, init);
      }) as typeof fetch,
    },
  });
});

afterAll(async () => {
  await service.stop();
});

const apiKey = () => service.identities.apiKeys[0]!;

async function answer(token: string | undefined, extra: Record<string, string> = {}) {
  const response = await callService(service, 'contracts', {
    headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), 'x-api-key': apiKey(), ...extra },
    body: '{"pageSize":1}',
  });
  const requestId = response.headers.get('x-request-id');
  const body = (await response.json()) as { code?: string; requestId?: string };
  if (response.status !== 200) {
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(body.requestId).toBe(requestId);
  }
  return { status: response.status, code: body.code, challenge: response.headers.get('www-authenticate') };
}

const sign = (claims: Record<string, unknown>, options?: Parameters<NonNullable<TestService['idp']>['signToken']>[1]) => service.idp!.signToken(claims, options);

function realKid(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;
}

describe('forged and misused tokens over HTTP', () => {
  it('accepts a genuine token (the control case)', async () => {
    expect((await answer(await sign(accessClaims(service, 'contoso-full')))).status).toBe(200);
  });

  it.each<[string, SignTokenOptions]>([
    ['alg none', { alg: 'none' }],
    ['HS256 signed with the public key', { alg: 'HS256' }],
    ['RS384 with the valid key (algorithms are pinned)', { alg: 'RS384' }],
    ['another key under an unknown kid', { key: 'other' }],
  ])('refuses %s with 401 INVALID_TOKEN', async (_label, options) => {
    const result = await answer(await sign(accessClaims(service, 'contoso-full'), options));
    expect(result).toEqual({ status: 401, code: 'INVALID_TOKEN', challenge: expect.stringMatching(/^Bearer error="invalid_token", error_description="[^"]+"$/) });
  });

  const now = () => Math.floor(Date.now() / 1000);
  it.each<[string, () => Promise<string>, string]>([
    ['an expired token', () => sign(accessClaims(service, 'contoso-full', { exp: now() - 5 })), 'expired'],
    ['a token not yet valid', () => sign(accessClaims(service, 'contoso-full', { nbf: now() + 120 })), 'not yet valid'],
    ['a token signed by another key', () => sign(accessClaims(service, 'contoso-full'), { key: 'other' }), 'signature'],
    ['an HS256 token', () => sign(accessClaims(service, 'contoso-full'), { alg: 'HS256' }), 'signature'],
    ['a token for another audience', () => sign(accessClaims(service, 'contoso-full', { aud: 'api://another-app' })), 'audience'],
    ['a token from another issuer', () => sign(accessClaims(service, 'contoso-full', { iss: 'https://login.example.invalid/other/v2.0' })), 'issuer'],
    ['a token for another tenant', () => sign(accessClaims(service, 'contoso-full', { tid: '99999999-9999-4999-8999-999999999999' })), 'tenant'],
    ['a user-delegated token', () => sign(accessClaims(service, 'contoso-full', { idtyp: 'user', scp: 'user_impersonation' })), 'not an app token'],
    ['garbage', async () => 'not.a.jwt', 'malformed'],
  ])('says why it refuses %s: the reason in WWW-Authenticate, the detail and the log line', async (_label, mint, reason) => {
    const before = service.logs.length;
    const token = await mint();
    const response = await callService(service, 'contracts', { headers: { authorization: `Bearer ${token}`, 'x-api-key': service.identities.apiKeys[0]! }, body: '{}' });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate')!;
    const description = /error_description="([^"]+)"/.exec(challenge)?.[1];
    expect(description).toBeDefined();
    const problem = (await response.json()) as { code: string; detail: string };
    expect(problem.code).toBe('INVALID_TOKEN');
    expect(problem.detail.startsWith(description!)).toBe(true);
    const lines = service.logs.slice(before).map((line) => JSON.parse(line) as { reason?: string; status?: number }).filter((line) => line.status === 401);
    expect(lines.map((line) => line.reason)).toEqual([reason]);
    expect(challenge.includes(token.split('.')[2] ?? '∅')).toBe(false);
  });

  it('refuses a token signed by another key under the real kid', async () => {
    const kid = realKid(await sign(accessClaims(service, 'contoso-full')));
    expect((await answer(await sign(accessClaims(service, 'contoso-full'), { key: 'other', kid }))).code).toBe('INVALID_TOKEN');
  });

  it.each([
    ['expired', () => ({ exp: Math.floor(Date.now() / 1000) - 5 })],
    ['not yet valid', () => ({ nbf: Math.floor(Date.now() / 1000) + 60 })],
    ['missing exp', () => ({ exp: undefined })],
    ['from another issuer', () => ({ iss: 'https://login.example.invalid/other/v2.0' })],
    ['for another audience', () => ({ aud: 'api://another-app' })],
    ['issued for another tenant', () => ({ tid: '99999999-9999-4999-8999-999999999999' })],
  ])('refuses a token %s with 401', async (_label, overrides) => {
    const claims = accessClaims(service, 'contoso-full', overrides());
    for (const [key, value] of Object.entries(claims)) if (value === undefined) delete claims[key];
    expect((await answer(await sign(claims))).code).toBe('INVALID_TOKEN');
  });

  it('refuses the id_token of a real token response', async () => {
    const tokens = await requestTokens(service.idp!.url, service.identities, 'contoso-full');
    expect((await answer(tokens.access_token)).status).toBe(200);
    expect((await answer(tokens.id_token)).code).toBe('INVALID_TOKEN');
  });

  it('answers a token without Data.Read with 403 MISSING_ROLE, and an unregistered client with 403 CLIENT_NOT_REGISTERED', async () => {
    expect(await answer(await sign(accessClaims(service, 'contoso-norole')))).toMatchObject({ status: 403, code: 'MISSING_ROLE' });
    expect(await answer(await sign(accessClaims(service, 'unregistered-app')))).toMatchObject({ status: 403, code: 'CLIENT_NOT_REGISTERED' });
  });

  it('refetches the key set at most once per cooldown under a flood of unknown kids', async () => {
    const before = keySetFetches.length;
    const claims = accessClaims(service, 'contoso-full');
    const results = await Promise.all(Array.from({ length: 40 }, async (_, i) => answer(await sign(claims, { kid: `unknown-kid-${i}` }))));
    expect(results.every((result) => result.code === 'INVALID_TOKEN')).toBe(true);
    expect(keySetFetches.length - before).toBeLessThanOrEqual(1);
    expect((await answer(await sign(claims))).status).toBe(200);
  });

  it('never serves a cached verification past the token exp', async () => {
    const exp = Math.floor(Date.now() / 1000) + 2;
    const token = await sign(accessClaims(service, 'contoso-full', { exp }));
    expect((await answer(token)).status).toBe(200);
    expect((await answer(token)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 50));
    expect((await answer(token)).code).toBe('INVALID_TOKEN');
  });
});

describe('the backend key over HTTP', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['wrong', 'dev-api-key-wrong-0000000'],
    ['one character short', 'dev-api-key-primary-000'],
    ['much longer', `dev-api-key-primary-0001${'x'.repeat(500)}`],
    ['another key in another case', 'DEV-API-KEY-PRIMARY-0001'],
  ])('refuses a %s x-api-key with 401 INVALID_API_KEY', async (_label, key) => {
    const token = await sign(accessClaims(service, 'contoso-full'));
    const response = await callService(service, 'contracts', { headers: { authorization: `Bearer ${token}`, ...(key === undefined ? {} : { 'x-api-key': key }) } });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('INVALID_API_KEY');
  });

  it('rotates keys: two valid at once, then the retired one refused', async () => {
    const [oldKey, newKey] = ['dev-api-key-old-rotation-01', 'dev-api-key-new-rotation-02'];
    const during = await startTestService({ settings: { API_KEYS: `${oldKey},${newKey}` } });
    const after = await startTestService({ settings: { API_KEYS: newKey } });
    try {
      for (const [svc, key, status] of [[during, oldKey, 200], [during, newKey, 200], [after, newKey, 200], [after, oldKey, 401]] as const) {
        const token = await svc.idp!.signToken(accessClaims(svc, 'contoso-basic'));
        const response = await callService(svc, 'contracts', { headers: { authorization: `Bearer ${token}`, 'x-api-key': key } });
        expect(response.status).toBe(status);
      }
    } finally {
      await during.stop();
      await after.stop();
    }
  });
});

describe('what the logs keep of all this', () => {
  it('never holds a token, key or secret', async () => {
    const secrets = [...service.identities.apiKeys, ...service.identities.subscriptionKeys, ...service.identities.clients.map((client) => client.clientSecret), 'dev-api-key-wrong-0000000', 'eyJ'];
    expect(service.logs.length).toBeGreaterThan(20);
    for (const line of service.logs) for (const secret of secrets) expect(line).not.toContain(secret);
  });
});
