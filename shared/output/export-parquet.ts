import type { KeyValue } from 'hyparquet-writer';
import type { FieldSpec } from '../model/fields.js';
import { fieldSpec } from '../model/resource-definition.js';
import type { StoredRecord, View } from '../model/view.js';
import type { SummaryQuery } from '../model/summary-query.js';
import { unreachable } from '../util/unreachable.js';
import { OutputLimitExceeded } from './output-limit-exceeded.js';
import { cleaningWarning, cleanRow, newCleaningReport, type CleaningPlan, type CleaningReport } from './record-cleaner.js';
import { ParquetTableWriter } from './parquet/parquet-table-writer.js';
import type { Physical } from './parquet/value-reading.js';
import { zipOverhead, zipStored } from './zip-stored.js';

/** The key-value metadata in the footer of every exported file, the table's name added per file (tableWriter). */
export function footerMetadata({ requestId, generatedAt, query }: { readonly requestId: string; readonly generatedAt: Date; readonly query: SummaryQuery }): KeyValue[] {
  return [
    { key: 'summary.requestId', value: requestId },
    { key: 'summary.generatedAt', value: generatedAt.toISOString() },
    { key: 'summary.resource', value: query.resource.name },
    { key: 'summary.filters', value: JSON.stringify(query.given) },
  ];
}

/** The writer of one table of an export: its fields, the export's footer metadata and the table's name, within `maxBytes`. */
export function tableWriter(table: ExportTable, options: { readonly maxBytes: number; readonly metadata: readonly KeyValue[]; readonly rowGroupSize?: number | undefined }): ParquetTableWriter {
  return new ParquetTableWriter({
    fields: table.fields,
    maxBytes: options.maxBytes,
    metadata: [...options.metadata, { key: 'summary.table', value: table.name }],
    ...(options.rowGroupSize ? { rowGroupSize: options.rowGroupSize } : {}),
  });
}

/** Options of one export. */
export interface ExportOptions {
  /** The most bytes the body may have (the whole zip for a zip export); past it OutputLimitExceeded. */
  readonly maxBytes: number;
  readonly metadata: readonly KeyValue[];
  readonly generatedAt: Date;
  readonly rowGroupSize?: number;
  /** Stops the export (between pages of the store): the store is read no further. */
  readonly signal?: AbortSignal;
  /** Where what could not be held is counted (new when absent): one report for an answer cleaned in two steps (a delta's). */
  readonly report?: CleaningReport;
}

/** An export's body, how many records it holds, and what of the stored data it could not hold as it was. */
export interface ExportResult {
  readonly body: Uint8Array;
  readonly records: number;
  readonly cleaning: CleaningReport;
}

/**
 * The Parquet export of a record stream (page by page, as RecordStore.stream reads it) through a
 * view, in the resource's export shape: one file of the visible record fields; or a stored zip of
 * the records table and the lines table (one row per line: the record's id, then the visible line
 * fields). Reading stops as soon as the size limit is certain to be exceeded.
 *
 * @example
 * const { body, records } = await exportParquet(store.stream(scope, query), planCleaning(view), { maxBytes, metadata, generatedAt: new Date() });
 */
export async function exportParquet(records: AsyncIterable<readonly StoredRecord[]>, cleaning: CleaningPlan, options: ExportOptions): Promise<ExportResult> {
  const tables = exportTables(cleaning.view);
  const writer = (table: ExportTable) => tableWriter(table, options);
  const main = writer(tables.records);
  const lines = tables.lines && writer(tables.lines);
  const shape = cleaning.view.resource.export;
  const overhead = shape.kind === 'zip' ? zipOverhead([shape.records, shape.lines]) : 0;
  // The zip's two tables share the limit: checked after every record, so reading stops as soon
  // as it is certain to be passed.
  const checkTotal = () => {
    if (lines && main.bytesWritten + lines.bytesWritten + overhead > options.maxBytes) throw new OutputLimitExceeded('zip would pass the limit');
  };
  const { records: count, cleaning: report } = await writeTables(records, cleaning, { records: main, ...(lines ? { lines } : {}) }, { ...(options.signal ? { signal: options.signal } : {}), ...(options.report ? { report: options.report } : {}), afterRecord: checkTotal });
  const footer = cleaningMetadata(report);
  switch (shape.kind) {
    case 'file':
      return { body: Buffer.concat(await main.finish(footer)), records: count, cleaning: report };
    case 'zip': {
      const files = { [shape.records]: await main.finish(footer), [shape.lines]: await lines!.finish(footer) };
      checkTotal();
      const body = zipStored(files, options.generatedAt);
      if (body.byteLength > options.maxBytes) throw new OutputLimitExceeded('zip passed the limit');
      return { body, records: count, cleaning: report };
    }
    default:
      return unreachable(shape, 'export shape');
  }
}

