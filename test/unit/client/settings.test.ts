import { describe, expect, it } from '@jest/globals';
import { readSettings, SettingsError } from '../../../client/src/settings.js';

const base = {
  SUMMARY_BASE_URL: 'https://gateway.example.com/summary',
  SUMMARY_SCOPE: 'api://22222222-2222-4222-8222-222222222222/.default',
  SUMMARY_SUBSCRIPTION_KEY: 'dev-subscription-key-0001',
  SUMMARY_API_KEY: 'dev-api-key-primary-0001',
  SUMMARY_CLIENT_ID: 'c0000001-0000-4000-8000-000000000002',
  SUMMARY_CLIENT_SECRET: 'dev-only-contoso-full-secret',
  SUMMARY_TENANT_ID: '11111111-1111-4111-8111-111111111111',
};

describe('the client settings', () => {
  it('read client credentials against Entra, or against a token URL', () => {
    expect(readSettings(base)).toMatchObject({ baseUrl: 'https://gateway.example.com/summary', client: base.SUMMARY_CLIENT_ID });
    const { SUMMARY_TENANT_ID: _tenant, ...rest } = base;
    expect(readSettings({ ...rest, SUMMARY_TOKEN_URL: 'https://login.example.com/11111111-1111-4111-8111-111111111111/oauth2/v2.0/token' }).client).toBe(base.SUMMARY_CLIENT_ID);
  });

  it('name every missing setting at once, and never a value', () => {
    const error = (() => {
      try {
        readSettings({ SUMMARY_CLIENT_SECRET: base.SUMMARY_CLIENT_SECRET });
      } catch (caught) {
        return caught as Error;
      }
      throw new Error('no error');
    })();
    expect(error).toBeInstanceOf(SettingsError);
    expect(error.message).toMatch(/SUMMARY_BASE_URL, SUMMARY_SCOPE, SUMMARY_SUBSCRIPTION_KEY, SUMMARY_API_KEY, SUMMARY_CLIENT_ID/);
    expect(error.message).not.toContain(base.SUMMARY_CLIENT_SECRET);
  });

  it.each([
    ['http beyond this machine', { SUMMARY_BASE_URL: 'http://gateway.example.com/summary' }, /must be https/],
    ['no URL', { SUMMARY_BASE_URL: 'gateway' }, /must be a URL/],
    ['an http authority', { SUMMARY_AUTHORITY_HOST: 'http://127.0.0.1:7072' }, /must be an https URL/],
    ['a token URL of another shape', { SUMMARY_TOKEN_URL: 'https://login.example.com/token' }, /Entra-shaped token endpoint/],
    ['an authority without a secret', { SUMMARY_CLIENT_SECRET: '', SUMMARY_AUTHORITY_HOST: 'https://127.0.0.1:7072' }, /with SUMMARY_CLIENT_SECRET only/],
  ])('refuse %s', (_case, change, message) => {
    expect(() => readSettings({ ...base, ...change })).toThrow(message);
  });

  it('take http on loopback (the local stack)', () => {
    expect(readSettings({ ...base, SUMMARY_BASE_URL: 'http://127.0.0.1:7071/api' }).baseUrl).toBe('http://127.0.0.1:7071/api');
  });
});
