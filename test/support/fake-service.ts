import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stack } from './stack.js';

/** One request the fake service received. */
export interface FakeRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** 0 for the first request the service received. */
  readonly index: number;
}

/** An answer of the real service, as the fake one received it from the stack. */
export interface RealAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
}

/** What a test's handler answers with: it writes `response` itself. */
export type FakeHandler = (request: FakeRequest, response: ServerResponse, real: () => Promise<RealAnswer>) => void | Promise<void>;

/** A server on loopback that the pull client takes for the service (SUMMARY_BASE_URL = baseUrl). */
export interface FakeService {
  readonly baseUrl: string;
  readonly requests: FakeRequest[];
  stop(): Promise<void>;
}

/**
 * A broken or hostile service for the client to meet: every request goes to `handler`, which may
 * answer anything, and may ask the real service (through the stack's gateway, with the request's
 * own credentials) for what it would have answered.
 */
export async function startFakeService(handler: FakeHandler): Promise<FakeService> {
  const requests: FakeRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { path: (req.url ?? '').replace(/^\/api/, ''), headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), index: requests.length };
      requests.push(request);
      const real = async (): Promise<RealAnswer> => {
        const forwarded = Object.fromEntries(['authorization', 'ocp-apim-subscription-key', 'x-api-key', 'accept', 'content-type', 'if-none-match'].flatMap((name) => (typeof req.headers[name] === 'string' ? [[name, req.headers[name] as string]] : [])));
        const answer = await fetch(`${stack.baseUrl}${request.path}`, { method: 'POST', headers: forwarded, body: request.body });
        return { status: answer.status, headers: answer.headers, body: Buffer.from(await answer.arrayBuffer()) };
      };
      Promise.resolve(handler(request, res, real)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(599);
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
    requests,
    stop: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Answers a real answer as it came (status, media type, request id, validators, body). */
export function send(response: ServerResponse, answer: RealAnswer): void {
  const headers: Record<string, string> = { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' };
  for (const name of ['x-request-id', 'etag', 'x-summary-schema', 'x-summary-as-of']) {
    const value = answer.headers.get(name);
    if (value) headers[name] = value;
  }
  response.writeHead(answer.status, headers).end(answer.body);
}

/** Answers a problem document. */
export function problem(response: ServerResponse, status: number, code: string, detail = `fake ${code}`): void {
  response.writeHead(status, { 'content-type': 'application/problem+json', 'x-request-id': `fake-${status}` });
  response.end(JSON.stringify({ type: `https://summary-service.invalid/problems/${code.toLowerCase()}`, title: code, status, detail, code, requestId: `fake-${status}` }));
}
