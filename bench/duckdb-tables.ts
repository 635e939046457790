import type { FieldSpec } from '../shared/model/fields.js';
import { fieldSpec } from '../shared/model/resource-definition.js';
import type { StoredRecord } from '../shared/model/view.js';
import type { BenchResource } from './document-pool.js';
import type { DuckAppender, DuckConnection } from './duckdb-api.js';
import { fullView } from './full-view.js';

/** One DuckDB table holding what one Parquet file of our export holds. */
export interface DuckTable {
  /** Also the file name stem: contracts, invoices, invoice_tables. */
  readonly name: string;
  readonly fields: readonly FieldSpec[];
}

/** The tables of a resource's export: the same columns, order, types and nullability as ours. */
export function duckTables(resource: BenchResource): DuckTable[] {
  const view = fullView(resource);
  const shape = view.resource.export;
  if (shape.kind === 'file') return [{ name: view.resource.name, fields: view.fields }];
  const stem = (entry: string) => entry.replace(/\.parquet$/, '');
  const id = fieldSpec(view.resource, view.resource.idField);
  return [{ name: stem(shape.records), fields: view.fields }, { name: stem(shape.lines), fields: [id, ...view.lineFields] }];
}

/**
 * Our Parquet types in DuckDB's terms. TIMESTAMPTZ is written as TIMESTAMP(MICROS, UTC) where we
 * write MILLIS: the same INT64 column, one unit finer; everything else maps one to one.
 */
function duckType(field: FieldSpec): string {
  switch (field.kind) {
    case 'string': return 'VARCHAR';
    case 'date': return 'DATE';
    case 'timestamp': return 'TIMESTAMPTZ';
    case 'decimal': return `DECIMAL(${field.precision}, ${field.scale})`;
    case 'int32': return 'INTEGER';
    case 'double': return 'DOUBLE';
    case 'boolean': return 'BOOLEAN';
  }
}

/** `CREATE TABLE` of one table (required columns are NOT NULL, as ours are REQUIRED). */
export function createTableSql(table: DuckTable): string {
  const columns = table.fields.map((field) => `"${field.name}" ${duckType(field)}${field.nullable ? '' : ' NOT NULL'}`);
  return `CREATE TABLE ${table.name} (${columns.join(', ')})`;
}

type Append = (appender: DuckAppender, value: unknown) => void;

/**
 * The fastest correct typed append per column found in @duckdb/node-api 1.5.6 (100k values,
 * second pass): strings and `YYYY-MM-DD` dates as VARCHAR (DuckDB casts the date, 1.3 s/M vs 2.8
 * through dateValue), ISO timestamps as VARCHAR into TIMESTAMPTZ (2.6 s/M vs 4.6 through
 * timestampTZValue, which goes through the generic appendValue), decimals as DOUBLE cast to
 * DECIMAL(p,s) by DuckDB (0.9 s/M vs 8 s/M for appendDecimal(DuckDBDecimalValue), also generic).
 * Measured before choosing, so the baseline is DuckDB at its best from JavaScript.
 */
function columnAppend(field: FieldSpec): Append {
  const typed: Append = field.kind === 'decimal'
    ? (appender, value) => appender.appendDouble(value as number)
    : field.kind === 'int32'
      ? (appender, value) => appender.appendInteger(value as number)
      : (appender, value) => appender.appendVarchar(value as string);
  return (appender, value) => (value === null || value === undefined ? appender.appendNull() : typed(appender, value));
}

/** Appends one record's columns and ends the row. */
function rowAppender(table: DuckTable): (appender: DuckAppender, record: StoredRecord) => void {
  const names = table.fields.map((field) => field.name);
  const appends = table.fields.map(columnAppend);
  return (appender, record) => {
    for (let c = 0; c < names.length; c++) appends[c]!(appender, record[names[c]!]);
    appender.endRow();
  };
}

/**
 * Feeds `count` records of the cycled pool into the tables through DuckDB's appender, row by row
 * from JavaScript (invoice lines into the second table, each with its invoiceId).
 */
export async function appendRecords(connection: DuckConnection, tables: readonly DuckTable[], pool: readonly StoredRecord[], count: number): Promise<void> {
  const [main, lines] = tables;
  const mainAppender = await connection.createAppender(main!.name);
  const appendMain = rowAppender(main!);
  const lineAppender = lines ? await connection.createAppender(lines.name) : undefined;
  const appendLine = lines ? rowAppender(lines) : undefined;
  for (let i = 0; i < count; i++) {
    const record = pool[i % pool.length]!;
    appendMain(mainAppender, record);
    if (lineAppender && appendLine) {
      const idName = lines!.fields[0]!.name;
      const id = record[idName];
      for (const line of (record.lines as readonly StoredRecord[] | undefined) ?? []) appendLine(lineAppender, { ...line, [idName]: id });
    }
  }
  mainAppender.closeSync();
  lineAppender?.closeSync();
}
