import type { DevIdentities } from '../dev/identities.js';
import { requestTokens } from '../dev/request-tokens.js';

/** A real access token (RS256, signed by the dev identity provider) for a dev client. */
export async function devAccessToken(authUrl: string, identities: DevIdentities, clientName: string): Promise<string> {
  return (await requestTokens(authUrl, identities, clientName)).access_token;
}

/** The client every benchmark call is made as: all roles, so every field is projected. */
export const BENCH_CLIENT = 'contoso-full';
