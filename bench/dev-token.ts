import type { DevIdentities } from '../dev/identities.js';

/**
 * A real access token (RS256, signed by the dev identity provider) for a dev client, obtained the
 * way a caller gets one: client credentials at the provider's token endpoint, over loopback.
 */
export async function devAccessToken(authUrl: string, identities: DevIdentities, clientName: string): Promise<string> {
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
  return ((await response.json()) as { access_token: string }).access_token;
}

/** The client every benchmark call is made as: all roles, so every field is projected. */
export const BENCH_CLIENT = 'contoso-full';
