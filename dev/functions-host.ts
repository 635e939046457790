import type { IncomingMessage, ServerResponse } from 'node:http';
import azureFunctions from '@azure/functions';
import { ApiError, echo } from '../shared/errors/api-error.js';
import { errorResponse } from '../shared/http/error-response.js';
import { MAX_BODY_BYTES } from '../shared/http/read-json-body.js';
import type { FunctionRegistration } from '../shared/app/summary-function.js';
import { validClientRequestId } from '../shared/http/request-id.js';
import { tellCallerGone } from '../shared/http/caller-gone.js';
import type { RequestLogEntry } from '../shared/telemetry/request-log-entry.js';
import { unmatchedRequestLog } from './unmatched-request-log.js';

export type { FunctionRegistration };

/** A Node request listener that also knows the request id the gateway settled on. */
export type HostListener = (request: IncomingMessage, response: ServerResponse, requestId: string) => Promise<void>;

/**
 * What the Azure Functions host does for our HTTP functions, locally: routes `/{prefix}/{route}`,
 * answers 404 for unknown paths and 405 (with `Allow`) for other methods, builds the library's
 * `HttpRequest` from the Node request, invokes the handler and writes its response. Function keys
 * are not enforced, as with Core Tools.
 */
export function createFunctionsHost(registrations: readonly FunctionRegistration[], log: (entry: RequestLogEntry) => void = () => {}, routePrefix = 'api'): HostListener {
  const routes = routeTable(registrations, routePrefix);
  const operations = registrations.map((registration) => `${(registration.options.methods ?? ['GET', 'POST']).join('/')} /${routePrefix}/${registration.options.route}`).join(', ');
  return async (request, response, requestId) => {
    const started = performance.now();
    // What the functions answer is logged by the pipeline; what the host answers itself, here.
    const refuse = (error: ApiError) => {
      const bytes = sendError(response, error, requestId);
      log(unmatchedRequestLog(requestId, validClientRequestId(request.headers['x-client-request-id'] as string | undefined) ?? null, error.status, error.code, bytes, started));
    };
    // A fixed base: the Host header is the caller's and may not even parse as one.
    const url = new URL(request.url ?? '/', 'http://localhost');
    const route = matchRoute(routes, url.pathname);
    if (!route) return refuse(new ApiError('NOT_FOUND', `No operation at ${echo(url.pathname)}; the operations are ${operations}.`));
    const method = (request.method ?? 'GET').toUpperCase();
    const registration = route.registrations.find((candidate) => methodsOf(candidate).includes(method));
    if (!registration) {
      const methods = route.registrations.flatMap(methodsOf);
      return refuse(new ApiError('METHOD_NOT_ALLOWED', `Use ${methods.join(', ')} for this operation.`, { headers: { Allow: methods.join(', ') } }));
    }
    // Read at most one byte past the limit: enough for the handler to refuse an oversized body.
    const body = await readAtMost(request, MAX_BODY_BYTES + 1);
    const httpRequest = new azureFunctions.HttpRequest({
      method: request.method ?? 'POST',
      url: url.toString(),
      headers: flattenHeaders(request),
      params: route.params,
      body: { bytes: body },
    });
    // The caller left before its answer was written: say so to the handler (the Functions host in Azure cannot).
    const gone = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) gone.abort();
    });
    tellCallerGone(httpRequest, gone.signal);
    const context = new azureFunctions.InvocationContext({ functionName: registration.name, logHandler: () => {} });
    const result = await registration.options.handler(httpRequest, context);
    const headers = new Headers(result.headers as Record<string, string> | undefined);
    // The rest of an oversized body was never read: the answer waits until the caller has sent it
    // (drained unread, for DRAIN_WAIT_MS at most), then closes the connection. Answered while the
    // caller still sends, the close would reset the connection under it before it reads the 413.
    if (body.byteLength > MAX_BODY_BYTES) {
      headers.set('Connection', 'close');
      await drained(request);
    }
    response.writeHead(result.status ?? 200, Object.fromEntries(headers));
    response.end(toBuffer(result.body));
  };
}

/** The routes of the registrations: one per route template (`v1/exports/{id}`), with every function on it (one per method). */
interface Route {
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly registrations: FunctionRegistration[];
}

function routeTable(registrations: readonly FunctionRegistration[], prefix: string): Route[] {
  const routes = new Map<string, Route>();
  for (const registration of registrations) {
    const template = `/${prefix}/${registration.options.route}`;
    let route = routes.get(template);
    if (!route) {
      const names: string[] = [];
      // A `{name}` is one path segment, as the Functions host's route templates take it.
      const source = template.split(/(\{[A-Za-z]+\})/).map((part) => {
        const param = /^\{([A-Za-z]+)\}$/.exec(part);
        if (!param) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
        names.push(param[1]!);
        return '([^/]+)';
      }).join('');
      route = { pattern: new RegExp(`^${source}$`), names, registrations: [] };
      routes.set(template, route);
    }
    route.registrations.push(registration);
  }
  return [...routes.values()];
}

function matchRoute(routes: readonly Route[], path: string): (Route & { params: Record<string, string> }) | undefined {
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    let params: Record<string, string>;
    try {
      params = Object.fromEntries(route.names.map((name, index) => [name, decodeURIComponent(match[index + 1]!)]));
    } catch {
      return undefined;
    }
    return { ...route, params };
  }
  return undefined;
}

function methodsOf(registration: FunctionRegistration): string[] {
  return (registration.options.methods ?? ['GET', 'POST']).map((method) => method.toUpperCase());
}

function sendError(response: ServerResponse, error: ApiError, requestId: string): number {
  const { status, headers, body } = errorResponse(error, requestId, () => {});
  response.writeHead(status, headers);
  response.end(body);
  return Buffer.byteLength(body as string);
}

function flattenHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * Reads the body up to `limit` bytes. Past it the rest is drained unread (not destroyed: that
 * would reset the connection under a client still sending, instead of letting it read the 413):
 * the data listener stays, dropping what comes, so the body flows to its end.
 */
function readAtMost(request: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(chunks, Math.min(size, limit)).subarray(0, limit));
    request.on('data', (chunk: Buffer) => {
      if (size >= limit) return;
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) done();
    });
    request.once('end', done);
    request.once('error', reject);
  });
}

/** The longest an oversized body's answer waits for the caller to finish sending it (a caller that trickles is cut off then). */
const DRAIN_WAIT_MS = 10_000;

/** Resolves once the request's body has all come (it is being drained), or after DRAIN_WAIT_MS. */
function drained(request: IncomingMessage): Promise<void> {
  if (request.readableEnded || request.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, DRAIN_WAIT_MS);
    function done() {
      clearTimeout(timer);
      request.off('end', done).off('close', done);
      resolve();
    }
    request.once('end', done).once('close', done);
  });
}

function toBuffer(body: unknown): Buffer {
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('the local host supports string and byte bodies only');
}
