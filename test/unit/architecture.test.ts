import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

// The direction of dependencies (docs/architecture.md), checked on the source: functions/ →
// shared/app → shared/http → shared/exports → shared/results →
// shared/{auth,filters,access,store,cursors,output,admission} →
// shared/{model,errors,config,telemetry} → shared/util. A folder may import its own rank
// or below, never above, and folders of one rank never import each other in a cycle.
const RANK: Readonly<Record<string, number>> = {
  functions: 5,
  'shared/app': 4,
  'shared/http': 3,
  // Export jobs read results as the summary operations do, and speak no HTTP: their operations' edges are http's.
  'shared/exports': 2.75,
  // Reading a result (its version, precondition, slot, store reads) for any consumer, HTTP or not.
  'shared/results': 2.5,
  // The delta feed's engine: what changed in a view since a state (reads the store, as results do).
  'shared/delta': 2.5,
  'shared/auth': 2, 'shared/filters': 2, 'shared/access': 2, 'shared/store': 2, 'shared/cursors': 2, 'shared/output': 2, 'shared/admission': 2,
  'shared/model': 1, 'shared/errors': 1, 'shared/config': 1, 'shared/telemetry': 1,
  'shared/util': 0,
};

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** `from` folder → the folders and packages its files import. */
function importsOf(file: string): { folders: string[]; packages: string[] } {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)].map((match) => match[1]!);
  return {
    folders: specifiers.filter((spec) => spec.startsWith('.')).map((spec) => folderOf(normalize(join(dirname(file), spec)))),
    packages: specifiers.filter((spec) => !spec.startsWith('.') && !spec.startsWith('node:')),
  };
}

function folderOf(file: string): string {
  const path = relative('.', file);
  return path.startsWith('functions') ? 'functions' : path.split('/').slice(0, 2).join('/');
}

const files = [...sources('functions'), ...sources('shared')];

describe('the dependencies of the runtime code', () => {
  it('every folder has a rank', () => {
    for (const file of files) expect([file, RANK[folderOf(file)]]).toEqual([file, expect.any(Number)]);
  });

  it('point one way: never to a higher rank', () => {
    let checked = 0;
    for (const file of files) {
      const rank = RANK[folderOf(file)]!;
      for (const target of importsOf(file).folders) {
        expect([file, target, RANK[target]! <= rank]).toEqual([file, target, true]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('have no cycle between folders', () => {
    const edges = new Map<string, Set<string>>();
    for (const file of files) {
      const from = folderOf(file);
      for (const to of importsOf(file).folders) if (to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
    const reaches = (from: string, target: string, seen = new Set<string>()): boolean =>
      [...(edges.get(from) ?? [])].some((next) => next === target || (!seen.has(next) && (seen.add(next), reaches(next, target, seen))));
    for (const folder of edges.keys()) expect([folder, reaches(folder, folder)]).toEqual([folder, false]);
  });

  it('keep each SDK behind its seams: @azure/functions in the app and http, @azure/cosmos in store and cursors, the storage SDKs in exports (and blobs in delta), @azure/identity in the app', () => {
    const owners: Readonly<Record<string, readonly string[]>> = {
      '@azure/functions': ['functions', 'shared/app', 'shared/http'],
      '@azure/cosmos': ['shared/store', 'shared/cursors'],
      '@azure/storage-blob': ['shared/exports', 'shared/delta'],
      '@azure/storage-queue': ['shared/exports'],
      // The service's own identity is made at start-up; others only name its type.
      '@azure/identity': ['shared/app', 'shared/telemetry', 'shared/store'],
    };
    for (const file of files) {
      for (const pkg of importsOf(file).packages) {
        const allowed = owners[pkg];
        if (allowed) expect([file, pkg, allowed.includes(folderOf(file))]).toEqual([file, pkg, true]);
      }
    }
  });

  it('hold nothing dev-only: every file under shared/ is reached from functions/ (imports, lazy imports, workers)', () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      const text = readFileSync(file, 'utf8');
      const specifiers = [
        ...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms),
        ...text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g),
        // A script a module starts beside itself (a worker thread's), named by its file name.
        ...[...text.matchAll(/'([\w-]+\.js)'/g)].map((match) => [match[0], `./${match[1]}`]),
      ].map((match) => match[1]!);
      for (const spec of specifiers) {
        const target = relative('.', normalize(join(dirname(file), spec))).replace(/\.js$/, '.ts');
        if (existsSync(target)) visit(target);
      }
    };
    for (const file of sources('functions')) visit(file);
    expect(reached.size).toBeGreaterThan(80);
    const unreached = sources('shared').filter((file) => !reached.has(file));
    expect(unreached).toEqual([]);
  });

  it('never ship the OpenAPI generator: nothing at run time imports openapi/', () => {
    for (const file of files) expect([file, readFileSync(file, 'utf8').includes('/openapi/')]).toEqual([file, false]);
  });
});

describe('the OpenAPI generator (openapi/)', () => {
  it('reads the wire contract where the pipeline does (shared/model, shared/config, shared/errors), never the pipeline itself', () => {
    for (const file of sources('openapi')) {
      for (const target of importsOf(file).folders) {
        expect([file, target, !['shared/app', 'shared/http', 'shared/output', 'shared/store', 'shared/cursors', 'shared/admission', 'shared/auth'].includes(target)]).toEqual([file, target, true]);
      }
    }
  });
});

describe('the Parquet wing (shared/output/parquet)', () => {
  it('is an engine of its own: it knows the service only by its field model, the export limit and the export slots', () => {
    const wing = sources('shared/output/parquet');
    expect(wing.length).toBeGreaterThan(8);
    const allowed = ['shared/output/parquet', 'shared/model/fields.ts', 'shared/util', 'shared/output/output-limit-exceeded.ts', 'shared/admission/export-slots.ts'];
    for (const file of wing) {
      const text = readFileSync(file, 'utf8');
      for (const [, spec] of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)) {
        const target = relative('.', normalize(join(dirname(file), spec!))).replace(/\.js$/, '.ts');
        expect([file, target, allowed.some((prefix) => target.startsWith(prefix))]).toEqual([file, target, true]);
      }
    }
  });
});

describe('the pull client', () => {
  const clientFiles = sources('client/src');
  const manifest = JSON.parse(readFileSync('client/package.json', 'utf8')) as { dependencies: Record<string, string> };

  it('is a package of its own: imports nothing from the rest of the repository', () => {
    expect(clientFiles.length).toBeGreaterThan(5);
    for (const file of clientFiles) {
      for (const target of importsOf(file).folders) expect([file, target]).toEqual([file, 'client/src']);
    }
  });

  it('declares every package it imports (so that it installs on its own)', () => {
    for (const file of clientFiles) {
      for (const pkg of importsOf(file).packages) {
        const name = pkg.startsWith('@') ? pkg.split('/').slice(0, 2).join('/') : pkg.split('/')[0]!;
        expect([file, name, Object.hasOwn(manifest.dependencies, name)]).toEqual([file, name, true]);
      }
    }
  });
});
