import { describe, expect, it } from '@jest/globals';
import { MAX_REMEMBERED_HEADER, rememberCredentials } from '../../../shared/auth/remember-credentials.js';
import { createApiKeyChecker } from '../../../shared/auth/api-key-checker.js';
import type { TokenIdentity } from '../../../shared/auth/token-verifier.js';
import { ApiError } from '../../../shared/errors/api-error.js';

// The real key check over three obviously fake keys (one starting with digits); a verifier that counts its calls and knows a
// few tokens (the RS256 check itself is authenticate.test.ts's, against the dev provider).
const KEYS = ['fake-key-one-for-tests', 'fake-key-two-for-tests', '0123456789-fake-key'];
const REGISTRY = { 'client-a': 'contoso', 'client-b': 'fabrikam' };

function setup(options: { exp?: number; now?: () => number; maxEntries?: number; unavailable?: () => boolean } = {}) {
  const calls: string[] = [];
  const identities: Record<string, Omit<TokenIdentity, 'exp'>> = {
    a: { clientId: 'client-a', roles: ['Data.Read'] },
    b: { clientId: 'client-b', roles: ['Data.Read', 'Data.Read.Financials'] },
    c: { clientId: 'client-c', roles: ['Data.Read'] },
    norole: { clientId: 'client-a', roles: [] },
  };
  const authenticate = rememberCredentials({
    checkApiKey: createApiKeyChecker(KEYS),
    verifyToken: async (token) => {
      calls.push(token);
      if (options.unavailable?.()) throw new ApiError('IDENTITY_UNAVAILABLE', 'the key set could not be fetched');
      const identity = identities[token];
      if (identity === undefined) throw new ApiError('INVALID_TOKEN', 'unknown token');
      return { ...identity, exp: options.exp ?? 2000 };
    },
    clientRegistry: REGISTRY,
    // The test's clock counts seconds, as `exp` does; the service's clock counts milliseconds.
  }, { now: () => (options.now ?? (() => 1000))() * 1000, ...(options.maxEntries ? { maxEntries: options.maxEntries } : {}) });
  const call = (token: string, apiKey: string | null = KEYS[0]!) => authenticate({ authorization: `Bearer ${token}`, apiKey });
  return { calls, call, authenticate };
}

