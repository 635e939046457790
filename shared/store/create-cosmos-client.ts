/**
 * Builds the one `CosmosClient` the store uses: key auth against the local embedded server, a
 * managed-identity (or any Entra ID) credential in Azure.
 */
import https from 'node:https';
import { CosmosClient } from '@azure/cosmos';
import type { TokenCredential } from '@azure/identity';
import { isLoopbackUrl } from '../util/is-loopback-url.js';

/** How to reach a Cosmos account. Exactly one of `key` and `credential` is required. */
export interface CosmosClientOptions {
  /** Account endpoint, e.g. `https://127.0.0.1:8081` or `https://<account>.documents.azure.com:443/`. */
  readonly endpoint: string;
  /** Account key: for the local server; in Azure use `credential`. */
  readonly key?: string;
  /** Entra ID credential (managed identity in Azure). */
  readonly credential?: TokenCredential;
  /**
   * Accept the local server's self-signed certificate. Only allowed for a loopback endpoint, so a
   * setting copied into a deployed environment cannot silently turn off TLS verification.
   */
  readonly allowSelfSignedTls?: boolean;
}

/**
 * A request that gets no answer fails after this long instead of the SDK's 60 s default: the
 * service answers 503 `STORE_UNAVAILABLE` and the caller retries, rather than holding a function.
 */
const REQUEST_TIMEOUT_MS = 10_000;

/** Throttling (429) retries, bounded so one slow request cannot outlive its HTTP caller. */
const THROTTLE_RETRY = { maxRetryAttemptCount: 3, maxWaitTimeInSeconds: 5 } as const;

function parseEndpoint(endpoint: string): URL {
  try {
    return new URL(endpoint);
  } catch {
    throw new TypeError(`Cosmos endpoint "${endpoint}" is not a URL; expected e.g. https://127.0.0.1:8081`);
  }
}

/**
 * Creates a Cosmos client for `options.endpoint`.
 *
 * Endpoint discovery is off: a single-region account gains nothing from it, and with it on, an
 * endpoint that accepts connections but never answers kept one query waiting 242 s with a 2 s
 * request timeout (measured: the SDK's endpoint-discovery policy allows 120 retries); with it off the
 * query fails after one request timeout. Connection refusals fail at once either way.
 *
 * @throws TypeError when the endpoint is not a URL, when neither or both of `key` and `credential`
 *   are given, or when `allowSelfSignedTls` is set for an endpoint that is not loopback.
 */
export function createCosmosClient(options: CosmosClientOptions): CosmosClient {
  const url = parseEndpoint(options.endpoint);
  if ((options.key === undefined) === (options.credential === undefined)) {
    throw new TypeError('createCosmosClient needs exactly one of `key` (local server) and `credential` (Azure)');
  }
  if (options.allowSelfSignedTls === true && !isLoopbackUrl(url.href)) {
    throw new TypeError(
      `allowSelfSignedTls is only allowed for a loopback endpoint (127.x, localhost, ::1), not "${url.hostname}"`,
    );
  }
  return new CosmosClient({
    endpoint: options.endpoint,
    ...(options.key !== undefined ? { key: options.key } : {}),
    ...(options.credential !== undefined ? { aadCredentials: options.credential } : {}),
    // keepAlive: a fresh TLS handshake per request made local upserts about 4x slower (measured).
    ...(options.allowSelfSignedTls === true
      ? { agent: new https.Agent({ rejectUnauthorized: false, keepAlive: true }) }
      : {}),
    connectionPolicy: {
      enableEndpointDiscovery: false,
      requestTimeout: REQUEST_TIMEOUT_MS,
      retryOptions: { ...THROTTLE_RETRY },
    },
  });
}
