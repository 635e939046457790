import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { SignJWT, base64url, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { JWKStore } from 'oauth2-mock-server';
import { SERVICE_IDENTITY, type DevClient, type DevIdentities } from './identities.js';
import type { ServerCertificate } from './local-ca.js';

/** Options for {@link startIdentityProvider}. */
export interface IdentityProviderOptions {
  readonly identities: DevIdentities;
  /** The TLS certificate to serve (MSAL and @azure/identity accept only an https authority). */
  readonly certificate: ServerCertificate;
  /** Port to listen on; 0 (the default) picks a free one. */
  readonly port?: number;
  /** Interface to bind; defaults to loopback so the fake never listens beyond this machine. */
  readonly host?: string;
  /** Milliseconds since the epoch; injected so tests can issue tokens at a chosen time. */
  readonly clock?: () => number;
}

/** Options for {@link IdentityProvider.signToken}. */
export interface SignTokenOptions {
  /** `RS*`/`PS*` sign with the chosen RSA key; `HS*` uses the real public key as HMAC secret; `none` leaves it unsigned. */
  readonly alg?: string;
  /** Header `kid`; defaults to the chosen key's id. */
  readonly kid?: string;
  /** `real` is the key served in the JWKS; `other` is a key the JWKS never publishes. */
  readonly key?: 'real' | 'other';
}

/** A running local stand-in for Entra ID (v2 endpoints, client credentials only). */
export interface IdentityProvider {
  /** The authority host, e.g. `https://127.0.0.1:7072` (no trailing slash). */
  readonly url: string;
  /** `${url}/${tenantId}/v2.0`, the `iss` of every token. */
  readonly issuer: string;
  readonly jwksUri: string;
  /** Signs arbitrary claims exactly as given (nothing added), so tests can forge tokens. */
  signToken(claims: Record<string, unknown>, options?: SignTokenOptions): Promise<string>;
  stop(): Promise<void>;
}

const LIFETIME_SECONDS = 3599;
const MAX_BODY_BYTES = 16 * 1024;
const FORM = 'application/x-www-form-urlencoded';
/** Endpoints of the interactive flows, under `/{tenant}/`: listed in the metadata, refused when called. */
const INTERACTIVE_ENDPOINTS = ['oauth2/v2.0/authorize', 'oauth2/v2.0/devicecode', 'oauth2/v2.0/logout'];

type OAuthError = 'invalid_request' | 'unsupported_grant_type' | 'unsupported_response_type' | 'invalid_client' | 'invalid_scope' | 'not_found' | 'server_error';

class Reply {
  constructor(readonly status: number, readonly body: Record<string, unknown>) {}
  static error(status: number, error: OAuthError, description: string): Reply {
    return new Reply(status, { error, error_description: description });
  }
}

/** Azure Storage's resource, as a scope and as the tokens' audience. */
const STORAGE_AUDIENCE = 'https://storage.azure.com';
const STORAGE_SCOPE = `${STORAGE_AUDIENCE}/.default`;

/**
 * Starts the dev identity provider. Keys are generated in memory at each start, so tokens from a
 * previous run never verify. Nothing is logged: requests carry secrets and responses carry tokens.
 */
export async function startIdentityProvider(options: IdentityProviderOptions): Promise<IdentityProvider> {
  const { identities, certificate, port = 0, host = '127.0.0.1', clock = Date.now } = options;
  const tenant = identities.tenantId.toLowerCase();
  const served = new JWKStore();
  const realJwk = await served.add(await newPrivateJwk());
  const otherJwk = await newPrivateJwk();
  // oauth2-mock-server's store strips the private fields, so the JWKS cannot leak the signing key.
  const jwks = { keys: served.toJSON().map((key) => ({ ...key, use: 'sig' })) };

  const server = createServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
    handle(req)
      .catch(() => Reply.error(500, 'server_error', 'The identity provider failed; see its code.'))
      .then((reply) => send(res, reply))
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `https://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  const issuer = `${url}/${identities.tenantId}/v2.0`;
  const jwksUri = `${url}/${identities.tenantId}/discovery/v2.0/keys`;
  const oauth = `${url}/${identities.tenantId}/oauth2/v2.0`;
  // Entra's v2 metadata document, member for member, with what this provider does: every endpoint
  // https (MSAL resolves the authority from it and refuses one without authorization_endpoint).
  const metadata = {
    token_endpoint: `${oauth}/token`,
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    jwks_uri: jwksUri,
    response_modes_supported: ['query', 'fragment', 'form_post'],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: ['RS256'],
    response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
    scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
    issuer,
    request_uri_parameter_supported: false,
    authorization_endpoint: `${oauth}/authorize`,
    device_authorization_endpoint: `${oauth}/devicecode`,
    http_logout_supported: true,
    frontchannel_logout_supported: true,
    end_session_endpoint: `${oauth}/logout`,
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'nbf', 'tid', 'ver', 'oid', 'azp', 'roles', 'idtyp'],
    grant_types_supported: ['client_credentials'],
    tenant_region_scope: null,
    cloud_instance_name: 'localhost',
  };

  async function handle(req: IncomingMessage): Promise<Reply> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const segments = path.split('/');
    const pathTenant = (segments[1] ?? '').toLowerCase();
    const rest = segments.slice(2).join('/');
    if (req.method === 'POST' && rest === 'oauth2/v2.0/token') {
      const form = await readForm(req);
      if (pathTenant !== tenant) return Reply.error(400, 'invalid_request', `Tenant '${segments[1]}' not found.`);
      if (typeof form === 'string') return Reply.error(400, 'invalid_request', form);
      const basic = basicCredentials(req.headers.authorization);
      if (basic === 'malformed') return Reply.error(401, 'invalid_client', 'The Authorization header is not HTTP Basic client credentials.');
      if (basic) {
        // RFC 6749 §2.3: one client authentication method per request.
        if (form.has('client_secret')) return Reply.error(400, 'invalid_request', 'Send the client secret either in HTTP Basic or in the form, not both.');
        if (form.has('client_id') && form.get('client_id') !== basic.clientId) return Reply.error(400, 'invalid_request', 'client_id in the form differs from the one in HTTP Basic.');
        form.set('client_id', basic.clientId);
        form.set('client_secret', basic.clientSecret);
      }
      return issue(form);
    }
    if (req.method === 'GET' && pathTenant === tenant && rest === 'v2.0/.well-known/openid-configuration') return new Reply(200, metadata);
    // Listed in the metadata because MSAL needs them there; this provider issues app tokens only.
    if (pathTenant === tenant && INTERACTIVE_ENDPOINTS.includes(rest)) {
      return Reply.error(400, 'unsupported_response_type', 'The local identity provider issues app tokens only: use the client credentials grant at the token endpoint.');
    }
    if (req.method === 'GET' && pathTenant === tenant && rest === 'discovery/v2.0/keys') return new Reply(200, jwks);
    return Reply.error(404, 'not_found', 'No such endpoint on the dev identity provider.');
  }

  async function issue(form: URLSearchParams): Promise<Reply> {
    const field = (name: string) => form.get(name) ?? '';
    if (field('grant_type') === '') return Reply.error(400, 'invalid_request', "The request must contain 'grant_type'.");
    if (field('grant_type') !== 'client_credentials') {
      return Reply.error(400, 'unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
    }
    // Every client is checked the same way, so response time does not reveal which ids exist.
    const client = identities.clients.find((c) => c.clientId.toLowerCase() === field('client_id').toLowerCase());
    const secretOk = safeEqual(field('client_secret'), client?.clientSecret ?? '\u0000no-client');
    if (client === undefined || !secretOk) return Reply.error(401, 'invalid_client', 'Unknown client or wrong client_secret.');
    const iat = Math.floor(clock() / 1000);
    const times = { iat, nbf: iat, exp: iat + LIFETIME_SECONDS };
    const subject = stableGuid(`${identities.tenantId}/${client.clientId}`);
    if (field('scope') === STORAGE_SCOPE) {
      // Azurite has no Azure RBAC: a token is all it checks. In Azure only the service's managed
      // identity holds a role on the export storage, so here only the service's identity gets one;
      // a dev client with one could list every tenant's export files.
      if (client.name !== SERVICE_IDENTITY) {
        return Reply.error(400, 'invalid_scope', `Locally, only the service's own identity (${SERVICE_IDENTITY}) has storage tokens, as in Azure only its managed identity holds a role on the export storage. Read export files through the URLs a job's manifest hands out.`);
      }
      // What Entra gives an app for Azure Storage: a v1 token (Storage accepts v1), whose issuer
      // is sts.windows.net. Azurite checks its issuer, audience and times, as Storage does.
      const accessToken = await sign({ aud: STORAGE_AUDIENCE, iss: `https://sts.windows.net/${identities.tenantId}/`, ...times, appid: client.clientId, appidacr: '1', idtyp: 'app', oid: subject, sub: subject, tid: identities.tenantId, ver: '1.0' });
      return new Reply(200, { token_type: 'Bearer', expires_in: LIFETIME_SECONDS, ext_expires_in: LIFETIME_SECONDS, access_token: accessToken });
    }
    if (field('scope') !== `api://${identities.appId}/.default`) {
      return Reply.error(400, 'invalid_scope', `The scope must be api://${identities.appId}/.default (or ${STORAGE_SCOPE}).`);
    }
    const accessToken = await sign({
      aud: identities.appId, iss: issuer, ...times, azp: client.clientId, azpacr: '1', idtyp: 'app', oid: subject,
      sub: subject, tid: identities.tenantId, uti: base64url.encode(randomBytes(16)), jti: randomUUID(), ver: '2.0',
      ...rolesClaim(client),
    });
    // Entra omits id_token here; it exists so tests can prove the service rejects its audience.
    const idToken = await sign({ aud: client.clientId, iss: issuer, ...times, sub: subject, tid: identities.tenantId, ver: '2.0' });
    return new Reply(200, {
      token_type: 'Bearer', expires_in: LIFETIME_SECONDS, ext_expires_in: LIFETIME_SECONDS,
      access_token: accessToken, id_token: idToken,
    });
  }

  async function sign(claims: Record<string, unknown>, opts: SignTokenOptions = {}): Promise<string> {
    const jwk = opts.key === 'other' ? otherJwk : realJwk;
    const alg = opts.alg ?? 'RS256';
    const header = { alg, typ: 'JWT', kid: opts.kid ?? jwk.kid };
    if (alg === 'none') return `${encodeJson(header)}.${encodeJson(claims)}.`;
    // Algorithm confusion: an HMAC keyed with the public key, which a careless verifier accepts.
    const key = alg.startsWith('HS') ? new TextEncoder().encode(JSON.stringify(publicPart(jwk))) : await importJWK(jwk, alg);
    return new SignJWT(claims).setProtectedHeader(header).sign(key);
  }

  return {
    url, issuer, jwksUri,
    signToken: (claims, opts) => sign(claims, opts),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // fetch keeps connections alive; without this close() waits for them to time out.
        server.closeAllConnections();
      }),
  };
}

