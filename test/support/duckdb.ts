import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// DuckDB lives outside the project's lock file (test/tools/duckdb, installed by ensure-duckdb.js).
const requireTool = createRequire(new URL('../tools/duckdb/package.json', import.meta.url));

interface DuckConnection {
  runAndReadAll(sql: string): Promise<{ getRowObjectsJS(): Record<string, unknown>[] }>;
  closeSync(): void;
}

type Query = (sql: string) => Promise<Record<string, unknown>[]>;

/** Runs SQL against an in-memory DuckDB (files are read from where they are). */
export async function withDuckDb<T>(run: (query: Query) => Promise<T>): Promise<T> {
  const api = (await import(pathToFileURL(requireTool.resolve('@duckdb/node-api')).href)) as {
    DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<DuckConnection>; closeSync(): void }> };
  };
  const instance = await api.DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    return await run(async (sql) => (await connection.runAndReadAll(sql)).getRowObjectsJS());
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

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
