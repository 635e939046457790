import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import HeaviestKindFirst from '../heaviest-kind-first.js';

// The order jest starts suites in (test/heaviest-kind-first.js): last run's failures first, then the
// CLI suites, then the other suites against the stack, then the unit tier; within a kind, jest's own
// order (the last run's times where it has them, file size where it has none, as on a fresh checkout).
describe('the suites\' order', () => {
  const cacheDirectory = mkdtempSync(join(tmpdir(), 'sequencer-'));
  afterAll(() => rmSync(cacheDirectory, { recursive: true, force: true }));
  const sizes: Record<string, number> = {
    '/repo/test/unit/big.test.ts': 90_000,
    '/repo/test/integration/recipes.test.ts': 17_000,
    '/repo/test/client/exact-folders-job.test.ts': 202,
    '/repo/test/client/pull-client.test.ts': 32_000,
    '/repo/test/e2e/walkthrough.test.ts': 4_600,
    '/repo/test/infra/function-app.test.ts': 3_000,
  };
  const context = { config: { cacheDirectory, name: 'order', id: 'order', cache: true, haste: {} }, hasteFS: { getSize: (path: string) => sizes[path] } };
  const tests = () => Object.keys(sizes).map((path) => ({ path, context }));
  const order = () => (new HeaviestKindFirst().sort(tests() as never) as unknown as { path: string }[]).map((test) => test.path.replace('/repo/test/', ''));

  it('starts the CLI suites first, then the stack\'s, then the unit tier, each kind by size on a fresh checkout', () => {
    expect(order()).toEqual([
      'client/pull-client.test.ts', 'client/exact-folders-job.test.ts',
      'integration/recipes.test.ts', 'e2e/walkthrough.test.ts',
      'unit/big.test.ts', 'infra/function-app.test.ts',
    ]);
  });

  it('starts last run\'s failures first, whatever their kind, then each kind by last run\'s times', () => {
    // A run's results, as jest hands them to the sequencer at its end (its perf cache).
    const seconds: Record<string, number> = { 'client/pull-client.test.ts': 100, 'client/exact-folders-job.test.ts': 150, 'integration/recipes.test.ts': 70, 'e2e/walkthrough.test.ts': 20, 'unit/big.test.ts': 5, 'infra/function-app.test.ts': 3 };
    const results = Object.entries(seconds).map(([path, runtime]) => ({ testFilePath: `/repo/test/${path}`, numFailingTests: path === 'infra/function-app.test.ts' ? 1 : 0, perfStats: { runtime: runtime * 1000 }, skipped: false }));
    new HeaviestKindFirst().cacheResults(tests() as never, { testResults: results } as never);
    expect(order()).toEqual([
      'infra/function-app.test.ts',
      'client/exact-folders-job.test.ts', 'client/pull-client.test.ts',
      'integration/recipes.test.ts', 'e2e/walkthrough.test.ts',
      'unit/big.test.ts',
    ]);
  });
});
