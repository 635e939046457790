/**
 * The page cursors as the JSON output stage uses them: a cursor is only a shortcut, so a cursor
 * store that fails or hangs must cost a walk its shortcut and nothing else. Each read or write has
 * a deadline, after which it is cancelled (its AbortSignal fires: the Cosmos SDK drops the request);
 * after a few failures in a row the store is not asked at all for a while (a breaker), so pages
 * cost what they cost without cursors instead of a deadline each; and every failure is reported.
 */
import type { PageCursor, PageCursors } from './page-cursors.js';

/** Why a cursor call did not help. */
export type CursorFailure = 'error' | 'timeout' | 'breaker open';

/** What the guard reports of a failed call: which call, why, and the error where there was one. */
export type CursorFailureReport = (call: 'get' | 'put', reason: CursorFailure, error?: unknown) => void;

/** The cursors of one store, guarded. Neither call ever throws. */
export interface GuardedCursors {
  /** The cursor, or undefined when there is none, or the store failed, was slow, or is skipped. */
  get(tenant: string, key: string, report: CursorFailureReport): Promise<PageCursor | undefined>;
  /** Whether the cursor was stored in time. */
  put(tenant: string, key: string, cursor: PageCursor, report: CursorFailureReport): Promise<boolean>;
}

export interface CursorGuardOptions {
  /** How long one read or write may take before it is cancelled. */
  readonly deadlineMs: number;
  /** Failures in a row after which the store is skipped. */
  readonly failuresToOpen: number;
  /** How long it is skipped; then one call tries it again. */
  readonly openMs: number;
  readonly now?: () => number;
  /** Hears every failed call (the metrics observer: telemetry.ts, recordCursorFailure). */
  readonly onFailure?: (call: 'get' | 'put', reason: CursorFailure) => void;
}

export const CURSOR_GUARD: CursorGuardOptions = { deadlineMs: 1000, failuresToOpen: 3, openMs: 30_000 };

/**
 * The guard of a cursor store. Made once with the service's collaborators (createSummaryDeps), so
 * its breaker sees every request's calls and its clock is theirs.
 *
 * @example
 * const cursors = guardCursors(cosmosCursors, { ...CURSOR_GUARD, now: clock, onFailure: recordCursorFailure });
 * await cursors.get(tenant, key, report); // undefined when the store fails, is slow or the breaker is open: the walk reads from the start
 */
export function guardCursors(cursors: PageCursors, options: CursorGuardOptions = CURSOR_GUARD): GuardedCursors {
  const now = options.now ?? Date.now;
  let failures = 0;
  let openUntil = 0;
  const succeeded = () => {
    failures = 0;
  };
  const failed = () => {
    if (++failures >= options.failuresToOpen) openUntil = now() + options.openMs;
  };
  /**
   * Runs one call under its deadline; undefined when it failed (reported). One promise settled by
   * whichever comes first, the call or its timer (a race of two promises cost twice as much).
   */
  function attempt<T>(call: 'get' | 'put', work: (signal: AbortSignal) => Promise<T>, caller: CursorFailureReport): Promise<{ value: T } | undefined> {
    const report: CursorFailureReport = (failedCall, reason, error) => {
      options.onFailure?.(failedCall, reason);
      caller(failedCall, reason, error);
    };
    if (now() < openUntil) {
      report(call, 'breaker open');
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      const controller = new AbortController();
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        // Cancelled, not abandoned: the store drops the request.
        controller.abort(new Error(`page cursor ${call} passed its ${options.deadlineMs} ms deadline`));
        failed();
        report(call, 'timeout');
        resolve(undefined);
      }, options.deadlineMs);
      const settle = (outcome: { value: T } | undefined, error?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (outcome) succeeded();
        else {
          failed();
          report(call, 'error', error);
        }
        resolve(outcome);
      };
      let pending: Promise<T>;
      try {
        pending = work(controller.signal);
      } catch (error) {
        settle(undefined, error);
        return;
      }
      pending.then((value) => settle({ value }), (error: unknown) => settle(undefined, error));
    });
  }
  return {
    async get(tenant, key, report) {
      return (await attempt('get', (signal) => cursors.get(tenant, key, signal), report))?.value;
    },
    async put(tenant, key, cursor, report) {
      return (await attempt('put', (signal) => cursors.put(tenant, key, cursor, signal), report)) !== undefined;
    },
  };
}
