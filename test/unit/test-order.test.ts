import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import HeaviestKindFirst from '../sequencer.js';

// The order jest starts suites in (test/sequencer.js): the CLI suites first, then the other
// suites against the stack, then the unit tier; within a kind, jest's own order (the last run's
// times where it has them, file size where it has none, as on a fresh checkout).
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
  const context = { config: { cacheDirectory, name: 'order', id: 'order' }, hasteFS: { getSize: (path: string) => sizes[path] } };
  const tests = Object.keys(sizes).map((path) => ({ path, context }));

  it('starts the CLI suites first, then the stack\'s, then the unit tier, each kind by size on a fresh checkout', () => {
    const order = (new HeaviestKindFirst().sort(tests as never) as unknown as { path: string }[]).map((test) => test.path.replace('/repo/test/', ''));
    expect(order).toEqual([
      'client/pull-client.test.ts', 'client/exact-folders-job.test.ts',
      'integration/recipes.test.ts', 'e2e/walkthrough.test.ts',
      'unit/big.test.ts', 'infra/function-app.test.ts',
    ]);
  });
});
