import { hash } from 'node:crypto';
import { inSpan } from '../telemetry/telemetry.js';
import { authenticate, tokenOf, type AuthenticateDeps, type Authenticator, type CheckedCredentials } from './authenticate.js';
import { SYSTEM_CLOCK, type Clock } from '../util/clock.js';

/** Longer Authorization headers are checked in full every time: Entra's access tokens are a few kB. */
export const MAX_REMEMBERED_HEADER = 16 * 1024;

/** Options of the credentials cache. */
export interface CredentialsCacheOptions {
  /** Most credential pairs kept; the least recently used goes first. */
  readonly maxEntries?: number;
  /** The clock entries expire by (at the token's `exp`); defaults to the machine's. */
  readonly now?: Clock;
}

/**
 * `authenticate` with a memory of the credentials that passed it. A caller walking a result sends
 * the same backend key and token with every page: a request whose pair passed before skips the key
 * compare, the token's parse and its RS256 check (the dearest CPU work of a page answered from a
 * cursor), for one SHA-256 of the pair.
 *
 * Keyed by a SHA-256 of the key and the token (neither is kept), so a token that passed with one
 * key is checked in full with any other; the token, not the header, so that one token cannot fill
 * the cache by spelling its header many ways (`bearer`, more spaces); bounded in size; an entry is never used at or past
 * the token's `exp`; failures are not remembered. The client registry and the keys are settings,
 * fixed for the life of the process, so a remembered pair would pass them again.
 */
export function rememberCredentials(deps: AuthenticateDeps, options: CredentialsCacheOptions = {}): Authenticator {
  const maxEntries = options.maxEntries ?? 10_000;
  const clock = options.now ?? SYSTEM_CLOCK;
  /** Seconds since the epoch, as `exp` counts them. */
  const now = () => clock() / 1000;
  const remembered = new Map<string, CheckedCredentials>();
  return async (headers) => {
    const { apiKey, authorization } = headers;
    // A missing credential fails, and its failure is the full check's to tell. A header longer
    // than any token is not digested before its key is checked (nor remembered).
    const token = authorization === null || authorization.length > MAX_REMEMBERED_HEADER ? undefined : tokenOf(authorization);
    if (apiKey === null || token === undefined) return (await authenticate(headers, deps)).principal;
    // The key's length first, so that no two pairs are one text.
    const key = hash('sha256', `${apiKey.length}:${apiKey}${token}`, 'base64');
    const hit = remembered.get(key);
    if (hit !== undefined) {
      remembered.delete(key);
      if (now() < hit.exp) {
        remembered.set(key, hit);
        // The token check's span is there whichever way the check is answered (dashboards count
        // it per request), its name kept; `summary.credentials_remembered` says no key was read.
        return inSpan('verify access token', { 'summary.credentials_remembered': true }, async () => hit.principal);
      }
    }
    const checked = await authenticate(headers, deps);
    if (now() < checked.exp) {
      // Two requests of one pair may both have missed: the second replaces the first, evicting nothing.
      remembered.delete(key);
      if (remembered.size >= maxEntries) remembered.delete(remembered.keys().next().value!);
      // Every request of the pair gets this one caller: nobody may change it.
      Object.freeze(checked.principal.roles);
      Object.freeze(checked.principal);
      remembered.set(key, checked);
    }
    return checked.principal;
  };
}
