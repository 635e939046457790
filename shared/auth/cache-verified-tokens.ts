import { hash } from 'node:crypto';
import type { TokenIdentity, TokenVerifier } from './token-verifier.js';

/** Options of the verified-token cache. */
export interface TokenCacheOptions {
  /** Most tokens kept; the least recently used goes first. */
  readonly maxEntries?: number;
  /** Seconds since the epoch; defaults to the system clock. */
  readonly now?: () => number;
}

/**
 * Remembers tokens that verified, so a pipeline calling with the same token skips the RS256
 * check (~140 µs). Keyed by a SHA-256 of the token (the token itself is never kept), bounded in
 * size, and an entry is never used at or past the token's `exp`. Failures are not cached.
 */
export function cacheVerifiedTokens(verify: TokenVerifier, options: TokenCacheOptions = {}): TokenVerifier {
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? (() => Date.now() / 1000);
  const cache = new Map<string, TokenIdentity>();
  return async (token) => {
    const key = hash('sha256', token, 'base64');
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      if (now() < hit.exp) {
        cache.set(key, hit);
        return hit;
      }
    }
    const identity = await verify(token);
    if (now() < identity.exp) {
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
      cache.set(key, identity);
    }
    return identity;
  };
}
