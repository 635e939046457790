import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from './project-root.js';

interface DuckConnection {
  runAndReadAll(sql: string): Promise<{ getRowObjectsJS(): Record<string, unknown>[] }>;
  closeSync(): void;
}

/** Runs SQL, resolving with the rows as plain objects. */
export type Query = (sql: string) => Promise<Record<string, unknown>[]>;

/**
 * Runs `run` against DuckDB, in memory or in the database file `path` (files are read from where they are). DuckDB lives
 * outside the project's lock file, in test/tools/duckdb, which `npm start`, `npm test` and
 * `npm run sql` install once (test/tools/ensure-duckdb.js).
 */
export async function withDuckDb<T>(run: (query: Query) => Promise<T>, path = ':memory:'): Promise<T> {
  const requireTool = createRequire(join(projectRoot(), 'test', 'tools', 'duckdb', 'package.json'));
  const api = (await import(pathToFileURL(requireTool.resolve('@duckdb/node-api')).href)) as {
    DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<DuckConnection>; closeSync(): void }> };
  };
  const instance = await api.DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    return await run(async (sql) => (await connection.runAndReadAll(sql)).getRowObjectsJS());
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
