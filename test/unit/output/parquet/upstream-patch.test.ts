import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../../../dev/project-root.js';

// patches/upstream/ holds ParquetWriter.appendRowGroup as a contribution to hyparquet-writer (the
// method, its test, docs/parquet.md "Upstream"): it must be the method we run, and the test we run
// (jest runs patches/upstream/write.appendRowGroup.test.js against the patched package).
const root = projectRoot();
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The lines a diff adds to `file`, without their `+`. */
function added(patch: string, file: string): string[] {
  const section = patch.split('diff --git ').find((part) => part.startsWith(`a/${file} `) || part.includes(`+++ b/${file}\n`));
  if (!section) throw new Error(`no diff of ${file}`);
  return section.split('\n').filter((line) => line.startsWith('+') && !line.startsWith('+++')).map((line) => line.slice(1));
}

describe('the upstream contribution of appendRowGroup', () => {
  const upstream = read('patches/upstream/hyparquet-writer-append-row-group.diff');

  it('adds the method the project runs (its patch-package patch), but for the line naming this project', () => {
    const running = added(read('patches/hyparquet-writer+0.17.0.patch'), 'node_modules/hyparquet-writer/src/parquet-writer.js');
    expect(added(upstream, 'src/parquet-writer.js')).toEqual(running.filter((line) => !line.includes('summary-data-service')));
    expect(upstream).not.toMatch(/summary-data-service|summary-service/);
  });

  it('carries as its test the file jest runs here', () => {
    expect(added(upstream, 'test/write.appendRowGroup.test.js').join('\n')).toBe(read('patches/upstream/write.appendRowGroup.test.js').trimEnd());
  });
});

describe('the patches folder', () => {
  it('holds only patches patch-package can name, so a fresh npm ci prints no "Unrecognized patch file"', () => {
    const files = readdirSync(join(root, 'patches'), { recursive: true }).map(String);
    const patches = files.filter((file) => file.endsWith('.patch'));
    expect(patches.length).toBeGreaterThan(0);
    // patch-package's own name: <package>+<version>.patch (a scope as @scope+name), at the top.
    for (const file of patches) expect([file, /^(@[^+/]+\+)?[^+/]+\+\d[^+/]*\.patch$/.test(file)]).toEqual([file, true]);
  });
});
