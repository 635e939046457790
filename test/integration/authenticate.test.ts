import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { authenticate } from '../../shared/auth/authenticate.js';
import { createApiKeyChecker } from '../../shared/auth/api-key-checker.js';
import { createTokenVerifier } from '../../shared/auth/token-verifier.js';
import { ApiError } from '../../shared/errors/api-error.js';
import { startIdentityProvider, type IdentityProvider } from '../../dev/identity-provider.js';
import { throwawayServerCertificate } from '../../dev/local-ca.js';
import { clientRegistry, loadDevIdentities } from '../../dev/identities.js';
import { requestTokens } from '../../dev/request-tokens.js';

// The credentials checks, each failure on its own, against the real dev identity provider over
// loopback (its JWKS is what the verifier fetches). Time is frozen: the provider and the
// verifier share one injected clock.
const identities = loadDevIdentities();
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const nowSeconds = Math.floor(NOW / 1000);
let idp: IdentityProvider;
let deps: Parameters<typeof authenticate>[1];

const API_KEY = identities.apiKeys[0]!;

const tokenFor = (name: string) => requestTokens(idp.url, identities, name);

function baseClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const client = identities.clients.find((candidate) => candidate.name === 'contoso-full')!;
  return {
    iss: idp.issuer, aud: identities.appId, tid: identities.tenantId, azp: client.clientId, roles: ['Data.Read'],
    iat: nowSeconds - 60, nbf: nowSeconds - 60, exp: nowSeconds + 3000, ver: '2.0', idtyp: 'app', ...overrides,
  };
}

async function failure(headers: { authorization: string | null; apiKey: string | null }): Promise<ApiError> {
  try {
    await authenticate(headers, deps);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}`, apiKey: API_KEY });

beforeAll(async () => {
  idp = await startIdentityProvider({ identities, certificate: await throwawayServerCertificate(), clock: () => NOW });
  deps = {
    checkApiKey: createApiKeyChecker(identities.apiKeys),
    verifyToken: createTokenVerifier(
      { issuer: idp.issuer, jwksUri: idp.jwksUri, tenantId: identities.tenantId, audiences: [identities.appId, `api://${identities.appId}`], clockToleranceSeconds: 30 },
      { now: () => nowSeconds * 1000 },
    ),
    clientRegistry: clientRegistry(identities),
  };
});

afterAll(async () => {
  await idp.stop();
});

describe('the token verifier alone', () => {
  const settings = () => ({ issuer: idp.issuer, jwksUri: idp.jwksUri, tenantId: identities.tenantId, audiences: [identities.appId], clockToleranceSeconds: 30 });

  it('names the caller of a verified token (client, roles, expiry), fetching the key set once for many tokens', async () => {
    let fetches = 0;
    const counting = (async (...args: Parameters<typeof fetch>) => (fetches++, fetch(...args))) as typeof fetch;
    const verify = createTokenVerifier(settings(), { now: () => NOW, fetch: counting });
    const client = identities.clients.find((candidate) => candidate.name === 'contoso-full')!;
    const { access_token } = await tokenFor('contoso-full');
    expect(await verify(access_token)).toEqual({ clientId: client.clientId, roles: expect.arrayContaining(['Data.Read']), exp: expect.any(Number) });
    await verify((await tokenFor('fabrikam-full')).access_token);
    expect(fetches).toBe(1);
  });

  it('checks expiry by the clock it is given', async () => {
    const { access_token } = await tokenFor('contoso-full');
    let now = NOW;
    const verify = createTokenVerifier(settings(), { now: () => now });
    const { exp } = await verify(access_token);
    now = exp * 1000 + 31_000;
    await expect(verify(access_token)).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    now = exp * 1000 - 1000;
    await expect(verify(access_token)).resolves.toMatchObject({ exp });
  });
});

