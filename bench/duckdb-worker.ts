import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lineCount, readPool, type BenchResource } from './document-pool.js';
import { openDuckDB, queryRows, type DuckConnection } from './duckdb-api.js';
import { appendRecords, createTableSql, duckTables, type DuckTable } from './duckdb-tables.js';
import { peakRss, serveWorker, settle, type ProcessFigures } from './run-worker.js';

/** One DuckDB measurement: fed from JavaScript, or COPY from a table already loaded. */
export interface DuckInput {
  readonly mode: 'appender' | 'copy';
  readonly resource: BenchResource;
  readonly records: number;
  /** The pool of store documents (see writePool); read by the appender runs only. */
  readonly poolFile: string;
  /** Where the Parquet files go (`<table>-<tag>.parquet`). */
  readonly dir: string;
  readonly tag: string;
  /** copy: Parquet files (one per table) to load the tables from, outside the timer. */
  readonly sources?: readonly string[];
  /** DuckDB's threads setting; default: its own (the cores). */
  readonly threads?: number;
}

/** What one DuckDB measurement found. */
export interface DuckFigures extends ProcessFigures {
  readonly ms: number;
  readonly rows: number;
  /** All files together (invoices: two files, not zipped). */
  readonly bytes: number;
  readonly files: readonly string[];
  readonly codecs: readonly string[];
  readonly rowGroups: number;
  readonly threads: string;
}

async function measure(input: DuckInput): Promise<DuckFigures> {
  const { mode, resource, records, poolFile, dir, tag } = input;
  const tables = duckTables(resource);
  const files = tables.map((table) => join(dir, `${table.name}-${tag}.parquet`));
  const db = await openDuckDB();
  try {
    const { connection } = db;
    if (input.threads !== undefined) await connection.run(`SET threads = ${Math.trunc(input.threads)}`);
    for (const table of tables) await connection.run(createTableSql(table));
    const pool = mode === 'appender' ? readPool(poolFile) : [];
    if (mode === 'copy') {
      const sources = input.sources ?? [];
      if (sources.length !== tables.length) throw new Error('copy needs one source file per table');
      for (const [i, table] of tables.entries()) await connection.run(`INSERT INTO ${table.name} SELECT * FROM read_parquet('${sources[i]!}')`);
    }
    const rssBeforeBytes = settle();
    const started = performance.now();
    if (mode === 'appender') await appendRecords(connection, tables, pool, records);
    const bytes = await copyOut(connection, tables, files);
    const ms = performance.now() - started;
    const peakRssBytes = peakRss();
    const rows = await tableRows(connection, tables);
    const expected = records + (mode === 'appender' ? lineCount(pool, records) : 0);
    if (mode === 'appender' ? rows !== expected : rows < records) throw new Error(`DuckDB holds ${rows} rows, expected ${expected}`);
    const facts = await fileFacts(connection, files);
    const [setting] = await queryRows(connection, "SELECT current_setting('threads')::VARCHAR AS threads");
    return { ms, rows, bytes, files, rssBeforeBytes, peakRssBytes, ...facts, threads: String(setting?.threads) };
  } finally {
    db.close();
  }
}

/** COPY each table to its file (DuckDB's defaults: snappy, its own row groups) and read the bytes back. */
async function copyOut(connection: DuckConnection, tables: readonly DuckTable[], files: readonly string[]): Promise<number> {
  let bytes = 0;
  for (const [i, table] of tables.entries()) {
    await connection.run(`COPY ${table.name} TO '${files[i]!}' (FORMAT parquet)`);
    bytes += readFileSync(files[i]!).byteLength;
  }
  return bytes;
}

async function tableRows(connection: DuckConnection, tables: readonly DuckTable[]): Promise<number> {
  let rows = 0;
  for (const table of tables) {
    const [row] = await queryRows(connection, `SELECT count(*)::DOUBLE AS n FROM ${table.name}`);
    rows += Number(row?.n);
  }
  return rows;
}

async function fileFacts(connection: DuckConnection, files: readonly string[]): Promise<{ codecs: string[]; rowGroups: number }> {
  const list = files.map((file) => `'${file}'`).join(', ');
  const codecs = await queryRows(connection, `SELECT DISTINCT compression::VARCHAR AS codec FROM parquet_metadata([${list}]) ORDER BY 1`);
  const [groups] = await queryRows(connection, `SELECT count(DISTINCT (file_name, row_group_id))::DOUBLE AS n FROM parquet_metadata([${list}])`);
  return { codecs: codecs.map((row) => String(row.codec)), rowGroups: Number(groups?.n) };
}

serveWorker(measure);
