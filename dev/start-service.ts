import { createServer as createHttpServer, STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { ApiError } from '../shared/errors/api-error.js';
import { pickRequestId } from '../shared/http/request-id.js';
import type { AddressInfo } from 'node:net';
import { createFunctionsHost, type FunctionRegistration } from './functions-host.js';
import { createGateway } from './gateway.js';
import { referencePage, type ReferenceStack } from './reference-page.js';
import type { RequestLogEntry } from '../shared/telemetry/request-log-entry.js';
import { errorResponse } from '../shared/http/error-response.js';
import type { ServerCertificate } from './local-ca.js';

/** Options of the service part of the local stack: the gateway in front of the functions host. */
export interface ServiceOptions {
  /**
   * The functions, or how to load them once the base URL is known (the local stack puts it into
   * PUBLIC_BASE_URL before the functions read their settings).
   */
  readonly registrations: readonly FunctionRegistration[] | ((baseUrl: string) => Promise<readonly FunctionRegistration[]>);
  readonly subscriptionKeys: readonly string[];
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Where the lines of requests the gateway or the host answer themselves go (the pipeline logs the rest). */
  readonly logRequest?: (entry: RequestLogEntry) => void;
  /**
   * Serve the API reference at `/docs`, for this stack (the local stack does; the gateway in Azure
   * has its portal): where its tokens come from, and the dev credentials it is filled in with.
   */
  readonly reference?: Omit<ReferenceStack, 'port'>;
  /**
   * Serve https with this certificate, as API Management does (the local stack does, with one
   * from its CA: the Azure SDKs' bearer policies send a token over https only). Without it, plain
   * http: tests that need a service of their own settings.
   */
  readonly certificate?: ServerCertificate;
}

/** A running service: its base URL (`https://host:port/api`, or `http://` without a certificate) and how to stop it. */
export interface RunningService {
  readonly baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Serves HTTP functions behind the local gateway, as API Management and the Functions host do in
 * Azure. Used by the local stack, and by tests that need a service with their own settings.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const host = options.host ?? '127.0.0.1';
  const log = options.logRequest ?? ((entry: RequestLogEntry) => console.log(JSON.stringify({ level: 'info', ...entry })));
  let gateway: ReturnType<typeof createGateway> | undefined;
  let reference: ReturnType<typeof referencePage> | undefined;
  // Host is checked here, not by Node (whose own 400 has no problem document and no request id).
  const listener: RequestListener = (request, response) => {
    if (request.httpVersion === '1.1' && request.headers.host === undefined) {
      const { status, headers, body } = errorResponse(new ApiError('MALFORMED_REQUEST', 'An HTTP/1.1 request must carry a Host header (RFC 9112 §3.2): send the host of the service\'s base URL.'), pickRequestId(null), () => {});
      response.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' });
      response.end(body);
      return;
    }
    if (reference?.(request, response)) return;
    if (gateway === undefined) {
      // Listening, the functions still loading: nobody knows the port yet but a port scanner.
      response.writeHead(503, { 'Retry-After': '1' }).end();
      return;
    }
    gateway(request, response).catch((error: unknown) => {
      // The pipeline answers every fault itself; this is the host failing, so no details.
      const requestId = typeof request.headers['x-request-id'] === 'string' ? request.headers['x-request-id'] : 'unknown';
      console.error(JSON.stringify({ level: 'error', requestId, error: error instanceof Error ? error.name : 'unknown' }));
      if (response.headersSent) return void response.end();
      const { status, headers, body } = errorResponse(error, requestId, () => {});
      response.writeHead(status, headers);
      response.end(body);
    });
  };
  const server = options.certificate
    ? createHttpsServer({ requireHostHeader: false, ...options.certificate }, listener)
    : createHttpServer({ requireHostHeader: false }, listener);
  server.on('clientError', answerUnreadable);
  // CONNECT (a proxy's tunnel) is no method of this service: a problem, not a closed connection.
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => answerOnSocket(socket, new ApiError('METHOD_NOT_ALLOWED', 'CONNECT is not a method of this service, which is no proxy: send POST to an operation (see /docs).')));
  const port = await listen(server, options.port ?? 7071, host);
  const baseUrl = `${options.certificate ? 'https' : 'http'}://${host}:${port}/api`;
  if (options.reference) reference = referencePage({ ...options.reference, port });
  try {
    const registrations = typeof options.registrations === 'function' ? await options.registrations(baseUrl) : options.registrations;
    gateway = createGateway(options.subscriptionKeys, createFunctionsHost(registrations, log), log);
  } catch (error) {
    await close(server);
    throw error;
  }
  return { baseUrl, stop: () => close(server) };
}

/**
 * A request Node's HTTP parser refuses before any handler sees it (a head past 16 KiB, an unknown
 * method, a request line that is no HTTP) is answered as problem+json like every other 4xx, not
 * with Node's empty 400/431 or a reset. What the caller still sends is read and dropped for a
 * moment, so that closing the connection does not reset it before the answer is read.
 */
function answerUnreadable(error: Error & { code?: string }, socket: Duplex): void {
  // Over TLS the parser keeps reading after its error: the rest of the same head errs again.
  if (answered.has(socket)) return;
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // Pipelined after a good request whose answer is still on its way: this one's follows it.
  const current = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (current && !current.writableFinished) {
    current.once('finish', () => answerUnreadable(error, socket));
    current.once('close', () => socket.destroy());
    return;
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // Node's own answer: 408, which clients retry (the request was slow, not wrong).
    answered.add(socket);
    socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  answerOnSocket(socket, tooLarge
    ? new ApiError('HEADERS_TOO_LARGE', 'The request head (the URL with its query, and the headers) is larger than 16 KiB: send the filters in the JSON body instead of the query.')
    : new ApiError('MALFORMED_REQUEST', 'The request is not HTTP this service can read: send POST with a JSON body (see /docs).'));
}

/** Connections whose last answer is written: a later error of theirs is not answered again. */
const answered = new WeakSet<Duplex>();

/** Writes `problem` as the connection's last answer, then closes it. */
function answerOnSocket(socket: Duplex, problem: ApiError): void {
  answered.add(socket);
  const { status, headers, body } = errorResponse(problem, pickRequestId(null), () => {});
  const text = String(body);
  const lines = Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(text)), connection: 'close' }).map(([name, value]) => `${name}: ${value}`);
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${lines.join('\r\n')}\r\n\r\n${text}`);
  socket.on('data', () => {});
  setTimeout(() => socket.destroy(), 2000).unref();
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
