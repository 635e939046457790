import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withDuckDb, type Query } from '../../dev/duckdb.js';

export { withDuckDb };

/** Runs SQL against DuckDB over Parquet bytes written to a temporary file named `file`. */
export async function withParquetFile<T>(bytes: Uint8Array, run: (query: Query, path: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'parquet-'));
  const path = join(dir, 'file.parquet');
  writeFileSync(path, bytes);
  try {
    return await withDuckDb((query) => run((sql) => query(sql.replaceAll('$file', `read_parquet('${path}')`)), path));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
