import { resolve } from 'node:path';
import type { DevIdentities } from './identities.js';

/** What a caller outside the stack needs to know about it. */
export interface StackEndpoints {
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly identities: DevIdentities;
  /** The local CA the identity provider's certificate comes from (the client trusts it through SUMMARY_CA_FILE). */
  readonly caFile?: string;
}

/**
 * The settings the pull client and the examples in docs/examples read, filled in for a dev client
 * of the local stack: `npm start` prints them as `export` lines and tests hand them to child
 * processes. Only obviously fake dev fixtures go in here.
 */
export function clientSettings(stack: StackEndpoints, clientName = 'contoso-full'): Record<string, string> {
  const { identities } = stack;
  const client = identities.clients.find((candidate) => candidate.name === clientName);
  if (!client) throw new Error(`no dev client ${clientName} in dev/identities.json`);
  return {
    SUMMARY_BASE_URL: stack.baseUrl,
    SUMMARY_AUTHORITY_HOST: stack.authUrl,
    SUMMARY_TENANT_ID: identities.tenantId,
    SUMMARY_CLIENT_ID: client.clientId,
    SUMMARY_CLIENT_SECRET: client.clientSecret,
    SUMMARY_SCOPE: `api://${identities.appId}/.default`,
    SUMMARY_SUBSCRIPTION_KEY: identities.subscriptionKeys[0]!,
    SUMMARY_API_KEY: identities.apiKeys[0]!,
    // Absolute: the line is pasted into shells that may be anywhere.
    ...(stack.caFile ? { SUMMARY_CA_FILE: resolve(stack.caFile) } : {}),
  };
}
