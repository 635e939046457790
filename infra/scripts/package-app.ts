/**
 * `npm run package`: the deploy artifact. The function app as one esbuild bundle (ESM, Node 22)
 * with only what runs in Azure — no dev stack, no OpenAPI generator, no node_modules — plus
 * host.json and a package.json whose `main` the Functions host loads; written to `package/` and
 * zipped to `package.zip` (what the pipeline uploads). Modules needed only in some configurations
 * (the managed identity) are split into chunks loaded on first use, outside the host's `main` glob.
 *
 * Why esbuild: it bundles TypeScript and ESM/CommonJS mixes in well under a second, ships as one
 * registry package with its binary, and supports code splitting for the lazy chunks; the
 * alternatives (rollup, webpack) need plugin stacks for the same.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { zipSync } from 'fflate';

/** Where the artifact goes, relative to the repository root. */
export const PACKAGE_DIR = 'package';
export const PACKAGE_ZIP = 'package.zip';

/** Builds the bundle into `<root>/package` and zips it; returns the zip's size in bytes. */
export async function packageApp(root: string): Promise<{ bundleBytes: number; zipBytes: number }> {
  const out = `${root}/${PACKAGE_DIR}`;
  rmSync(out, { recursive: true, force: true });
  mkdirSync(`${out}/dist/functions`, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: [
      { in: `${root}/functions/summary-operations.ts`, out: 'functions/summary-operations' },
      { in: `${root}/functions/export-jobs.ts`, out: 'functions/export-jobs' },
      // The row group workers' script, beside the chunks (one of which starts it), not among the function files.
      { in: `${root}/shared/output/parquet/row-group-worker.ts`, out: 'chunks/row-group-worker' },
    ],
    outdir: `${out}/dist`,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    // Provided by the Azure Functions Node worker at run time (@azure/functions loads it when present).
    external: ['@azure/functions-core'],
    metafile: true,
    // CommonJS dependencies inside an ES module bundle still call require() for Node's built-ins.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
    // The commit goes into every Parquet file's created_by (shared/output/parquet/created-by.ts).
    define: { __SUMMARY_BUILD__: JSON.stringify(buildCommit(root)) },
  });
  const rootPackage = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { name: string; version: string };
  writeFileSync(`${out}/package.json`, `${JSON.stringify({ name: rootPackage.name, version: rootPackage.version, private: true, type: 'module', main: 'dist/functions/*.js' }, null, 2)}\n`);
  writeFileSync(`${out}/host.json`, readFileSync(`${root}/host.json`));
  const files: Record<string, Uint8Array> = {};
  for (const path of [...Object.keys(result.metafile.outputs).map((file) => relative(out, join(root, file))), 'package.json', 'host.json']) {
    files[path] = readFileSync(`${out}/${path}`);
  }
  const zip = zipSync(files, { level: 9 });
  writeFileSync(`${root}/${PACKAGE_ZIP}`, zip);
  const bundleBytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  return { bundleBytes, zipBytes: zip.byteLength };
}

/** The short commit the artifact is built from, or `unknown` outside a git checkout. */
function buildCommit(root: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

// Run as a script: compiled to dist/infra/scripts/, so the repository root is three levels up.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
  const { bundleBytes, zipBytes } = await packageApp(root);
  console.log(`wrote ${PACKAGE_DIR}/ (${(bundleBytes / 1e6).toFixed(2)} MB of JavaScript) and ${PACKAGE_ZIP} (${(zipBytes / 1e6).toFixed(2)} MB)`);
}
