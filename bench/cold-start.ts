import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { packageApp, PACKAGE_DIR, PACKAGE_ZIP } from '../infra/scripts/package-app.js';
import { projectRoot } from '../dev/project-root.js';
import { median } from './median.js';

/** What the cold-start measurement reports. */
export interface ColdStartFigures {
  readonly runs: number;
  /** Median ms to import the function file in a fresh Node process, and RSS after it. */
  readonly unbundledMs: number;
  readonly bundledMs: number;
  readonly unbundledRssBytes: number;
  readonly bundledRssBytes: number;
  readonly bundleBytes: number;
  readonly zipBytes: number;
}

/** Settings with obviously fake values: enough for the function file to load (it reads them at import). */
const SETTINGS = {
  AUTH_TENANT_ID: '00000000-0000-4000-8000-000000000000',
  AUTH_APP_ID: '00000000-0000-4000-8000-000000000001',
  API_KEYS: 'placeholder-key-for-cold-start',
  CLIENT_REGISTRY: '{}',
  COSMOS_ENDPOINT: 'https://127.0.0.1:1',
  COSMOS_KEY: 'bm90IGEga2V5',
  LOG_REQUESTS: 'false',
};

/** One fresh process importing `file` as the Functions worker imports `main`: elapsed ms and RSS. */
function coldImport(file: string): { ms: number; rss: number } {
  const probe = `const t = performance.now(); await import(${JSON.stringify(file)}); console.log(JSON.stringify({ ms: performance.now() - t, rss: process.memoryUsage().rss }));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', probe], { env: { PATH: process.env.PATH, ...SETTINGS }, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  return JSON.parse(output.trim().split('\n').at(-1)!) as { ms: number; rss: number };
}

/**
 * The deploy artifact (`npm run package`, rebuilt here) against today's unbundled `dist/`, each
 * imported `runs` times in a fresh Node process, alternating, in the same run.
 */
export async function measureColdStart(runs: number): Promise<ColdStartFigures> {
  const root = projectRoot();
  const { bundleBytes } = await packageApp(root);
  const unbundled = join(root, 'dist/functions/summary-operations.js');
  const bundled = join(root, PACKAGE_DIR, 'dist/functions/summary-operations.js');
  const a: { ms: number; rss: number }[] = [];
  const b: { ms: number; rss: number }[] = [];
  coldImport(unbundled);
  coldImport(bundled);
  for (let i = 0; i < runs; i++) {
    a.push(coldImport(unbundled));
    b.push(coldImport(bundled));
  }
  return {
    runs,
    unbundledMs: median(a.map((sample) => sample.ms)),
    bundledMs: median(b.map((sample) => sample.ms)),
    unbundledRssBytes: median(a.map((sample) => sample.rss)),
    bundledRssBytes: median(b.map((sample) => sample.rss)),
    bundleBytes,
    zipBytes: statSync(join(root, PACKAGE_ZIP)).size,
  };
}
