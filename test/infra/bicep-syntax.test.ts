import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import {
  INFRA,
  bicepparamAsBicep,
  declarations,
  filesUnder,
  fromRoot,
  literalString,
  parseBicep,
  parseBicepFile,
  syntaxProblems,
} from './bicep-tree.js';

const templates = filesUnder(INFRA, ['.bicep']);
const parameterFiles = filesUnder(INFRA, ['.bicepparam']);

describe('the Bicep grammar check', () => {
  it('finds the templates: main.bicep, the shared types and at least one module per resource kind', () => {
    const names = templates.map(fromRoot);
    expect(names).toEqual(expect.arrayContaining(['infra/main.bicep', 'infra/types.bicep']));
    expect(names.filter((name) => name.startsWith('infra/modules/')).length).toBeGreaterThanOrEqual(10);
    expect(parameterFiles.map(fromRoot)).toContain('infra/prod.bicepparam');
  });

  it('reports an unclosed object and a declaration without its value (the check can fail)', async () => {
    const broken = await parseBicep("param name string\nresource a 'Microsoft.Web/sites@2023-12-01' = {\n  name: name\n");
    expect(syntaxProblems(broken).length).toBeGreaterThan(0);
    const missing = await parseBicep('var x =\noutput y string = x\n');
    expect(syntaxProblems(missing).length).toBeGreaterThan(0);
  });

  it('accepts the constructs the templates rely on: imports, typed objects, loops, lambdas, safe access', async () => {
    const file = await parseBicep([
      "import { a, b } from 'types.bicep'",
      '@export()',
      "type t = { @description('Optional. x') x: int?, *: string }",
      "var ids = flatten(map(['p'], p => map(items({ r: '1' }), r => { p: p, r: r.value })))",
      "resource s 'Microsoft.Web/sites@2023-12-01' = [for (ip, i) in ['a']: { name: '${ip}-${i}', properties: { a: x.?b ?? 1 } }]",
    ].join('\n'));
    expect(syntaxProblems(file)).toEqual([]);
  });
});

describe.each(templates.map((path) => [fromRoot(path), path]))('%s', (_name, path) => {
  it('parses without a syntax error', async () => {
    expect(syntaxProblems(await parseBicepFile(path))).toEqual([]);
  });
});

describe.each(parameterFiles.map((path) => [fromRoot(path), path]))('%s', (_name, path) => {
  const source = readFileSync(path, 'utf8');

  it('parses without a syntax error (its `param name =` lines read as `var`)', async () => {
    expect(syntaxProblems(await parseBicep(bicepparamAsBicep(source), path))).toEqual([]);
  });

  it('uses one template that exists (main.bicep, or the sandbox entry point)', async () => {
    const file = await parseBicep(bicepparamAsBicep(source), path);
    const using = declarations(file, 'using_statement').map((node) => literalString(node.namedChildren[0]));
    expect(using).toEqual([expect.stringMatching(/^\.\/(main|sandbox)\.bicep$/)]);
    expect(existsSync(join(dirname(path), using[0]!))).toBe(true);
  });
});

describe('reading a parameters file as Bicep', () => {
  it('keeps every position, so a syntax error is reported where it is', async () => {
    const source = "using './main.bicep'\nparam a = 'x'\nparam b = {\n";
    const rewritten = bicepparamAsBicep(source);
    expect(rewritten).toHaveLength(source.length);
    const problems = syntaxProblems(await parseBicep(rewritten));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((problem) => problem.line >= 3)).toBe(true);
  });

  it('rewrites only parameter assignments at the start of a line', () => {
    expect(bicepparamAsBicep("param x = 'param y = 1'\n  param z = 2")).toBe("var   x = 'param y = 1'\n  param z = 2");
  });
});

describe('the grammar package', () => {
  it('is the real tree-sitter-bicep WebAssembly build', () => {
    const wasm = readFileSync(join(INFRA, '..', 'node_modules', 'tree-sitter-bicep', 'tree-sitter-bicep.wasm'));
    expect(wasm.subarray(0, 4)).toEqual(Buffer.from([0x00, 0x61, 0x73, 0x6d]));
  });
});
