import { createRemoteJWKSet, customFetch, jwtVerify, errors as joseErrors, type FetchImplementation, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { SpanKind } from '@opentelemetry/api';
import { ApiError } from '../errors/api-error.js';
import { inSpan } from '../telemetry/telemetry.js';
import type { Config } from '../config/load-config.js';
import { SYSTEM_CLOCK, type Clock } from '../util/clock.js';

/** Who is calling, as proven by a verified access token. */
export interface TokenIdentity {
  /** The client application id (`azp`: the v2 issuer never sends v1's `appid`). */
  readonly clientId: string;
  readonly roles: readonly string[];
  /** Expiry, seconds since the epoch. */
  readonly exp: number;
}

/** Verifies a bearer access token; throws `ApiError` INVALID_TOKEN or IDENTITY_UNAVAILABLE. */
export type TokenVerifier = (token: string) => Promise<TokenIdentity>;

/** Options beyond the settings: mainly for tests (a custom fetch, a clock). */
export interface TokenVerifierOptions {
  /** The clock tokens are checked by (exp, nbf); defaults to the machine's. */
  readonly now?: Clock;
  /** How long fetched keys are kept (Microsoft rolls keys with long overlap; keep them long). */
  readonly keysMaxAgeMs?: number;
  /** Minimum time between refetches triggered by an unknown `kid`. */
  readonly refetchCooldownMs?: number;
  /** How the key set is downloaded; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
}

/** The key set could not be downloaded: the identity provider is down or answered badly. */
class KeySetUnavailable extends Error {
  override readonly name = 'KeySetUnavailable';
}

/**
 * Wraps the download so that a network failure or a non-200 answer is told apart from a bad
 * token by its type (jose lets fetch's TypeError through, and TypeError also means misuse).
 */
function keySetFetch(fetchImpl: typeof fetch): FetchImplementation {
  return (url, init) => inSpan('fetch key set', { 'url.full': String(url) }, async (span) => {
    let response: Response;
    try {
      response = await fetchImpl(url, init);
    } catch (cause) {
      throw new KeySetUnavailable('the key set could not be fetched', { cause });
    }
    span.setAttribute('http.response.status_code', response.status);
    if (response.status !== 200) throw new KeySetUnavailable(`the key set answered ${response.status}`);
    // A provider answering 200 with something that is not JSON is unavailable, not a bad token.
    try {
      await response.clone().json();
    } catch (cause) {
      throw new KeySetUnavailable('the key set is not JSON', { cause });
    }
    return response;
  }, SpanKind.CLIENT);
}

const ALGORITHMS = ['RS256'];

/**
 * Why a token was refused, as RFC 6750's `error_description` says it (in `WWW-Authenticate`, in the
 * problem's detail and, as the key, in the log line): enough for support to tell an expired token
 * from a wrong signature, nothing about the keys or the token's content.
 */
const TOKEN_FAILURES = {
  expired: 'The access token has expired',
  'not yet valid': 'The access token is not valid yet',
  signature: 'The access token is not signed by a key of this API\'s identity provider',
  audience: 'The access token is not issued for this API',
  issuer: 'The access token comes from another issuer',
  tenant: 'The access token is issued for another tenant',
  'not an app token': 'The access token is not an application token',
  malformed: 'The access token is not a well-formed JWT',
} as const;

/** A reason a token is refused. */
export type TokenFailure = keyof typeof TOKEN_FAILURES;

/**
 * Builds the verifier: signature against the identity provider's JWKS (fetched remotely, cached),
 * algorithm pinned to RS256, issuer, audience (the app id or `api://` app id), `exp` and `nbf`
 * required, a small clock tolerance.
 */
export function createTokenVerifier(auth: Config['auth'], options: TokenVerifierOptions = {}): TokenVerifier {
  // Made on the first token, not when the function file loads: the key set's Headers and fetch
  // load Node's fetch implementation (undici, ~10 ms of a cold start), and the first token
  // fetches the keys anyway.
  let keySet: ReturnType<typeof createRemoteJWKSet> | undefined;
  const keys: JWTVerifyGetKey = (header, input) => {
    keySet ??= createRemoteJWKSet(new URL(auth.jwksUri), {
      cacheMaxAge: options.keysMaxAgeMs ?? 24 * 60 * 60 * 1000,
      cooldownDuration: options.refetchCooldownMs ?? 5 * 60 * 1000,
      timeoutDuration: 5000,
      [customFetch]: keySetFetch(options.fetch ?? fetch),
    });
    return keySet(header, input);
  };
  const now = options.now ?? SYSTEM_CLOCK;
  return async (token) => {
    // Checked here, before the signature, rather than on every request: the credentials cache in
    // front of this remembers what passed, so only canonical spellings of a token ever enter it.
    if (!isCanonicalCompactJws(token)) throw invalidToken('malformed', 'A JWT is three base64url parts, without padding.');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        algorithms: ALGORITHMS,
        issuer: auth.issuer,
        audience: [...auth.audiences],
        requiredClaims: ['exp', 'nbf'],
        clockTolerance: auth.clockToleranceSeconds,
        // Read before the key set is fetched (jose takes a date, not a clock): a slow fetch (5 s at
        // most) falls well inside the clock tolerance.
        currentDate: new Date(now()),
      }));
    } catch (error) {
      throw translate(error);
    }
    return identityOf(payload, auth.tenantId);
  };
}

