import { hash, timingSafeEqual } from 'node:crypto';

/**
 * Builds a matcher over a set of keys. Keys are compared as SHA-256 digests with `timingSafeEqual`
 * against every key, without stopping early, so neither a key's length nor which key matched
 * shows in the timing.
 */
export function createKeyMatcher(keys: readonly string[]): (presented: string | null) => boolean {
  const digests = keys.map(digest);
  return (presented) => {
    if (presented === null || presented === '') return false;
    const candidate = digest(presented);
    let matched = false;
    for (const key of digests) matched = timingSafeEqual(key, candidate) || matched;
    return matched;
  };
}

function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}
