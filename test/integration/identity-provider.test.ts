import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { clientRegistry, loadDevIdentities, type DevClient, type DevIdentities } from '../../dev/identities.js';
import { startIdentityProvider, type IdentityProvider } from '../../dev/identity-provider.js';
import { throwawayServerCertificate } from '../../dev/local-ca.js';

// A fixed clock proves the injected time is used, and keeps token times predictable.
const NOW_MS = Date.UTC(2025, 0, 15, 12, 0, 0);
const NOW_S = NOW_MS / 1000;

let ids: DevIdentities;
let idp: IdentityProvider;
let keys: JWTVerifyGetKey;

const client = (name: string): DevClient => {
  const found = ids.clients.find((c) => c.name === name);
  if (!found) throw new Error(`fixture client ${name} missing from dev/identities.json`);
  return found;
};
const scope = () => `api://${ids.appId}/.default`;
const tokenUrl = (tenant = ids.tenantId) => `${idp.url}/${tenant}/oauth2/v2.0/token`;
const goodForm = (name = 'contoso-basic'): Record<string, string> => ({
  grant_type: 'client_credentials', client_id: client(name).clientId, client_secret: client(name).clientSecret, scope: scope(),
});
const postForm = (fields: Record<string, string> | URLSearchParams, url = tokenUrl()) =>
  fetch(url, { method: 'POST', body: new URLSearchParams(fields) });
async function tokensFor(name: string): Promise<{ access_token: string; id_token: string }> {
  const res = await postForm(goodForm(name));
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; id_token: string };
}
const verify = (token: string, audience = ids.appId, keySet = keys) =>
  jwtVerify(token, keySet, { issuer: idp.issuer, audience, algorithms: ['RS256'], currentDate: new Date(NOW_MS) });

beforeAll(async () => {
  ids = loadDevIdentities();
  idp = await startIdentityProvider({ identities: ids, certificate: await throwawayServerCertificate(), port: 0, clock: () => NOW_MS });
  keys = createRemoteJWKSet(new URL(idp.jwksUri));
});

afterAll(async () => {
  await idp?.stop();
});

