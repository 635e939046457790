/**
 * How jest turns the project's TypeScript into JavaScript: Node's own type stripping
 * (`module.stripTypeScriptTypes`, the transform Node 22 runs .ts files with), with a source map so
 * that a failing test points at its own line. No type is checked here: `npm test` runs `tsc` first,
 * and `tsconfig.json`'s `verbatimModuleSyntax` keeps every type-only import written as one, which
 * is what lets a file be transformed alone. It replaced ts-jest, which compiled each file with the
 * TypeScript compiler in every worker: most of what a run with an empty jest cache (CI's case) cost
 * over one with a warm cache (docs/testing.md).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';

// Parameter properties (`constructor(private readonly x)`) need 'transform'; 'strip' keeps columns but refuses them.
const OPTIONS = { mode: 'transform', sourceMap: true };

/** What a cached transform depends on besides the file: this transformer, the Node that strips, and coverage's instrumenting. */
const SELF = createHash('sha256').update(readFileSync(new URL(import.meta.url))).update(process.version).digest('hex');

export default {
  process(source, path) {
    if (typeof nodeModule.stripTypeScriptTypes !== 'function') {
      throw new Error(`Node ${process.version} cannot strip TypeScript types (Node 22.13 or later can): run the tests through npm (npm test), which runs the project's own Node 22`);
    }
    return { code: nodeModule.stripTypeScriptTypes(source, { ...OPTIONS, sourceUrl: path }) };
  },
  getCacheKey(source, path, options) {
    return createHash('sha256').update(SELF).update(options?.instrument ? 'instrumented' : 'plain').update(path).update('\0').update(source).digest('hex');
  },
};