async function codeOf(pending: Promise<unknown>): Promise<string> {
  try {
    await pending;
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('the credentials cache', () => {
  it('checks a pair once and answers its repeats from memory, with the same caller', async () => {
    const { calls, call } = setup();
    const first = await call('a');
    expect(first).toEqual({ clientId: 'client-a', roles: ['Data.Read'], dataTenant: 'contoso' });
    await expect(call('a')).resolves.toEqual(first);
    await expect(call('b')).resolves.toMatchObject({ dataTenant: 'fabrikam' });
    await call('b');
    expect(calls).toEqual(['a', 'b']);
  });

  it('checks a remembered token in full with any other key: a wrong one is refused', async () => {
    const { calls, call } = setup();
    await call('a');
    expect(await codeOf(call('a', 'fake-key-wrong'))).toBe('INVALID_API_KEY');
    expect(await codeOf(call('a', null))).toBe('INVALID_API_KEY');
    expect(await codeOf(call('a', ''))).toBe('INVALID_API_KEY');
    // The other configured key passes, after a check of its own.
    await expect(call('a', KEYS[1])).resolves.toMatchObject({ dataTenant: 'contoso' });
    expect(calls).toEqual(['a', 'a']);
  });

  it('keeps the two headers apart: a key ending where another begins is another pair', async () => {
    const { call, authenticate } = setup();
    await call('a');
    // Same concatenated text, split elsewhere: must not be taken for the remembered pair.
    const shifted = authenticate({ apiKey: `${KEYS[0]}B`, authorization: 'earer a' });
    expect(await codeOf(shifted)).toBe('INVALID_API_KEY');
  });

  it('keeps a key that starts with digits apart from its length', async () => {
    const { call, authenticate } = setup();
    await call('a', '0123456789-fake-key');
    // Without the separator, "1" + "9" + "0123456789-fake-keyBearer a" would be the text of the
    // remembered pair, "19" + "0123456789-fake-key" + "Bearer a".
    const shifted = authenticate({ apiKey: '9', authorization: '0123456789-fake-keyBearer a' });
    expect(await codeOf(shifted)).toBe('INVALID_API_KEY');
  });

  it('keeps one entry per token however its header is spelled, so spellings cannot flush the cache', async () => {
    const { calls, authenticate } = setup({ maxEntries: 2 });
    await authenticate({ apiKey: KEYS[0]!, authorization: 'Bearer b' });
    const spellings = ['Bearer a', 'bearer a', 'Bearer  a', 'Bearer a ', 'BEARER     a', 'bEaReR a  '];
    for (const authorization of [...spellings, ...spellings]) {
      await expect(authenticate({ apiKey: KEYS[0]!, authorization })).resolves.toEqual({ clientId: 'client-a', roles: ['Data.Read'], dataTenant: 'contoso' });
    }
    expect(calls).toEqual(['b', 'a']);
    // b is still remembered: a's many spellings took one entry, not the cache.
    await authenticate({ apiKey: KEYS[0]!, authorization: 'Bearer b' });
    expect(calls).toEqual(['b', 'a']);
  });

  it('hands every request of a pair the same caller, which nobody can change', async () => {
    const { call } = setup();
    await call('b');
    const remembered = await call('b');
    expect(Object.isFrozen(remembered)).toBe(true);
    expect(() => (remembered.roles as string[]).push('Data.Read.Drafts')).toThrow(TypeError);
    await expect(call('b')).resolves.toEqual({ clientId: 'client-b', roles: ['Data.Read', 'Data.Read.Financials'], dataTenant: 'fabrikam' });
  });

  it('does not remember that the identity provider could not be reached', async () => {
    let down = true;
    const { calls, call } = setup({ unavailable: () => down });
    expect(await codeOf(call('a'))).toBe('IDENTITY_UNAVAILABLE');
    down = false;
    await call('a');
    await call('a');
    expect(calls).toEqual(['a', 'a']);
  });

  it('checks a header longer than any token in full every time, its key first', async () => {
    const { calls, authenticate } = setup();
    const long = { apiKey: KEYS[0]!, authorization: `Bearer a${' '.repeat(MAX_REMEMBERED_HEADER)}` };
    await authenticate(long);
    await authenticate(long);
    expect(calls).toEqual(['a', 'a']);
    expect(await codeOf(authenticate({ ...long, apiKey: 'fake-key-wrong' }))).toBe('INVALID_API_KEY');
  });

  it('never answers from memory at or past exp', async () => {
    let now = 1000;
    const { calls, call } = setup({ now: () => now });
    await call('a');
    now = 1999;
    await call('a');
    expect(calls).toEqual(['a']);
    now = 2000;
    await call('a');
    expect(calls).toEqual(['a', 'a']);
  });

  it('remembers no failure, and no pair whose token expired by the clock', async () => {
    const expired = setup({ exp: 500 });
    await expired.call('a');
    await expired.call('a');
    expect(expired.calls).toEqual(['a', 'a']);
    const { calls, call, authenticate } = setup();
    expect(await codeOf(call('norole'))).toBe('MISSING_ROLE');
    expect(await codeOf(call('norole'))).toBe('MISSING_ROLE');
    expect(await codeOf(call('c'))).toBe('CLIENT_NOT_REGISTERED');
    expect(await codeOf(call('c'))).toBe('CLIENT_NOT_REGISTERED');
    expect(await codeOf(call('unknown'))).toBe('INVALID_TOKEN');
    expect(await codeOf(call('unknown'))).toBe('INVALID_TOKEN');
    expect(await codeOf(authenticate({ apiKey: KEYS[0]!, authorization: null }))).toBe('INVALID_TOKEN');
    expect(calls).toEqual(['norole', 'norole', 'c', 'c', 'unknown', 'unknown']);
  });

  it('evicts nothing when two requests of one pair both missed', async () => {
    const { calls, call } = setup({ maxEntries: 2 });
    await call('b');
    await Promise.all([call('a'), call('a')]);
    await call('b');
    await call('a');
    expect(calls).toEqual(['b', 'a', 'a']);
  });

  it('stays within its size, dropping the least recently used', async () => {
    const { calls, call } = setup({ maxEntries: 2 });
    await call('a');
    await call('b');
    await call('a');
    await call('a', KEYS[1]);
    await call('a');
    await call('b');
    expect(calls).toEqual(['a', 'b', 'a', 'b']);
  });
});