/** Reads the form body; returns a description of the problem instead when it is not a usable form. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) return `The request body exceeds ${MAX_BODY_BYTES} bytes.`;
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== FORM) return `The request body must be ${FORM}.`;
  const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  // A repeated field is ambiguous (which secret counts?), so refuse it as Entra does.
  const names = [...form.keys()];
  if (new Set(names).size !== names.length) return 'A form field is repeated.';
  return form;
}

function send(res: ServerResponse, reply: Reply): void {
  // Token responses must not be cached (RFC 6749 §5.1); the rest is cheap to regenerate.
  res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', pragma: 'no-cache' });
  res.end(JSON.stringify(reply.body));
}

/** Hashing first makes lengths equal, which `timingSafeEqual` needs, without leaking the length. */
function safeEqual(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Entra leaves `roles` out entirely when the app holds none; an empty array would be a different shape. */
function rolesClaim(client: DevClient): { roles?: string[] } {
  return client.roles.length > 0 ? { roles: [...client.roles] } : {};
}

/** A GUID-shaped id derived from a seed, so a client's `oid`/`sub` stays the same across restarts. */
function stableGuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A fresh RS256 private JWK. Not `JWKStore.generate`: WebCrypto returns the JWK from another realm
 * under jest's VM modules, and the store's plain-object check then rejects it; a copy passes.
 */
async function newPrivateJwk(): Promise<JWK & { kid: string; alg: string }> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256' };
}

function publicPart(jwk: JWK): JWK {
  const { kty, n, e } = jwk;
  return { kty, n, e };
}

function encodeJson(value: unknown): string {
  return base64url.encode(JSON.stringify(value));
}

/**
 * Client credentials sent as HTTP Basic (RFC 6749 §2.3.1: id and secret form-urlencoded, then
 * joined by a colon and base64-encoded); null when the header is absent or another scheme.
 */
function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | null | 'malformed' {
  if (!header || !/^Basic\s/i.test(header)) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return 'malformed';
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    const unescape = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return { clientId: unescape(decoded.slice(0, colon)), clientSecret: unescape(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}
