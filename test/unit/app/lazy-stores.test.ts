import { describe, expect, it } from '@jest/globals';
import type { CosmosStores } from '../../../shared/app/cosmos-stores.js';
import { lazyStores } from '../../../shared/app/lazy-stores.js';

// The wrapper is pure forwarding: stores that record what reached them stand behind it.
function recording() {
  const calls: { name: string; args: unknown[] }[] = [];
  const record = (name: string) => async (...args: unknown[]) => {
    calls.push({ name, args });
    return undefined as never;
  };
  const stores = {
    store: {
      version: record('version'),
      page: record('page'),
      async *stream(...args: unknown[]) {
        calls.push({ name: 'stream', args });
        yield [];
      },
    },
    cursors: { get: record('get'), put: record('put') },
  } as unknown as CosmosStores;
  return { calls, stores };
}

describe('lazyStores', () => {
  it('loads once, on first use, and passes every argument on, the cursor deadline signal included', async () => {
    const { calls, stores } = recording();
    let loads = 0;
    const lazy = lazyStores(async () => (loads++, stores));
    expect(loads).toBe(0);
    const signal = AbortSignal.timeout(1000);
    const cursor = { continuation: 'c', totalRecords: 1, etag: 'W/"e"' };
    await lazy.cursors.get('contoso', 'key', signal);
    await lazy.cursors.put('contoso', 'key', cursor, signal);
    const scope = {} as never;
    const query = {} as never;
    await lazy.store.version(scope, query);
    for await (const _ of lazy.store.stream(scope, query)) void _;
    expect(loads).toBe(1);
    expect(calls.find((call) => call.name === 'get')!.args).toEqual(['contoso', 'key', signal]);
    expect(calls.find((call) => call.name === 'put')!.args).toEqual(['contoso', 'key', cursor, signal]);
    expect(calls.map((call) => call.name)).toEqual(['get', 'put', 'version', 'stream']);
  });
});
