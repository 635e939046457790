import type { AccessToken, GetTokenOptions, TokenCredential } from '@azure/identity';

/**
 * The app's managed identity, loaded when it is first asked for a token: `@azure/identity` is a
 * large module that a deployment using a key (the local stack) never needs, and loading it lazily
 * keeps it off every instance's cold start.
 */
export function lazyManagedIdentity(): TokenCredential {
  let credential: Promise<TokenCredential> | undefined;
  return {
    async getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken | null> {
      credential ??= import('@azure/identity').then(({ ManagedIdentityCredential }) => new ManagedIdentityCredential());
      return (await credential).getToken(scopes, options);
    },
  };
}
