import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, SETTING_NAMES, loadConfig } from '../../../shared/config/load-config.js';

const example = JSON.parse(readFileSync(new URL('../../../local.settings.example.json', import.meta.url), 'utf8')) as { Values: Record<string, string> };
const valid = example.Values;

describe('loadConfig', () => {
  it('loads the example settings and freezes the result', () => {
    const config = loadConfig(valid);
    expect(config.auth.audiences).toHaveLength(2);
    expect(config.auth.issuer).toMatch(/\/v2\.0$/);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.auth)).toBe(true);
    expect(() => { (config as { maxPageSize: number }).maxPageSize = 5; }).toThrow(TypeError);
  });

  it('reads the public base URL without its trailing slash, and none when it is not set (pages then carry no links)', () => {
    expect(loadConfig({ ...valid, PUBLIC_BASE_URL: 'https://gateway.example.com/summary/' }).publicBaseUrl).toBe('https://gateway.example.com/summary');
    expect(loadConfig({ ...valid, PUBLIC_BASE_URL: '' }).publicBaseUrl).toBeUndefined();
    expect(loadConfig({ ...valid, PUBLIC_BASE_URL: 'https://Gateway.example.com/sum mary>/' }).publicBaseUrl).toBe('https://gateway.example.com/sum%20mary%3E');
  });

  it('lists every setting it reads in local.settings.example.json', () => {
    for (const name of SETTING_NAMES) expect(Object.keys(valid)).toContain(name);
  });

  it.each([
    ['AUTH_TENANT_ID', 'not-a-guid'],
    ['API_KEYS', 'short'],
    ['API_KEYS', ''],
    ['CLIENT_REGISTRY', '{not json'],
    ['CLIENT_REGISTRY', '{"client":"Bad Tenant"}'],
    ['COSMOS_ENDPOINT', 'http://cosmos.example.com'],
    ['PUBLIC_BASE_URL', 'http://gateway.example.com/summary'],
    ['PUBLIC_BASE_URL', 'https://gateway.example.com/summary?x=1'],
    ['PUBLIC_BASE_URL', 'https://user:pass@gateway.example.com/summary'],
    ['PUBLIC_BASE_URL', 'gateway.example.com/summary'],
    ['PUBLIC_BASE_URL', 'https://gateway.example.com/summary?'],
    ['PUBLIC_BASE_URL', 'https://gateway.example.com/summary#'],
    ['MAX_PAGE_SIZE', '0'],
    ['MAX_PAGE_SIZE', 'ten'],
    ['AUTH_AUTHORITY_HOST', 'http://login.example.com'],
  ])('stops on a bad %s and names it', (name, value) => {
    expect(() => loadConfig({ ...valid, [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...valid, [name]: value })).toThrow(name);
  });

  it('refuses self-signed TLS for a store that is not on loopback', () => {
    expect(() => loadConfig({ ...valid, COSMOS_ENDPOINT: 'https://prod.documents.azure.com', COSMOS_ALLOW_SELF_SIGNED_TLS: 'true' })).toThrow('COSMOS_ALLOW_SELF_SIGNED_TLS');
  });

  it('applies defaults to optional settings', () => {
    const { MAX_PAGE_SIZE: _a, MAX_RESULT_WINDOW: _b, STORE_TIMEOUT_MS: _c, ...rest } = valid;
    const config = loadConfig(rest);
    expect([config.maxPageSize, config.maxResultWindow, config.storeTimeoutMs]).toEqual([1000, 10000, 10000]);
  });

  it('never puts a key into the error message', () => {
    try {
      loadConfig({ ...valid, MAX_PAGE_SIZE: '0' });
    } catch (error) {
      expect(String(error)).not.toContain(valid.API_KEYS!.split(',')[0]);
    }
    expect.assertions(1);
  });
});

describe('the settings table (docs/operations.md)', () => {
  it('lists every setting loadConfig reads', () => {
    const table = readFileSync(new URL('../../../docs/operations.md', import.meta.url), 'utf8');
    for (const name of SETTING_NAMES) expect(table).toContain(`| \`${name}\` |`);
  });
});
