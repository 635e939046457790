/**
 * Whether the caller of a request has gone, where the host says so. Azure Functions for Node does
 * not tell a handler that the caller disconnected (an open issue of azure-functions-nodejs-library),
 * so there an export runs to its deadline; the local host does tell (dev/functions-host.ts), and an
 * export it is told of stops reading the store and frees its slot.
 */
import type { HttpRequest } from '@azure/functions';

const signals = new WeakMap<HttpRequest, AbortSignal>();

/** For a host: `signal` fires when the caller of `request` has gone. */
export function tellCallerGone(request: HttpRequest, signal: AbortSignal): void {
  signals.set(request, signal);
}

/** The signal that fires when the caller of `request` has gone, where the host gives one. */
export function callerGone(request: HttpRequest): AbortSignal | undefined {
  return signals.get(request);
}

/** An export stopped because its caller went away: logged with status 499, answered to no one. */
export class CallerGone extends Error {
  override readonly name = 'CallerGone';
}
