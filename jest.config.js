import { availableParallelism } from 'node:os';

/**
 * Tests run as native ESM (the project is ESM: jose and hyparquet are ESM-only), their types
 * stripped one file at a time by Node's own `stripTypeScriptTypes` (test/transform-typescript.js);
 * `tsc` type-checks everything before jest starts (see `npm test`). Not @swc/jest or jest 30: their
 * platform-specific native packages are not all on the registry these machines use, and `npm ci`
 * then refuses the lock file.
 *
 * Two tiers (projects):
 * - `unit`: test/unit (the parts) and test/infra (the templates, offline); it starts nothing (no
 *   process, server or store: test/unit/test-tiers.test.ts holds it): `npm run test:unit`.
 * - `stack`: test/integration, test/e2e, test/security, test/client against the real local stack — embedded
 *   Cosmos server, identity provider, service — which its global setup starts once (jest runs a
 *   project's global setup only when a test of that project runs), and every test that starts
 *   something of its own.
 * `npm test` runs both.
 * - `system`: test/system, checks that need a Debian package (python3-msal): `npm run test:system`,
 *   which `.ci/run` calls after installing exactly those packages. It starts its own stack.
 */
const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': '<rootDir>/test/transform-typescript.js',
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/tools/'],
  // The compiled output, and the function app package that `npm test` makes (a copy of it).
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/package/'],
};

export default {
  // A safety net, not a measure: a test waits for the state it needs. Several suites at a time on
  // two cores, a heavy test (a year pulled through an export job, a property over many requests)
  // takes twice what it takes alone: 30 s failed such tests for no fault of theirs.
  testTimeout: 120_000,
  // The stack tier waits on servers more than it computes: on two cores, one suite at a time
  // (jest's default there) ran it in 1,373 s, three at a time in 425 s. Four at a time once made
  // suites contend for the shared stack's export slots (one per client: a synchronous export of
  // contoso-full waited past its 2 s and got EXPORTS_BUSY); since suites wait for what they need,
  // four at a time passes, and with the machine's cores then kept busy it is the fastest: 453 s
  // against 482 s for three, on a clean clone with an empty jest cache (docs/testing.md). Wider
  // machines run one suite per core.
  maxWorkers: Math.max(4, availableParallelism()),
  // The heaviest kind of suite first, also on a fresh checkout with no timings (test/heaviest-kind-first.js).
  testSequencer: '<rootDir>/test/heaviest-kind-first.js',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/test/infra/**/*.test.ts', '<rootDir>/patches/upstream/*.test.js'],
      // The upstream contribution's test (patches/upstream/) runs here as it would in
      // hyparquet-writer's repository: vitest's API is jest's, its `../src/index.js` the package.
      moduleNameMapper: { '^vitest$': '<rootDir>/test/support/vitest-api.js', '^\\.\\./src/index\\.js$': 'hyparquet-writer', ...common.moduleNameMapper },
    },
    {
      ...common,
      displayName: 'stack',
      testMatch: ['<rootDir>/test/{integration,e2e,security,client}/**/*.test.ts'],
      globalSetup: '<rootDir>/test/global-setup.js',
      globalTeardown: '<rootDir>/test/global-teardown.js',
    },
    {
      ...common,
      displayName: 'system',
      testMatch: ['<rootDir>/test/system/**/*.test.ts'],
      globalSetup: '<rootDir>/test/global-setup.js',
      globalTeardown: '<rootDir>/test/global-teardown.js',
    },
  ],
};
