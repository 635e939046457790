// Installs DuckDB (test/tools/duckdb) once, outside the project's lock file; see its package.json.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('./duckdb/', import.meta.url));
if (!existsSync(`${dir}node_modules/@duckdb/node-api/package.json`)) {
  console.log('Installing DuckDB for the Parquet tests and the benchmark (once)…');
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['install', '--no-package-lock', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
}
