import type { JsonObject, JsonValue } from './json-schema.js';

/** The OAuth 2.0 scope a client requests its access token for. */
export const TOKEN_SCOPE = 'api://<APP_ID>/.default';

/** How the access token travels. */
export const BEARER_HEADER = 'Authorization: Bearer <access_token>';

/** The three credentials (`components.securitySchemes`); the token endpoint is under `authorityHost`. */
export function securitySchemes(authorityHost: string): Record<string, JsonObject> {
  return {
    accessToken: {
      type: 'oauth2',
      description: `An Entra ID access token (JWT) from the OAuth 2.0 client credentials flow, sent as \`${BEARER_HEADER}\`. `
        + `Request it for scope \`${TOKEN_SCOPE}\`; use access_token, never id_token. The client application needs the app role \`Data.Read\`; `
        + 'its other roles decide which fields and records it sees. Missing or invalid: 401 `INVALID_TOKEN`; no Data.Read: 403 `MISSING_ROLE`; '
        + 'client not registered for a data tenant: 403 `CLIENT_NOT_REGISTERED`. Replace <TENANT_ID> and <APP_ID> with the values issued to you.',
      flows: {
        clientCredentials: {
          // A valid URI (tools validate it): the placeholder is percent-encoded; replace it with your tenant id.
          tokenUrl: `${authorityHost}/%3CTENANT_ID%3E/oauth2/v2.0/token`,
          scopes: { [TOKEN_SCOPE]: 'Read the allowlisted summary data of your tenant.' },
        },
      },
    },
    subscriptionKey: {
      type: 'apiKey',
      in: 'header',
      name: 'Ocp-Apim-Subscription-Key',
      description: 'The API gateway subscription key issued for your environment. Missing or wrong: 401 `INVALID_SUBSCRIPTION_KEY`.',
    },
    apiKey: {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
      description: 'The backend API key issued to you. Missing or wrong: 401 `INVALID_API_KEY`.',
    },
  };
}

/** One requirement naming all three schemes: every call needs all of them together. */
export function securityRequirements(): JsonValue[] {
  return [{ accessToken: [TOKEN_SCOPE], subscriptionKey: [], apiKey: [] }];
}
