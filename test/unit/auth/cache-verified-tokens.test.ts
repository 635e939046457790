import { describe, expect, it } from '@jest/globals';
import { cacheVerifiedTokens } from '../../../shared/auth/cache-verified-tokens.js';
import type { TokenIdentity } from '../../../shared/auth/token-verifier.js';
import { ApiError } from '../../../shared/errors/api-error.js';

function counting(exp: number) {
  const calls: string[] = [];
  const verify = async (token: string): Promise<TokenIdentity> => {
    calls.push(token);
    if (token.startsWith('bad')) throw new ApiError('INVALID_TOKEN', 'bad');
    return { clientId: `client-${token}`, roles: ['Data.Read'], exp };
  };
  return { calls, verify };
}

describe('the verified-token cache', () => {
  it('verifies a token once and answers repeats from the cache', async () => {
    const { calls, verify } = counting(2000);
    const cached = cacheVerifiedTokens(verify, { now: () => 1000 });
    await cached('t1');
    await expect(cached('t1')).resolves.toMatchObject({ clientId: 'client-t1' });
    expect(calls).toEqual(['t1']);
  });

  it('never answers from the cache at or past exp', async () => {
    let now = 1000;
    const { calls, verify } = counting(2000);
    const cached = cacheVerifiedTokens(async (token) => {
      if (now >= 2000) throw new ApiError('INVALID_TOKEN', 'expired');
      return verify(token);
    }, { now: () => now });
    await cached('t1');
    now = 1999;
    await cached('t1');
    expect(calls).toEqual(['t1']);
    now = 2000;
    await expect(cached('t1')).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
  });

  it('does not cache a token already expired by the clock, nor failures', async () => {
    const { calls, verify } = counting(500);
    const cached = cacheVerifiedTokens(verify, { now: () => 1000 });
    await cached('t1');
    await cached('t1');
    await expect(cached('bad')).rejects.toBeInstanceOf(ApiError);
    await expect(cached('bad')).rejects.toBeInstanceOf(ApiError);
    expect(calls).toEqual(['t1', 't1', 'bad', 'bad']);
  });

  it('stays within its size, dropping the least recently used', async () => {
    const { calls, verify } = counting(2000);
    const cached = cacheVerifiedTokens(verify, { now: () => 1000, maxEntries: 2 });
    await cached('a');
    await cached('b');
    await cached('a');
    await cached('c');
    await cached('a');
    await cached('b');
    expect(calls).toEqual(['a', 'b', 'c', 'b']);
  });
});
