import { ApiError } from '../errors/api-error.js';
import { createKeyMatcher } from './key-matcher.js';

/** Checks the backend `x-api-key` header. */
export type ApiKeyChecker = (presented: string | null) => void;

/**
 * Builds the `x-api-key` check over every configured key, so keys rotate without downtime (add the
 * new key, move callers, retire the old one). Comparison is constant-time (see `createKeyMatcher`).
 */
export function createApiKeyChecker(keys: readonly string[]): ApiKeyChecker {
  const matches = createKeyMatcher(keys);
  return (presented) => {
    if (presented === null || presented === '') {
      throw new ApiError('INVALID_API_KEY', 'Send the backend key in the x-api-key header.', { headers: CHALLENGE });
    }
    if (!matches(presented)) {
      throw new ApiError('INVALID_API_KEY', 'The x-api-key header does not hold a valid key; check the key issued for this environment.', { headers: CHALLENGE });
    }
  };
}

/** Every 401 carries a challenge (RFC 9110 §15.5.2); this one names the header the key goes in. */
const CHALLENGE = { 'WWW-Authenticate': 'ApiKey header="x-api-key"' };
