import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The parts of @duckdb/node-api 1.5's appender the benchmark uses. */
export interface DuckAppender {
  appendVarchar(value: string): void;
  appendDouble(value: number): void;
  appendInteger(value: number): void;
  appendNull(): void;
  endRow(): void;
  closeSync(): void;
}

/** The parts of a DuckDB connection the benchmark uses. */
export interface DuckConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<{ getRowObjectsJS(): Record<string, unknown>[] }>;
  createAppender(table: string): Promise<DuckAppender>;
  closeSync(): void;
}

/** An open in-memory DuckDB database. */
export interface DuckDatabase {
  readonly connection: DuckConnection;
  close(): void;
}

interface DuckModule {
  DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<DuckConnection>; closeSync(): void }> };
}

/**
 * DuckDB lives outside the project's lock file, in test/tools/duckdb (installed by
 * test/tools/ensure-duckdb.js), so it is found from the project root, not through node_modules.
 */
function toolRequire(): NodeJS.Require {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'test', 'tools', 'duckdb', 'package.json');
    if (existsSync(manifest)) return createRequire(manifest);
  }
  throw new Error('test/tools/duckdb not found: run `node test/tools/ensure-duckdb.js` first');
}

/** Opens an in-memory DuckDB database with its default settings (threads = cores). */
export async function openDuckDB(): Promise<DuckDatabase> {
  const api = (await import(pathToFileURL(toolRequire().resolve('@duckdb/node-api')).href)) as DuckModule;
  const instance = await api.DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  return {
    connection,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** Runs a query and returns its rows as plain objects. */
export async function queryRows(connection: DuckConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await connection.runAndReadAll(sql)).getRowObjectsJS();
}
