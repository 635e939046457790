import { readFileSync } from 'node:fs';
import { createServer, request as httpsRequest, Agent, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';

/** What the proxy does with a request to the store. */
export type FaultMode = 'pass' | 'throttle' | 'hang' | 'reset';

/** A store endpoint in front of the real embedded Cosmos server that can be made to fail. */
export interface FaultProxy {
  readonly endpoint: string;
  /** Requests seen, and query requests (document queries) among them. */
  readonly counts: { requests: number; queries: number };
  setMode(mode: FaultMode): void;
  /** Hangs only the requests whose path matches (other requests pass, whatever the mode). */
  hangWhere(path: RegExp | undefined): void;
  /** Hung requests the client gave up (closed its connection or stream) while they hung. */
  readonly abandoned: { count: number };
  /** Passes the first `queries` document queries from now on, then switches to `mode`. */
  failAfterQueries(queries: number, mode: FaultMode): void;
  stop(): Promise<void>;
}

// The embedded server's own self-signed certificate: the service accepts it on loopback only.
const serverDir = dirname(createRequire(import.meta.url).resolve('@vercel/cosmosdb-server/package.json'));
const tls = { cert: readFileSync(join(serverDir, 'cert.pem')), key: readFileSync(join(serverDir, 'key.pem')) };

/**
 * Starts an HTTPS proxy on loopback that forwards to `target` (the real embedded server) or
 * injects a fault: 429 throttling answers with a retry hint, hanging without an answer, or
 * resetting the connection. Real network behaviour for the real SDK, on this machine only.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const agent = new Agent({ rejectUnauthorized: false, keepAlive: true });
  const upstream = new URL(target);
  let mode: FaultMode = 'pass';
  let pending: { after: number; mode: FaultMode } | undefined;
  const counts = { requests: 0, queries: 0 };
  const hanging = new Set<ServerResponse>();
  let hangPath: RegExp | undefined;
  const abandoned = { count: 0 };

  const server: Server = createServer(tls, (request: IncomingMessage, response: ServerResponse) => {
    counts.requests++;
    if (request.headers['x-ms-documentdb-isquery'] === 'True' || request.headers['x-ms-documentdb-isquery'] === 'true') {
      counts.queries++;
      if (pending && pending.after-- <= 0) {
        mode = pending.mode;
        pending = undefined;
      }
    }
    if (mode === 'reset') {
      request.socket.destroy();
      return;
    }
    if (mode === 'hang' || (hangPath !== undefined && hangPath.test(request.url ?? ''))) {
      hanging.add(response);
      // The client closing while the answer hangs: it gave the request up (its signal, its timeout).
      response.on('close', () => {
        if (hanging.delete(response)) abandoned.count++;
      });
      return;
    }
    if (mode === 'throttle') {
      response.writeHead(429, { 'content-type': 'application/json', 'x-ms-retry-after-ms': '20', 'x-ms-substatus': '3200' });
      response.end(JSON.stringify({ code: 'TooManyRequests', message: 'Request rate is large (injected)' }));
      return;
    }
    const forward = httpsRequest({
      host: upstream.hostname, port: upstream.port, path: request.url, method: request.method, headers: request.headers, agent,
    }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    forward.on('error', () => request.socket.destroy());
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    abandoned,
    hangWhere(path) {
      hangPath = path;
    },
    setMode(next) {
      mode = next;
      pending = undefined;
      if (next !== 'hang') for (const response of [...hanging]) {
        hanging.delete(response);
        response.socket?.destroy();
      }
    },
    failAfterQueries(after, next) {
      pending = { after, mode: next };
    },
    stop: () => new Promise<void>((resolve) => {
      for (const response of [...hanging]) {
        hanging.delete(response);
        response.socket?.destroy();
      }
      server.close(() => resolve());
      server.closeAllConnections();
      agent.destroy();
    }),
  };
}
