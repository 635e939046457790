/**
 * Retries of what can succeed when asked again (answers.ts: 408, 429, 502, 503, 504), honouring
 * Retry-After, plus network failures. Every wait gets
 * jitter, so clients told the same Retry-After do not return in step, and is bounded.
 */
import { isRetried, permanentNetworkFailure } from './answers.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  /** The longest single wait in milliseconds, whatever Retry-After says. */
  readonly maxWaitMs: number;
  /** The most one call may take, its attempts and waits included (SUMMARY_DEADLINE_SECONDS). */
  readonly deadlineMs: number;
}

/** The default deadline of one call: 15 minutes, its retries included. */
export const DEFAULT_DEADLINE_MS = 900_000;

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, maxWaitMs: 60_000, deadlineMs: DEFAULT_DEADLINE_MS };

/** A server that was silent for READ_TIMEOUT_MS, before its headers or within its body. */
export class Stalled extends Error {
  override readonly name = 'Stalled';
  constructor(readonly ms: number) {
    super(`no byte for ${ms / 1000} s`);
  }
}

/** A call that had not answered in full at its deadline (its retries and waits included). */
export class DeadlinePassed extends Error {
  override readonly name = 'DeadlinePassed';
  constructor(readonly ms: number, why: string) {
    super(`${why} within ${ms / 1000} s (SUMMARY_DEADLINE_SECONDS), attempts and waits included`);
  }
}

/** Milliseconds Retry-After asks for (seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The wait before attempt `attempt + 1`: what the server asked, else exponential from 1 s; jitter up to +25 %, within the bound. */
export function waitMs(attempt: number, asked: number | undefined, policy: RetryPolicy, random = Math.random): number {
  const base = asked ?? 1000 * 2 ** (attempt - 1);
  return Math.min(policy.maxWaitMs, Math.round(base * (1 + random() / 4)));
}

/** What one call gave: openapi-fetch's result (the response, and the parsed problem when it failed). */
export interface CallResult {
  readonly response: Response;
  readonly error?: unknown;
}

/**
 * Calls `send` until it answers something not retried (answers.ts) and no network failure, or the
 * attempts or the deadline run out; `onRetry` hears of each wait. `send` is given the deadline's
 * signal, which gives its request up. Resolves with the last result; rejects with the last
 * network failure, or DeadlinePassed.
 */
export async function withRetry<T extends CallResult>(
  send: (signal: AbortSignal) => Promise<T>,
  policy: RetryPolicy,
  onRetry: (why: string, waitMs: number) => void = () => {},
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  stop?: AbortSignal,
): Promise<T> {
  const started = Date.now();
  // A controller and a timer held here for the whole call, not AbortSignal.timeout: what gives the
  // request up must not depend on what the garbage collector keeps (summary-api.ts, sendRequest).
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlinePassed(policy.deadlineMs, 'no full answer')), policy.deadlineMs);
  // `stop` (the run ended) gives up the request under way and the wait between two, with its reason.
  const stopped = () => controller.abort(stop!.reason);
  if (stop?.aborted) stopped();
  stop?.addEventListener('abort', stopped, { once: true });
  try {
    return await attempts(send, policy, onRetry, sleep, controller.signal, started);
  } finally {
    clearTimeout(timer);
    stop?.removeEventListener('abort', stopped);
  }
}

async function attempts<T extends CallResult>(send: (signal: AbortSignal) => Promise<T>, policy: RetryPolicy, onRetry: (why: string, waitMs: number) => void, sleep: (ms: number) => Promise<void>, deadline: AbortSignal, started: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let result: T | undefined;
    let failure: Error | undefined;
    try {
      if (deadline.aborted) throw deadline.reason;
      result = await send(deadline);
    } catch (error) {
      if (deadline.aborted) throw deadline.reason instanceof DeadlinePassed ? new DeadlinePassed(policy.deadlineMs, 'no full answer') : deadline.reason;
      // fetch fails with a TypeError when no answer came (refused, reset, TLS), and a server
      // silent too long is given up: worth another try, unless no try can change it (a redirect,
      // an untrusted certificate). Anything else (no token, a bug) is not.
      if (error instanceof Stalled) failure = error;
      else if (!(error instanceof TypeError) || permanentNetworkFailure(error)) throw error;
      else failure = error;
    }
    const retriable = result === undefined || isRetried(result.response.status);
    if (!retriable || attempt >= policy.attempts) {
      if (result === undefined) throw failure!;
      return result;
    }
    const asked = result ? retryAfterMs(result.response.headers.get('retry-after')) : undefined;
    // Never back before the server said: a longer Retry-After than the bound ends the retries.
    if (asked !== undefined && asked > policy.maxWaitMs) return result!;
    const wait = waitMs(attempt, asked, policy);
    if (Date.now() - started + wait >= policy.deadlineMs) {
      if (result) return result;
      throw new DeadlinePassed(policy.deadlineMs, `no answer (${networkCause(failure!)})`);
    }
    onRetry(result ? `${result.response.status} ${problemCode(result.error)}` : `network: ${networkCause(failure!)}`, wait);
    await until(sleep(wait), deadline);
  }
}

/** `wait`, or the signal's reason as soon as it aborts (a wait never outlasts its call). */
function until(wait: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    wait.then(() => {
      signal.removeEventListener('abort', abort);
      if (signal.aborted) reject(signal.reason);
      else resolve();
    }, reject);
  });
}

/** The problem document's `code`, or a placeholder when the error body was not one. */
export function problemCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'no problem document';
}

/** fetch's "fetch failed" says little; its cause says what (ECONNREFUSED, a certificate, ...). */
export function networkCause(error: Error): string {
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  return [error.message, cause?.code ?? cause?.message].filter(Boolean).join(': ');
}
