/**
 * The local stack's Cosmos DB: `@vercel/cosmosdb-server` in this process, over HTTPS with the
 * package's self-signed certificate, in memory (it starts empty every time).
 */
import type { AddressInfo } from 'node:net';
// CommonJS package: Node's ESM loader exposes module.exports as the default import.
import cosmosServer from '@vercel/cosmosdb-server';

/** Where to listen. */
export interface CosmosServerOptions {
  /** TCP port; 0 (the default) picks a free one. */
  readonly port?: number;
  /** Interface to bind; loopback by default so nothing outside this machine can reach it. */
  readonly host?: string;
}

/** A running server. */
export interface RunningCosmosServer {
  /** e.g. `https://127.0.0.1:8081`. */
  readonly endpoint: string;
  /** The account key to give the SDK. The server accepts any key; this one says so. */
  readonly key: string;
  /** Closes the listener and every open connection; resolves once the server is closed. */
  stop(): Promise<void>;
}

/** Base64 of "local cosmos server, not a secret": the SDK signs requests with a base64 key. */
export const LOCAL_COSMOS_KEY = 'bG9jYWwgY29zbW9zIHNlcnZlciwgbm90IGEgc2VjcmV0';

function endpointFor(address: AddressInfo): string {
  // A wildcard bind is still reached over loopback, which is also what allowSelfSignedTls requires.
  if (address.address === '0.0.0.0') return `https://127.0.0.1:${address.port}`;
  if (address.address === '::') return `https://[::1]:${address.port}`;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `https://${host}:${address.port}`;
}

/** Starts the embedded Cosmos server and resolves once it listens. */
export async function startCosmosServer(options: CosmosServerOptions = {}): Promise<RunningCosmosServer> {
  const { port = 0, host = '127.0.0.1' } = options;
  // keepAlive: without it the server answers `Connection: close` and every request pays a TLS
  // handshake, which made seeding about 4x slower (measured).
  const server = cosmosServer.createHttpsServer({ keepAlive: true });
  // Node closes a connection idle for 5 s; a client that sends on it in that instant gets a reset
  // (ECONNRESET, a 503 of ours) instead of an answer. The SDK's agent keeps idle sockets with no
  // limit, so the race stays possible, but after 120 s idle instead of after the few seconds
  // between a test's or a bench's calls.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const endpoint = endpointFor(server.address() as AddressInfo);

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= new Promise<void>((resolve, reject) => {
      server.close((err) => (err ? reject(err) : resolve()));
      // close() only waits for idle keep-alive sockets to time out; end them now so a test run exits.
      server.closeAllConnections();
    });
    return stopped;
  };
  return { endpoint, key: LOCAL_COSMOS_KEY, stop };
}
