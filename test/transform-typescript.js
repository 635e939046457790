/**
 * How jest turns the project's TypeScript into JavaScript: Node's own type stripping
 * (`module.stripTypeScriptTypes`, the transform Node 22 runs .ts files with), with a source map so
 * that a failing test points at its own line. No type is checked here: `npm test` runs `tsc` first,
 * and `tsconfig.json`'s `verbatimModuleSyntax` keeps every type-only import written as one, which
 * is what lets a file be transformed alone. It replaced ts-jest, which compiled each file with the
 * TypeScript compiler in every worker: on a fresh checkout (CI's case) that was most of the 40 s
 * by which a run with an empty jest cache was slower than one with a warm cache (docs/testing.md).
 */
import { createHash } from 'node:crypto';
import { stripTypeScriptTypes } from 'node:module';

// Parameter properties (`constructor(private readonly x)`) need 'transform'; 'strip' keeps columns but refuses them.
const OPTIONS = { mode: 'transform', sourceMap: true };

export default {
  process(source, path) {
    return { code: stripTypeScriptTypes(source, { ...OPTIONS, sourceUrl: path }) };
  },
  getCacheKey(source, path) {
    return createHash('sha256').update(process.version).update(JSON.stringify(OPTIONS)).update(path).update('\0').update(source).digest('hex');
  },
};
