import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll } from '@jest/globals';

/**
 * Fresh temporary folders for the tests of one file, all removed once its tests are done. Call at
 * the top of a test file; each call of the returned function makes a new folder.
 */
export function tempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterAll(() => {
    // A pull's folder keeps its generations beside it (client/src/generations.ts).
    for (const dir of made.splice(0)) for (const path of [dir, join(dirname(dir), `.${basename(dir)}.summary-client`)]) rmSync(path, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
    made.push(dir);
    return dir;
  };
}
