/**
 * Tests run as native ESM (the project is ESM: jose and hyparquet are ESM-only), transpiled one file
 * at a time by ts-jest (`isolatedModules`); `tsc` type-checks everything before jest starts (see
 * `npm test`). Not @swc/jest or jest 30: their platform-specific native packages are not all on
 * the registry these machines use, and `npm ci` then refuses the lock file.
 * The global setup starts the real local stack once: embedded Cosmos server, identity provider, service.
 */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/tools/'],
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  testTimeout: 30000,
};