describe('token endpoint', () => {
  it('issues an access token that verifies against the served keys, the issuer and the app id audience', async () => {
    const { access_token } = await tokensFor('contoso-basic');
    const { payload, protectedHeader } = await verify(access_token);
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(payload).toMatchObject({
      iss: `${idp.url}/${ids.tenantId}/v2.0`, aud: ids.appId, tid: ids.tenantId, azp: client('contoso-basic').clientId,
      azpacr: '1', idtyp: 'app', ver: '2.0', roles: ['Data.Read'], iat: NOW_S, nbf: NOW_S, exp: NOW_S + 3599,
    });
  });

  it('answers a Bearer token type with a lifetime of 3599 seconds and no caching', async () => {
    const res = await postForm(goodForm());
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toMatchObject({ token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599 });
  });

  it('puts every role of the client in the roles claim', async () => {
    const { payload } = await verify((await tokensFor('fabrikam-full')).access_token);
    expect(payload.roles).toEqual(['Data.Read', 'Data.Read.Financials', 'Data.Read.Suppliers', 'Data.Read.Drafts']);
  });

  it('leaves out the roles claim for a client without roles', async () => {
    const { payload } = await verify((await tokensFor('contoso-norole')).access_token);
    expect(payload).not.toHaveProperty('roles');
  });

  it('gives a client the same GUID-shaped oid and sub on every request, distinct from other clients', async () => {
    const first = decodeJwt((await tokensFor('contoso-basic')).access_token);
    const second = decodeJwt((await tokensFor('contoso-basic')).access_token);
    const other = decodeJwt((await tokensFor('contoso-full')).access_token);
    expect(first.oid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect([second.oid, second.sub, first.sub]).toEqual([first.oid, first.oid, first.oid]);
    expect(other.oid).not.toBe(first.oid);
  });

  it('gives every access token a fresh uti and jti', async () => {
    const first = decodeJwt((await tokensFor('contoso-basic')).access_token);
    const second = decodeJwt((await tokensFor('contoso-basic')).access_token);
    expect(typeof first.uti).toBe('string');
    expect(typeof first.jti).toBe('string');
    expect([second.uti, second.jti]).not.toEqual([first.uti, first.jti]);
  });

  it('issues an id_token whose audience is the client id, so a check for the app id rejects it', async () => {
    const { id_token } = await tokensFor('contoso-full');
    const { payload } = await verify(id_token, client('contoso-full').clientId);
    expect(payload).toMatchObject({ aud: client('contoso-full').clientId, tid: ids.tenantId, ver: '2.0', exp: NOW_S + 3599 });
    expect(payload).not.toHaveProperty('roles');
    await expect(verify(id_token)).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'aud' });
  });

  it('accepts the client credentials as HTTP Basic (RFC 6749 §2.3.1), form-urlencoded before base64', async () => {
    const { client_secret, client_id, ...rest } = goodForm('contoso-full');
    const basic = Buffer.from(`${encodeURIComponent(client_id!)}:${encodeURIComponent(client_secret!)}`).toString('base64');
    const res = await fetch(tokenUrl(), { method: 'POST', headers: { authorization: `Basic ${basic}` }, body: new URLSearchParams(rest) });
    expect(res.status).toBe(200);
    const { payload } = await verify(((await res.json()) as { access_token: string }).access_token);
    expect(payload.azp).toBe(client('contoso-full').clientId);
  });

  const basicOf = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}` });
  const withoutSecret = () => { const { client_secret: _secret, client_id: _id, ...rest } = goodForm(); return rest; };
  const cases: Array<[string, () => Promise<Response>, number, string]> = [
    ['a wrong secret in HTTP Basic', () => fetch(tokenUrl(), { method: 'POST', headers: basicOf(client('contoso-basic').clientId, 'wrong'), body: new URLSearchParams(withoutSecret()) }), 401, 'invalid_client'],
    ['a secret in both HTTP Basic and the form', () => fetch(tokenUrl(), { method: 'POST', headers: basicOf(client('contoso-basic').clientId, client('contoso-basic').clientSecret), body: new URLSearchParams(goodForm()) }), 400, 'invalid_request'],
    ['HTTP Basic without a colon', () => fetch(tokenUrl(), { method: 'POST', headers: { authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` }, body: new URLSearchParams(withoutSecret()) }), 401, 'invalid_client'],
    ['an unknown tenant in the path', () => postForm(goodForm(), tokenUrl('99999999-9999-4999-8999-999999999999')), 400, 'invalid_request'],
    ['a missing grant_type', () => postForm({ ...goodForm(), grant_type: '' }), 400, 'invalid_request'],
    ['grant_type=password', () => postForm({ ...goodForm(), grant_type: 'password' }), 400, 'unsupported_grant_type'],
    ['an unknown client id', () => postForm({ ...goodForm(), client_id: 'c0000001-0000-4000-8000-999999999999' }), 401, 'invalid_client'],
    ['a wrong client secret', () => postForm({ ...goodForm(), client_secret: client('contoso-full').clientSecret }), 401, 'invalid_client'],
    ['a missing client secret', () => postForm({ ...goodForm(), client_secret: '' }), 401, 'invalid_client'],
    ['a scope without the api:// prefix', () => postForm({ ...goodForm(), scope: `${ids.appId}/.default` }), 400, 'invalid_scope'],
    ['another API scope', () => postForm({ ...goodForm(), scope: 'https://graph.microsoft.com/.default' }), 400, 'invalid_scope'],
    ['a repeated form field', () => postForm(new URLSearchParams([...Object.entries(goodForm()), ['client_secret', 'x']])), 400, 'invalid_request'],
    ['a JSON body', () => fetch(tokenUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(goodForm()) }), 400, 'invalid_request'],
  ];
  it.each(cases)('refuses %s with the matching status and error code', async (_name, send, status, error) => {
    const res = await send();
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status).toBe(status);
    expect(body.error).toBe(error);
    expect(typeof body.error_description).toBe('string');
    expect(body).not.toHaveProperty('access_token');
  });
});

