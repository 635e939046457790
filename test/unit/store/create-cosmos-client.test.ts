import { describe, expect, it } from '@jest/globals';
import type { AccessToken, TokenCredential } from '@azure/identity';
import { createCosmosClient } from '../../../shared/store/create-cosmos-client.js';

const credential: TokenCredential = { getToken: async (): Promise<AccessToken | null> => null };

describe('createCosmosClient', () => {
  it.each(['https://127.0.0.1:8081', 'https://127.3.2.1:8081', 'https://localhost:8081', 'https://[::1]:8081'])(
    'accepts a self-signed certificate on the loopback endpoint %s',
    (endpoint) => {
      const client = createCosmosClient({ endpoint, key: 'local', allowSelfSignedTls: true });
      expect(client).toBeDefined();
      client.dispose();
    },
  );

  it.each(['https://acct.documents.azure.com:443/', 'https://10.0.0.4:8081', 'https://localhost.example.com:8081'])(
    'refuses a self-signed certificate on the non-loopback endpoint %s',
    (endpoint) => {
      expect(() => createCosmosClient({ endpoint, key: 'local', allowSelfSignedTls: true })).toThrow(TypeError);
    },
  );

  it('takes a credential for an Azure endpoint', () => {
    const client = createCosmosClient({ endpoint: 'https://acct.documents.azure.com:443/', credential });
    expect(client).toBeDefined();
    client.dispose();
  });

  it('needs exactly one of key and credential', () => {
    const endpoint = 'https://acct.documents.azure.com:443/';
    expect(() => createCosmosClient({ endpoint })).toThrow(TypeError);
    expect(() => createCosmosClient({ endpoint, key: 'k', credential })).toThrow(TypeError);
  });

  it('refuses an endpoint that is not a URL', () => {
    expect(() => createCosmosClient({ endpoint: '127.0.0.1:8081 (no scheme)', key: 'k' })).toThrow(TypeError);
  });
});
