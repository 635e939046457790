import type { DevIdentities } from './identities.js';

/** What the token endpoint answers (only `access_token` may be used; `id_token` exists for tests that prove it is refused). */
export interface TokenResponse {
  readonly access_token: string;
  readonly id_token: string;
}

/**
 * Tokens for a dev client, obtained the way a caller gets them: OAuth 2.0 client credentials at
 * the identity provider's token endpoint (`{authUrl}/{tenant}/oauth2/v2.0/token`).
 */
export async function requestTokens(authUrl: string, identities: DevIdentities, clientName: string): Promise<TokenResponse> {
  const client = identities.clients.find((candidate) => candidate.name === clientName);
  if (!client) throw new Error(`no dev client ${clientName}`);
  const response = await fetch(`${authUrl}/${identities.tenantId}/oauth2/v2.0/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      scope: `api://${identities.appId}/.default`,
    }),
  });
  if (response.status !== 200) throw new Error(`the token endpoint answered ${response.status} for ${clientName}`);
  return (await response.json()) as TokenResponse;
}
