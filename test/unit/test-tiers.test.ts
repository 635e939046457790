import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The unit tier starts nothing: no process, no server, no store, no identity provider. A test
// that needs one belongs to the stack tier (test/integration and beside it), whose global setup
// starts the local stack once; docs/testing.md says which tier holds what.
const STARTERS: readonly RegExp[] = [
  /from 'node:(child_process|http|https|net|http2|worker_threads)'/,
  /from '[./]*\/dev\/(cosmos-server|identity-provider|local-stack|gateway|functions-host)\.js'/,
  /from '[./]*\/support\/(run-child|stack|own-tenant|test-service|fake-service|fault-proxy|python-env)\.js'/,
  /\b(spawn|spawnSync|execFile|execFileSync|execSync|fork)\(|\.listen\(/,
];

function testFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the unit tier', () => {
  it('starts nothing: no test in test/unit or test/infra imports or calls what starts a process or a server', () => {
    const files = [...testFiles('test/unit'), ...testFiles('test/infra')];
    expect(files.length).toBeGreaterThan(60);
    const starting = files.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return STARTERS.filter((pattern) => pattern.test(text)).map((pattern) => `${file}: ${pattern.source}`);
    });
    expect(starting).toEqual([]);
  });
});
