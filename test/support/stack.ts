import { readFileSync } from 'node:fs';
import { CosmosClient } from '@azure/cosmos';
import { createCosmosClient } from '../../shared/store/create-cosmos-client.js';
import { loadDevIdentities, type DevClient } from '../../dev/identities.js';
import { requestTokens, type TokenResponse } from '../../dev/request-tokens.js';
import { trustInThisProcess } from '../../dev/local-ca.js';

/** Where the global setup started the local stack. */
export const stack = {
  baseUrl: required('STACK_BASE_URL'),
  authUrl: required('STACK_AUTH_URL'),
  /** The local CA the identity provider's certificate comes from: give child processes NODE_EXTRA_CA_CERTS=caFile. */
  caFile: required('STACK_CA_FILE'),
  cosmosEndpoint: required('STACK_COSMOS_ENDPOINT'),
  cosmosKey: required('STACK_COSMOS_KEY'),
  /** Azurite's account URLs (https from the local CA; calls carry a token). */
  blobUrl: required('STACK_BLOB_URL'),
  queueUrl: required('STACK_QUEUE_URL'),
  seedRecords: Number(required('STACK_SEED_RECORDS')),
};

export const identities = loadDevIdentities();

// Tests reach the identity provider over https, as every caller does who trusts the local CA.
trustInThisProcess({ certPem: readFileSync(stack.caFile, 'utf8') });

/** A dev client by name. */
export function client(name: string): DevClient {
  const found = identities.clients.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no dev client ${name}`);
  return found;
}

const tokens = new Map<string, Promise<TokenResponse>>();

/** The token response for a dev client, from the local identity provider (cached per run). */
export function tokenResponse(name: string): Promise<TokenResponse> {
  let pending = tokens.get(name);
  if (!pending) {
    pending = requestTokens(stack.authUrl, identities, name);
    tokens.set(name, pending);
  }
  return pending;
}

/** The access token of a dev client. */
export async function accessToken(name: string): Promise<string> {
  return (await tokenResponse(name)).access_token;
}

/** Options of one call to a summary operation. */
export interface CallOptions {
  readonly as?: string;
  readonly body?: unknown;
  readonly rawBody?: string;
  readonly query?: string;
  readonly headers?: Record<string, string | undefined>;
  readonly method?: string;
  readonly path?: string;
}

/**
 * Calls an operation through the gateway with all three credentials (of `as`, default
 * contoso-full); `headers` entries override or, with `undefined`, remove them.
 */
export async function call(resource: 'contracts' | 'invoices', options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string | undefined> = {
    authorization: `Bearer ${await accessToken(options.as ?? 'contoso-full')}`,
    'ocp-apim-subscription-key': identities.subscriptionKeys[0],
    'x-api-key': identities.apiKeys[0],
    accept: 'application/json',
    'content-type': 'application/json',
    ...options.headers,
  };
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const path = options.path ?? `/v1/${resource}/summary`;
  return fetch(`${stack.baseUrl}${path}${options.query ? `?${options.query}` : ''}`, {
    method: options.method ?? 'POST',
    headers: Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    ...(body === undefined ? {} : { body }),
  });
}

/** The service's own types of what it answers: tests read responses as these. */
export type { ProblemDocument as Problem } from '../../shared/errors/problem-response.js';
export type { JsonEnvelope as Envelope } from '../../shared/output/json-envelope.js';

/** A Cosmos client on the embedded server, for checking answers against the store directly. */
export function directStore(): CosmosClient {
  return createCosmosClient({ endpoint: stack.cosmosEndpoint, key: stack.cosmosKey, allowSelfSignedTls: true });
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through jest (the global setup starts the stack)`);
  return value;
}
