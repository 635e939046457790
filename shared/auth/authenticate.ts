import { ApiError } from '../errors/api-error.js';
import { BASE_ROLE } from '../access/datapoints.js';
import type { ApiKeyChecker } from './api-key-checker.js';
import { inSpan } from '../telemetry/telemetry.js';
import { invalidToken, type TokenVerifier } from './token-verifier.js';

/** An authenticated caller: its client id, roles and the data tenant it may read. */
export interface Principal {
  readonly clientId: string;
  readonly roles: readonly string[];
  readonly dataTenant: string;
}

/** What `authenticate` needs. */
export interface AuthenticateDeps {
  readonly checkApiKey: ApiKeyChecker;
  readonly verifyToken: TokenVerifier;
  /** Client id → data tenant (server-side; the request can never name a tenant). */
  readonly clientRegistry: Readonly<Record<string, string>>;
}

/** The request headers `authenticate` reads. */
export interface CredentialHeaders {
  readonly authorization: string | null;
  readonly apiKey: string | null;
}

/** Checks a data call's credentials: the caller, or an ApiError (401/403). */
export type Authenticator = (headers: CredentialHeaders) => Promise<Principal>;

/** The caller and until when its credentials hold: the token's `exp` (seconds since the epoch). */
export interface CheckedCredentials {
  readonly principal: Principal;
  readonly exp: number;
}

/**
 * Checks the credentials of a data call in full, in this order: the backend key (cheap, constant
 * time), the bearer token, the `Data.Read` role, then the client registry. Runs before anything
 * about the request itself is looked at; requests go through `rememberCredentials` in front of it.
 */
export async function authenticate(headers: CredentialHeaders, deps: AuthenticateDeps): Promise<CheckedCredentials> {
  deps.checkApiKey(headers.apiKey);
  const token = bearerToken(headers.authorization);
  const identity = await inSpan('verify access token', {}, () => deps.verifyToken(token));
  if (!identity.roles.includes(BASE_ROLE)) {
    throw new ApiError('MISSING_ROLE', `The client application must be granted the app role ${BASE_ROLE} on this API.`);
  }
  const dataTenant = Object.hasOwn(deps.clientRegistry, identity.clientId) ? deps.clientRegistry[identity.clientId] : undefined;
  if (dataTenant === undefined) {
    throw new ApiError('CLIENT_NOT_REGISTERED', 'This client application is not registered for data access; ask the service owners to register it.');
  }
  return { principal: { clientId: identity.clientId, roles: identity.roles, dataTenant }, exp: identity.exp };
}

/** The token of an Authorization header however the scheme is spelled (`bearer`, more spaces); undefined when it is no bearer token. */
export function tokenOf(authorization: string): string | undefined {
  return /^Bearer +([A-Za-z0-9\-_.~+/]+=*)\s*$/i.exec(authorization)?.[1];
}

function bearerToken(authorization: string | null): string {
  const token = authorization === null ? undefined : tokenOf(authorization);
  if (!token) {
    throw authorization === null
      ? new ApiError('INVALID_TOKEN', 'Send an access token in the Authorization header: Bearer <access_token>.', { headers: { 'WWW-Authenticate': 'Bearer' } })
      : invalidToken('malformed', 'The Authorization header must be "Bearer <access_token>".');
  }
  return token;
}