describe('discovery', () => {
  it('serves an openid configuration that points at this provider', async () => {
    const res = await fetch(`${idp.url}/${ids.tenantId}/v2.0/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      issuer: idp.issuer, token_endpoint: tokenUrl(), jwks_uri: idp.jwksUri, id_token_signing_alg_values_supported: ['RS256'], token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    });
  });

  it('completes the metadata as Entra does (MSAL resolves the authority from it), every endpoint https on this provider', async () => {
    const metadata = (await (await fetch(`${idp.url}/${ids.tenantId}/v2.0/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    for (const member of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'issuer', 'end_session_endpoint', 'device_authorization_endpoint']) {
      expect(String(metadata[member])).toMatch(new RegExp(`^${idp.url.replace(/[.]/g, '\\.')}/${ids.tenantId}/`));
      expect(new URL(String(metadata[member])).protocol).toBe('https:');
    }
    expect(metadata).toMatchObject({ subject_types_supported: ['pairwise'], grant_types_supported: ['client_credentials'], request_uri_parameter_supported: false });
    expect(metadata.response_types_supported).toContain('code');
  });

  it('refuses the interactive endpoints it lists, pointing at the client credentials grant', async () => {
    for (const path of ['authorize', 'devicecode', 'logout']) {
      const res = await fetch(`${idp.url}/${ids.tenantId}/oauth2/v2.0/${path}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'unsupported_response_type', error_description: expect.stringContaining('client credentials') });
    }
  });

  it('serves https only, with a certificate for loopback from a CA the caller must trust', async () => {
    expect(new URL(idp.url).protocol).toBe('https:');
    const plain = await fetch(idp.url.replace('https:', 'http:')).then((res) => res.status, (error: Error) => (error.cause as { code?: string } | undefined)?.code ?? error.message);
    expect(plain).not.toBe(200);
  });

  it('publishes only public RS256 signing keys in the JWKS', async () => {
    const { keys: served } = (await (await fetch(idp.jwksUri)).json()) as { keys: Array<Record<string, unknown>> };
    expect(served).toHaveLength(1);
    expect(served[0]).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256', kid: expect.any(String) });
    for (const field of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(served[0]).not.toHaveProperty(field);
  });

  it('answers 404 JSON for unknown paths and for another tenant', async () => {
    for (const path of ['/', `/${ids.tenantId}/oauth2/v2.0/nothing`, '/99999999-9999-4999-8999-999999999999/discovery/v2.0/keys']) {
      const res = await fetch(`${idp.url}${path}`);
      expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([404, 'not_found']);
    }
  });
});

describe('signToken', () => {
  const claims = () => ({ iss: idp.issuer, aud: ids.appId, iat: NOW_S, exp: NOW_S + 60, azp: 'forged' });

  it('signs arbitrary claims with the real key so they verify', async () => {
    const { payload } = await verify(await idp.signToken(claims()));
    expect(payload.azp).toBe('forged');
  });

  it('signs with a key missing from the JWKS when asked for the other key', async () => {
    await expect(verify(await idp.signToken(claims(), { key: 'other' }))).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
  });

  it('fails signature verification when the other key claims the real key id', async () => {
    const realKid = decodeProtectedHeader(await idp.signToken(claims())).kid;
    const forged = await idp.signToken(claims(), { key: 'other', kid: realKid });
    await expect(verify(forged)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
  });

  it('produces tokens in the requested algorithm, including unsigned ones', async () => {
    expect(decodeProtectedHeader(await idp.signToken(claims(), { alg: 'HS256' })).alg).toBe('HS256');
    const unsigned = await idp.signToken(claims(), { alg: 'none' });
    expect(decodeProtectedHeader(unsigned).alg).toBe('none');
    expect(unsigned.endsWith('.')).toBe(true);
    await expect(verify(unsigned)).rejects.toMatchObject({ code: 'ERR_JOSE_ALG_NOT_ALLOWED' });
  });
});

describe('lifecycle', () => {
  it('generates new keys at each start, so an earlier run’s tokens do not verify', async () => {
    const second = await startIdentityProvider({ identities: ids, certificate: await throwawayServerCertificate(), clock: () => NOW_MS });
    try {
      const otherKeys = createRemoteJWKSet(new URL(second.jwksUri));
      const token = await idp.signToken({ iss: second.issuer, aud: ids.appId, exp: NOW_S + 60 });
      await expect(jwtVerify(token, otherKeys, { currentDate: new Date(NOW_MS) })).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
      expect(second.url).not.toBe(idp.url);
    } finally {
      await second.stop();
    }
  });
});

describe('dev identities', () => {
  it('registers every client that has a data tenant and leaves out the unregistered app and the service\'s own identity', () => {
    const registry = clientRegistry(ids);
    expect(registry[client('contoso-basic').clientId]).toBe('contoso');
    expect(registry[client('fabrikam-full').clientId]).toBe('fabrikam');
    expect(registry).not.toHaveProperty(client('unregistered-app').clientId);
    expect(registry).not.toHaveProperty(client('summary-service').clientId);
    expect(Object.keys(registry)).toHaveLength(ids.clients.length - 2);
  });

  it('refuses a file whose secret does not look fake', () => {
    const dir = mkdtempSync(join(tmpdir(), 'identities-'));
    try {
      const raw = JSON.parse(readFileSync(new URL('../../dev/identities.json', import.meta.url), 'utf8')) as DevIdentities;
      const path = join(dir, 'identities.json');
      writeFileSync(path, JSON.stringify({ ...raw, apiKeys: ['a-real-looking-production-key-123'] }));
      expect(() => loadDevIdentities(path)).toThrow();
      writeFileSync(path, JSON.stringify(raw));
      expect(loadDevIdentities(path).tenantId).toBe(raw.tenantId);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
