import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AccessToken, GetTokenOptions, TokenCredential } from '@azure/identity';
import { startCosmosServer, type RunningCosmosServer } from '../../dev/cosmos-server.js';
import { createCosmosClient } from '../../shared/store/create-cosmos-client.js';

// Against the embedded Cosmos server over HTTPS on loopback, with its self-signed certificate: a
// real TLS handshake and a real request through the SDK, no stack needed.
let server: RunningCosmosServer;

beforeAll(async () => {
  server = await startCosmosServer({ port: 0 });
});

afterAll(async () => {
  await server.stop();
});

/** A credential that records the scopes it is asked for and hands out an obviously fake token. */
function recordingCredential(): TokenCredential & { scopes: string[] } {
  const scopes: string[] = [];
  return {
    scopes,
    getToken: async (scope: string | string[], _options?: GetTokenOptions): Promise<AccessToken> => {
      scopes.push(...[scope].flat());
      return { token: 'fake-aad-token-for-tests', expiresOnTimestamp: Date.now() + 3_600_000 };
    },
  };
}

describe('createCosmosClient', () => {
  it('accepts the self-signed certificate of a loopback server when allowed, and reaches it', async () => {
    const client = createCosmosClient({ endpoint: server.endpoint, key: server.key, allowSelfSignedTls: true });
    try {
      const { database } = await client.databases.createIfNotExists({ id: 'tls-check' });
      expect(database.id).toBe('tls-check');
    } finally {
      client.dispose();
    }
  });

  it('refuses the same self-signed certificate when it is not allowed', async () => {
    const client = createCosmosClient({ endpoint: server.endpoint, key: server.key });
    try {
      await expect(client.databases.createIfNotExists({ id: 'tls-check' })).rejects.toMatchObject({
        code: expect.stringMatching(/SELF_SIGNED|UNABLE_TO_VERIFY|CERT/),
      });
    } finally {
      client.dispose();
    }
  });

  it.each(['https://127.0.0.1:8081', 'https://127.3.2.1:8081', 'https://localhost:8081', 'https://[::1]:8081'])(
    'allows a self-signed certificate for the loopback endpoint %s',
    (endpoint) => {
      expect(() => createCosmosClient({ endpoint, key: 'local', allowSelfSignedTls: true }).dispose()).not.toThrow();
    },
  );

  it.each(['https://acct.documents.azure.com:443/', 'https://10.0.0.4:8081', 'https://localhost.example.com:8081'])(
    'refuses a self-signed certificate for the non-loopback endpoint %s',
    (endpoint) => {
      expect(() => createCosmosClient({ endpoint, key: 'local', allowSelfSignedTls: true })).toThrow(TypeError);
    },
  );

  it('signs requests with the Entra ID credential it is given instead of a key', async () => {
    const credential = recordingCredential();
    const client = createCosmosClient({ endpoint: server.endpoint, credential, allowSelfSignedTls: true });
    try {
      await client.databases.createIfNotExists({ id: 'aad-check' });
      expect(credential.scopes.length).toBeGreaterThan(0);
      expect(credential.scopes.every((scope) => scope.endsWith('/.default'))).toBe(true);
    } finally {
      client.dispose();
    }
  });

  it('needs exactly one of key and credential', () => {
    const endpoint = 'https://acct.documents.azure.com:443/';
    const credential = recordingCredential();
    expect(() => createCosmosClient({ endpoint })).toThrow(TypeError);
    expect(() => createCosmosClient({ endpoint, key: 'k', credential })).toThrow(TypeError);
  });

  it('refuses an endpoint that is not a URL', () => {
    expect(() => createCosmosClient({ endpoint: '127.0.0.1:8081 (no scheme)', key: 'k' })).toThrow(TypeError);
  });
});