describe('authenticate', () => {
  it('accepts a client-credentials access token and maps the client to its data tenant', async () => {
    const { principal } = await authenticate(bearer((await tokenFor('fabrikam-full')).access_token), deps);
    expect(principal.dataTenant).toBe('fabrikam');
    expect(principal.roles).toContain('Data.Read.Financials');
  });

  it('accepts the api:// form of the audience', async () => {
    const token = await idp.signToken(baseClaims({ aud: `api://${identities.appId}` }));
    await expect(authenticate(bearer(token), deps)).resolves.toMatchObject({ principal: { dataTenant: 'contoso' } });
  });

  it('answers a missing x-api-key with INVALID_API_KEY', async () => {
    const error = await failure({ authorization: `Bearer ${(await tokenFor('contoso-full')).access_token}`, apiKey: null });
    expect([error.status, error.code]).toEqual([401, 'INVALID_API_KEY']);
  });

  it.each(['wrong', `${API_KEY}x`, API_KEY.slice(0, -1), ''])('answers the wrong x-api-key %p with INVALID_API_KEY', async (apiKey) => {
    const error = await failure({ authorization: null, apiKey });
    expect(error.code).toBe('INVALID_API_KEY');
  });

  it('accepts every configured key, so keys rotate', async () => {
    const token = (await tokenFor('contoso-full')).access_token;
    for (const apiKey of identities.apiKeys) await expect(authenticate({ authorization: `Bearer ${token}`, apiKey }, deps)).resolves.toBeDefined();
  });

  it('answers a missing Authorization header with INVALID_TOKEN and a bare Bearer challenge', async () => {
    const error = await failure({ authorization: null, apiKey: API_KEY });
    expect([error.status, error.code, error.headers['WWW-Authenticate']]).toEqual([401, 'INVALID_TOKEN', 'Bearer']);
  });

  it.each(['Basic abc', 'Bearer', 'Bearer a b', 'token'])('answers the malformed Authorization %p with INVALID_TOKEN', async (authorization) => {
    const error = await failure({ authorization, apiKey: API_KEY });
    expect([error.code, error.headers['WWW-Authenticate'], error.reason]).toEqual(['INVALID_TOKEN', 'Bearer error="invalid_token", error_description="The access token is not a well-formed JWT"', 'malformed']);
  });

  it('refuses the id_token of the token response', async () => {
    const error = await failure(bearer((await tokenFor('contoso-full')).id_token));
    expect([error.status, error.code]).toEqual([401, 'INVALID_TOKEN']);
  });

  it('refuses a token for another audience', async () => {
    expect((await failure(bearer(await idp.signToken(baseClaims({ aud: 'api://someone-else' }))))).code).toBe('INVALID_TOKEN');
  });

  it('refuses a token from another issuer or tenant', async () => {
    expect((await failure(bearer(await idp.signToken(baseClaims({ iss: `${idp.url}/other/v2.0` }))))).code).toBe('INVALID_TOKEN');
    expect((await failure(bearer(await idp.signToken(baseClaims({ tid: '99999999-9999-4999-8999-999999999999' }))))).code).toBe('INVALID_TOKEN');
  });

  it('refuses a token with a bad signature', async () => {
    const token = await idp.signToken(baseClaims());
    const [header, payload, signature] = token.split('.');
    const flipped = `${header}.${payload}.${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await failure(bearer(flipped))).code).toBe('INVALID_TOKEN');
  });

  it('refuses a token signed by a key that is not published', async () => {
    expect((await failure(bearer(await idp.signToken(baseClaims(), { key: 'other' }))))).toMatchObject({ code: 'INVALID_TOKEN' });
  });

  it('refuses alg none and HS256 signed with the public key (algorithms are pinned)', async () => {
    expect((await failure(bearer(await idp.signToken(baseClaims(), { alg: 'none' })))).code).toBe('INVALID_TOKEN');
    expect((await failure(bearer(await idp.signToken(baseClaims(), { alg: 'HS256' })))).code).toBe('INVALID_TOKEN');
  });

  it('refuses expired, not yet valid, and exp-less tokens', async () => {
    expect((await failure(bearer(await idp.signToken(baseClaims({ exp: nowSeconds - 31 }))))).code).toBe('INVALID_TOKEN');
    expect((await failure(bearer(await idp.signToken(baseClaims({ nbf: nowSeconds + 31 }))))).code).toBe('INVALID_TOKEN');
    const { exp: _exp, ...noExp } = baseClaims();
    expect((await failure(bearer(await idp.signToken(noExp)))).code).toBe('INVALID_TOKEN');
    const { nbf: _nbf, ...noNbf } = baseClaims();
    expect((await failure(bearer(await idp.signToken(noNbf)))).code).toBe('INVALID_TOKEN');
  });

  it('allows a small clock skew', async () => {
    await expect(authenticate(bearer(await idp.signToken(baseClaims({ exp: nowSeconds - 10 }))), deps)).resolves.toBeDefined();
  });

  it('answers a token without Data.Read with MISSING_ROLE', async () => {
    const error = await failure(bearer((await tokenFor('contoso-norole')).access_token));
    expect([error.status, error.code]).toEqual([403, 'MISSING_ROLE']);
  });

  it('answers an unregistered client with CLIENT_NOT_REGISTERED', async () => {
    const error = await failure(bearer((await tokenFor('unregistered-app')).access_token));
    expect([error.status, error.code]).toEqual([403, 'CLIENT_NOT_REGISTERED']);
  });

  it('answers 503 IDENTITY_UNAVAILABLE when the key set cannot be fetched on a cold cache', async () => {
    const verifyToken = createTokenVerifier(
      { issuer: idp.issuer, jwksUri: 'http://127.0.0.1:9/keys', tenantId: identities.tenantId, audiences: [identities.appId], clockToleranceSeconds: 30 },
      { now: () => nowSeconds * 1000 },
    );
    const token = await idp.signToken(baseClaims());
    const error = await authenticate(bearer(token), { ...deps, verifyToken }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect([(error as ApiError).status, (error as ApiError).code]).toEqual([503, 'IDENTITY_UNAVAILABLE']);
    expect((error as ApiError).headers['Retry-After']).toBeDefined();
  });
});

describe('authenticate, delegated and odd tokens', () => {
  it('refuses a user-delegated token even with Data.Read', async () => {
    const error = await failure(bearer(await idp.signToken(baseClaims({ scp: 'user_impersonation' }))));
    expect(error.code).toBe('INVALID_TOKEN');
    expect((await failure(bearer(await idp.signToken(baseClaims({ idtyp: 'user' }))))).code).toBe('INVALID_TOKEN');
    await expect(authenticate(bearer(await idp.signToken(baseClaims({ idtyp: 'app' }))), deps)).resolves.toBeDefined();
  });

  it('refuses a token without idtyp "app": the absence of scp proves nothing', async () => {
    const { idtyp: _idtyp, ...claims } = baseClaims();
    expect((await failure(bearer(await idp.signToken(claims)))).code).toBe('INVALID_TOKEN');
  });

  it('refuses a token naming its client only in the v1 appid claim', async () => {
    const { azp, ...claims } = baseClaims();
    expect((await failure(bearer(await idp.signToken({ ...claims, appid: azp })))).code).toBe('INVALID_TOKEN');
  });

  it('accepts only the canonical base64url spelling of a token: no padding, no stray low bits', async () => {
    const token = await idp.signToken(baseClaims());
    await expect(authenticate(bearer(token), deps)).resolves.toBeDefined();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    // A 256-byte RS256 signature is 342 characters: the last one carries 4 unused low bits.
    const last = signature.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1]!;
    const variants = [
      `${header}.${payload}.${signature}==`,
      `${header}.${payload}.${signature.slice(0, -1)}${sibling}`,
      `${header}=.${payload}.${signature}`,
    ];
    for (const variant of variants) expect([variant.slice(-12), (await failure(bearer(variant))).code]).toEqual([variant.slice(-12), 'INVALID_TOKEN']);
  });

  it('challenges a missing x-api-key (every 401 names its scheme)', async () => {
    const error = await failure({ authorization: null, apiKey: null });
    expect(error.headers['WWW-Authenticate']).toBe('ApiKey header="x-api-key"');
  });
});

describe('authenticate, a broken identity provider', () => {
  it('answers 503 when the key set answers 200 with something that is not JSON', async () => {
    const verifyToken = createTokenVerifier(
      { issuer: idp.issuer, jwksUri: idp.jwksUri, tenantId: identities.tenantId, audiences: [identities.appId], clockToleranceSeconds: 30 },
      { now: () => nowSeconds * 1000, fetch: (async () => new Response('<html>maintenance</html>', { status: 200 })) as unknown as typeof fetch },
    );
    const error = await authenticate(bearer(await idp.signToken(baseClaims())), { ...deps, verifyToken }).catch((caught: unknown) => caught);
    expect((error as ApiError).code).toBe('IDENTITY_UNAVAILABLE');
  });
});
