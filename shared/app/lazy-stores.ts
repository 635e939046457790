import type { CosmosStores } from './cosmos-stores.js';

/**
 * The stores, built on first use: the Cosmos SDK is the largest module the app loads, and an
 * instance that starts cold answers its first request sooner when loading it overlaps with that
 * request instead of delaying the host's start. `load` runs once. Every call is passed on with all
 * its arguments (a cursor call's deadline signal included).
 */
export function lazyStores(load: () => Promise<CosmosStores>): CosmosStores {
  let stores: Promise<CosmosStores> | undefined;
  const get = () => (stores ??= load());
  type Store = CosmosStores['store'];
  type Deltas = CosmosStores['deltas'];
  type Cursors = CosmosStores['cursors'];
  type Jobs = CosmosStores['jobs'];
  const job = <K extends keyof Jobs>(name: K) => (async (...args: unknown[]) => ((await get()).jobs[name] as (...a: unknown[]) => unknown)(...args)) as Jobs[K];
  type Ledger = Jobs['admissions'];
  const ledger = <K extends keyof Ledger>(name: K) => (async (...args: unknown[]) => ((await get()).jobs.admissions[name] as (...a: unknown[]) => unknown)(...args)) as Ledger[K];
  return {
    store: {
      version: async (...args: Parameters<Store['version']>) => (await get()).store.version(...args),
      page: async (...args: Parameters<Store['page']>) => (await get()).store.page(...args),
      async *stream(...args: Parameters<Store['stream']>) {
        yield* (await get()).store.stream(...args);
      },
    },
    deltas: {
      async *changed(...args: Parameters<Deltas['changed']>) {
        yield* (await get()).deltas.changed(...args);
      },
      count: async (...args: Parameters<Deltas['count']>) => (await get()).deltas.count(...args),
      keys: async (...args: Parameters<Deltas['keys']>) => (await get()).deltas.keys(...args),
      writtenAt: async (...args: Parameters<Deltas['writtenAt']>) => (await get()).deltas.writtenAt(...args),
    },
    cursors: {
      get: async (...args: Parameters<Cursors['get']>) => (await get()).cursors.get(...args),
      put: async (...args: Parameters<Cursors['put']>) => (await get()).cursors.put(...args),
    },
    jobs: {
      create: job('create'),
      replace: job('replace'),
      get: job('get'),
      remove: job('remove'),
      outcomes: job('outcomes'),
      record: job('record'),
      markDone: job('markDone'),
      versionsOf: job('versionsOf'),
      admissions: { admit: ledger('admit'), update: ledger('update'), release: ledger('release'), admitted: ledger('admitted') },
    },
  };
}
