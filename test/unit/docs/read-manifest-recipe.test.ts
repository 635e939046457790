/**
 * docs/recipes/read_manifest.py, run by test/system/python-recipes.test.ts against the local stack;
 * here what no single run shows: pyarrow (under pandas too) is never handed a URL or Python bytes,
 * which can abort a finished script as it exits (apache/arrow#34314, docs/consuming.md).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../../dev/project-root.js';

const recipe = readFileSync(join(projectRoot(), 'docs/recipes/read_manifest.py'), 'utf8');

/** The calls of `reader` in the recipe, with what they are given. */
function calls(reader: string): string[] {
  return [...recipe.matchAll(new RegExp(`${reader.replace('.', '\\.')}\\(([^\\n]*?)\\)(?: for |,|$)`, 'gm'))].map((match) => match[1]!);
}

describe('docs/recipes/read_manifest.py', () => {
  it('hands pandas and pyarrow each file as a copy in Arrow\'s memory, never its URL', () => {
    const readers = [...calls('pd.read_parquet'), ...calls('pq.read_table')];
    expect(readers.length).toBe(2);
    for (const given of readers) expect(given).toMatch(/^in_arrow_memory\(/);
    expect(recipe).toMatch(/def in_arrow_memory\(data\):[\s\S]*?pa\.BufferOutputStream\(\)[\s\S]*?return pa\.BufferReader\(sink\.getvalue\(\)\)/);
  });

  it('lets polars and DuckDB read the URLs themselves: neither holds Python objects', () => {
    expect(recipe).toContain('pl.read_parquet(url)');
    expect(recipe).toContain('FROM read_parquet(?)", [urls]');
  });
});