/** One table of a resource's export: its name (the `summary.table` metadata, a zip entry without `.parquet`) and its columns. */
export interface ExportTable {
  readonly name: string;
  readonly fields: readonly FieldSpec[];
}

/**
 * The tables of a view's export: the records' visible fields; for a resource with lines (a zip
 * export) also the lines table, one row per line: the record's id, then the visible line fields.
 *
 * @example
 * exportTables(view).records.name; // 'contracts'; for invoices 'invoices', and lines?.name 'invoice_tables'
 */
export function exportTables(view: View): { readonly records: ExportTable; readonly lines?: ExportTable } {
  const { resource } = view;
  const shape = resource.export;
  switch (shape.kind) {
    case 'file':
      return { records: { name: resource.name, fields: view.fields } };
    case 'zip':
      return {
        records: { name: tableName(shape.records), fields: view.fields },
        lines: { name: tableName(shape.lines), fields: [fieldSpec(resource, resource.idField), ...view.lineFields] },
      };
    default:
      return unreachable(shape, 'export shape');
  }
}

/** Where one table's rows go (a ParquetTableWriter, or one that rolls over into parts). */
export interface TableSink {
  /** As ParquetTableWriter.addRow: values by column position; a returned promise is awaited before the next row. */
  addRow(values: readonly (Physical | null | undefined)[], leading?: readonly (Physical | null | undefined)[]): Promise<void> | undefined;
}

/**
 * Cleans every record of the stream (record-cleaner.ts) and adds it to the records table, and
 * each of its lines to the lines table (led by the record's id). `afterRecord` runs after each
 * record (a limit check); `signal` stops the reading between pages; `report` (new when absent)
 * hears every value that could not be held, as it happens. Returns the records written
 * and what of the stored data could not be held as it was.
 */
export async function writeTables(
  records: AsyncIterable<readonly StoredRecord[]>,
  cleaning: CleaningPlan,
  tables: { readonly records: TableSink; readonly lines?: TableSink },
  options: { readonly signal?: AbortSignal; readonly afterRecord?: () => void; readonly report?: CleaningReport } = {},
): Promise<{ readonly records: number; readonly cleaning: CleaningReport }> {
  const { view } = cleaning;
  const { resource } = view;
  const lineMember = resource.lines?.member;
  const idName = resource.idField;
  // Every value checked against its field on the way out, as for JSON (record-cleaner.ts): one
  // malformed stored value never fails the export.
  const report = options.report ?? newCleaningReport();
  let count = 0;
  // A line's row starts with its record's id (one array, refilled per record).
  const leading: (Physical | null | undefined)[] = [undefined];
  for await (const page of records) {
    options.signal?.throwIfAborted();
    for (const stored of page) {
      // By position: the records table's columns are the view's fields, the lines table's the id then the line fields.
      const row = cleanRow(cleaning, stored, report);
      if (row === undefined) continue;
      count++;
      const appending = tables.records.addRow(row.values);
      if (appending) await appending;
      if (tables.lines && lineMember !== undefined) {
        // From the stored record: the id leads its lines whether or not the view shows it (as
        // text, the column's type; a missing one fails the export, as a required value does).
        const id = stored[idName];
        leading[0] = id === null || id === undefined ? id : String(id);
        for (const line of row.lines) {
          const appendingLine = tables.lines.addRow(line, leading);
          if (appendingLine) await appendingLine;
        }
      }
      options.afterRecord?.();
    }
  }
  return { records: count, cleaning: report };
}

/**
 * The footer entry that tells a reader the stored data did not all fit its fields:
 * `summary.malformedData`, the counts as JSON (none when all fit, so the footer is as before).
 */
export function cleaningMetadata(report: CleaningReport): KeyValue[] {
  if (cleaningWarning(report) === undefined) return [];
  const { nulled, recordsLeftOut, linesLeftOut } = report;
  return [{ key: 'summary.malformedData', value: JSON.stringify({ recordsLeftOut, linesLeftOut, nulled }) }];
}

/** A zip entry's table name (the `summary.table` metadata): its file name without `.parquet`. */
function tableName(entry: string): string {
  return entry.replace(/\.parquet$/, '');
}
