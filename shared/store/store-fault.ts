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
      reason: faultReason(error, status, timedOut),
    });
  }
  return error;
}

/**
 * Why the store was unavailable, for the log line's `reason`: the deadline, the store's status, or
 * the network's error code (ECONNRESET, ETIMEDOUT, …). Never the store's message: it may name keys or documents.
 */
function faultReason(error: unknown, status: number | undefined, timedOut: boolean): string {
  if (timedOut) return 'deadline';
  if (status !== undefined) return `store ${status}`;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,39}$/.test(code) ? `network ${code}` : 'network';
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

/**
 * What an SDK error says, as one line for a person: its status and the store's own message. The
 * SDK builds its message from the body's `message`, which some servers send as an object: it
 * would print `[object Object]`.
 *
 * @example storeErrorText(error) // "409: Entity with the specified id already exists in the system."
 */
export function storeErrorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const body = (error as { body?: { message?: unknown } }).body;
  const said = error.message && error.message !== '[object Object]' ? error.message : body?.message !== undefined ? (typeof body.message === 'string' ? body.message : JSON.stringify(body.message)) : error.name;
  const status = statusOf(error);
  return `${status === undefined ? '' : `${status}: `}${said.split('\n')[0]!.slice(0, 500)}`;
}
