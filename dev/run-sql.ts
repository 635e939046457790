/**
 * `npm run sql -- "SELECT …"`: runs SQL in DuckDB from the project folder and prints the rows as a
 * table, so the walkthrough's pulled folders can be queried on a machine with nothing installed
 * but what `npm ci && npm start` brought.
 */
import { withDuckDb } from './duckdb.js';

function cell(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Rows as an aligned text table under a header line. */
function formatTable(rows: readonly Record<string, unknown>[]): string {
  if (rows.length === 0) return '(no rows)\n';
  const columns = Object.keys(rows[0]!);
  const cells = [columns, ...rows.map((row) => columns.map((column) => cell(row[column])))];
  const widths = columns.map((_, index) => Math.max(...cells.map((line) => line[index]!.length)));
  const lines = cells.map((line) => line.map((text, index) => text.padEnd(widths[index]!)).join('  ').trimEnd());
  lines.splice(1, 0, widths.map((width) => '-'.repeat(width)).join('  '));
  return `${lines.join('\n')}\n`;
}

const sql = process.argv.slice(2).join(' ').trim();
if (!sql) {
  process.stderr.write('usage: npm run sql -- "SELECT … FROM \'pulls/contracts/*.parquet\'"\n');
  process.exitCode = 2;
} else {
  try {
    process.stdout.write(formatTable(await withDuckDb((query) => query(sql))));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
