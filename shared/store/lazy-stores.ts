import type { CosmosStores } from './cosmos-stores.js';

/**
 * Both stores, built on first use: the Cosmos SDK is the largest module the app loads, and an
 * instance that starts cold answers its first request sooner when loading it overlaps with that
 * request instead of delaying the host's start. `load` runs once.
 */
export function lazyStores(load: () => Promise<CosmosStores>): CosmosStores {
  let stores: Promise<CosmosStores> | undefined;
  const get = () => (stores ??= load());
  return {
    store: {
      version: async (scope, query, meter) => (await get()).store.version(scope, query, meter),
      page: async (scope, query, request, meter) => (await get()).store.page(scope, query, request, meter),
      async *stream(scope, query, meter) {
        yield* (await get()).store.stream(scope, query, meter);
      },
    },
    cursors: {
      get: async (tenant, key) => (await get()).cursors.get(tenant, key),
      put: async (tenant, key, cursor) => (await get()).cursors.put(tenant, key, cursor),
    },
  };
}
