import { ApiError } from '../errors/api-error.js';

/** Statuses from the store that mean "try again later" rather than "our query is wrong". */
const TRANSIENT = new Set([408, 410, 429, 449, 500, 502, 503, 504]);

/**
 * Translates an error from the store SDK, once, where it enters our code. Throttling, timeouts,
 * outages and network failures become 503 STORE_UNAVAILABLE with `Retry-After`; anything else
 * (a query the store rejects) is a bug and is rethrown to become a 500.
 */
export function storeFault(error: unknown, timedOut: boolean): unknown {
  const status = statusOf(error);
  if (timedOut || status === undefined || TRANSIENT.has(status)) {
    const retryAfter = status === 429 ? retryAfterSeconds(error) : 5;
    return new ApiError('STORE_UNAVAILABLE', 'The data store is unavailable or busy; retry shortly.', {
      headers: { 'Retry-After': String(retryAfter) },
      cause: error,
    });
  }
  return error;
}

/** The HTTP status an SDK error carries (`statusCode`, else a numeric `code`), if any. */
export function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown; statusCode?: unknown }).statusCode ?? (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

function retryAfterSeconds(error: unknown): number {
  const ms = (error as { retryAfterInMs?: unknown }).retryAfterInMs;
  return typeof ms === 'number' && ms > 0 ? Math.ceil(ms / 1000) : 1;
}
