import { readFileSync } from 'node:fs';
import { projectRoot } from '../dev/project-root.js';
import { cpus, loadavg, release, totalmem, type } from 'node:os';
import { join } from 'node:path';

function installedVersion(root: string, path: string): string {
  try {
    return (JSON.parse(readFileSync(join(root, path, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

/** Where and with what the figures were measured. */
export function machineFacts(startLoad: readonly number[]): string[] {
  const root = projectRoot();
  const cores = cpus();
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(' / ');
  return [
    `date: ${new Date().toISOString()}`,
    `node: ${process.version} (${type()} ${release()}, ${process.arch})`,
    `cores: ${cores.length} × ${cores[0]?.model.trim() ?? 'unknown'}; memory ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `load average (1/5/15 min) at start: ${load(startLoad)}; at end: ${load(loadavg())}`,
    `hyparquet-writer ${installedVersion(root, 'node_modules/hyparquet-writer')}, @duckdb/node-api ${installedVersion(root, 'test/tools/duckdb/node_modules/@duckdb/node-api')}, autocannon ${installedVersion(root, 'node_modules/autocannon')}`,
  ];
}