function identityOf(payload: JWTPayload, tenantId: string): TokenIdentity {
  const clientId = typeof payload.azp === 'string' && payload.azp !== '' ? payload.azp : undefined;
  if (payload.tid !== tenantId) throw invalidToken('tenant', 'Request a token from this API\'s tenant.');
  if (!clientId || typeof payload.exp !== 'number') throw invalidToken('malformed', 'The token names no client application (azp).');
  // The calling application must hold the role, so only an app-only token is accepted: it says so
  // with `idtyp: app` (an optional claim the API's app registration turns on; docs/deploy.md). The
  // absence of `scp` alone proves nothing.
  if (payload.idtyp !== 'app' || payload.scp !== undefined) {
    throw invalidToken('not an app token', 'Only an application token is accepted (idtyp "app"): obtain it with the client credentials grant.');
  }
  const roles = Array.isArray(payload.roles) ? payload.roles.filter((role): role is string => typeof role === 'string') : [];
  return { clientId, roles, exp: payload.exp };
}

/** jose's errors become ours here, once: a bad token is 401, an unreachable key set is 503. */
function translate(error: unknown): ApiError {
  if (error instanceof KeySetUnavailable || error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) {
    return new ApiError('IDENTITY_UNAVAILABLE', 'The identity provider could not be reached to verify the token; retry shortly.', {
      headers: { 'Retry-After': '5' },
      cause: error,
    });
  }
  if (error instanceof joseErrors.JWTExpired) return invalidToken('expired', 'Request a new one.');
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    const failure: TokenFailure = error.reason === 'missing' ? 'malformed'
      : error.claim === 'nbf' ? 'not yet valid'
        : error.claim === 'iss' ? 'issuer'
          : error.claim === 'aud' ? 'audience'
            : 'malformed';
    return invalidToken(failure, 'Use the access_token (not the id_token) issued for scope api://<APP_ID>/.default.');
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JOSEAlgNotAllowed) {
    return invalidToken('signature', 'Request a token from this API\'s identity provider; tokens are RS256.');
  }
  return invalidToken('malformed', 'Send the access_token of the token response as Authorization: Bearer <token>.');
}

/** A 401 INVALID_TOKEN with its RFC 6750 challenge naming the reason. */
export function invalidToken(failure: TokenFailure, advice: string): ApiError {
  const description = TOKEN_FAILURES[failure];
  return new ApiError('INVALID_TOKEN', `${description}. ${advice}`, {
    headers: { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description}"` },
    reason: failure,
  });
}

/**
 * Whether a token is a compact JWS spelled the one canonical way: three unpadded base64url parts
 * whose unused low bits are zero. Decoders accept other spellings of the same bytes (padding, stray
 * bits), so without this several strings verify as one token, and a client could hold many
 * entries of the credentials cache (keyed on the header's text) with one token.
 */
function isCanonicalCompactJws(token: string): boolean {
  const parts = token.split('.');
  return parts.length === 3 && parts.every((part) => /^[A-Za-z0-9_-]+$/.test(part) && Buffer.from(part, 'base64url').toString('base64url') === part);
}
