import type { KeyValue } from 'hyparquet-writer';
import type { FieldSpec } from '../model/fields.js';
import { fieldSpec, type ExportShape, type LineTable } from '../model/resource-definition.js';
import type { StoredRecord, View } from '../model/view.js';
import { unreachable } from '../util/unreachable.js';
import { OutputLimitExceeded } from './output-limit-exceeded.js';
import { cleaningWarning, cleanRecord, newCleaningReport, type CleaningPlan, type CleaningReport } from './record-cleaner.js';
import { ParquetTableWriter } from './parquet/parquet-table-writer.js';
import { zipOverhead, zipStored } from './zip-stored.js';

/** Options of one export. */
export interface ExportOptions {
  /** The most bytes the body may have (the whole zip for a zip export); past it OutputLimitExceeded. */
  readonly maxBytes: number;
  readonly metadata: readonly KeyValue[];
  readonly generatedAt: Date;
  readonly rowGroupSize?: number;
  /** Stops the export (between pages of the store): the store is read no further. */
  readonly signal?: AbortSignal;
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
  const { view } = cleaning;
  const table = (fields: readonly FieldSpec[], name: string) => new ParquetTableWriter({
    fields,
    maxBytes: options.maxBytes,
    metadata: [...options.metadata, { key: 'summary.table', value: name }],
    ...(options.rowGroupSize ? { rowGroupSize: options.rowGroupSize } : {}),
  });
  const { resource } = view;
  const shape = resource.export;
  // Every value checked against its field on the way out, as for JSON (record-cleaner.ts): one
  // malformed stored value never fails the export.
  const report = newCleaningReport();
  switch (shape.kind) {
    case 'file': {
      const file = table(view.fields, resource.name);
      let count = 0;
      for await (const page of records) {
        options.signal?.throwIfAborted();
        for (const stored of page) {
          const record = cleanRecord(cleaning, stored, report);
          if (record === undefined) continue;
          count++;
          const appending = file.add(record);
          if (appending) await appending;
        }
      }
      return { body: Buffer.concat(await file.finish(cleaningMetadata(report))), records: count, cleaning: report };
    }
    case 'zip': {
      // defineResource refuses a zip export without lines (and lines without a zip).
      return exportZip(records, cleaning, resource.lines!, shape, table, options, report);
    }
    default:
      return unreachable(shape, 'export shape');
  }
}

async function exportZip(
  records: AsyncIterable<readonly StoredRecord[]>,
  cleaning: CleaningPlan,
  lineTable: LineTable,
  entries: Extract<ExportShape, { kind: 'zip' }>,
  table: (fields: readonly FieldSpec[], name: string) => ParquetTableWriter,
  options: ExportOptions,
  report: CleaningReport,
): Promise<ExportResult> {
  const { view } = cleaning;
  const id = fieldSpec(view.resource, view.resource.idField);
  const main = table(view.fields, tableName(entries.records));
  const lines = table([id, ...view.lineFields], tableName(entries.lines));
  const overhead = zipOverhead([entries.records, entries.lines]);
  const checkTotal = () => {
    if (main.bytesWritten + lines.bytesWritten + overhead > options.maxBytes) throw new OutputLimitExceeded('zip would pass the limit');
  };
  let count = 0;
  // A line's row starts with its record's id (one array, refilled per record).
  const leading: unknown[] = [undefined];
  for await (const page of records) {
    options.signal?.throwIfAborted();
    for (const stored of page) {
      const record = cleanRecord(cleaning, stored, report);
      if (record === undefined) continue;
      count++;
      const appending = main.add(record);
      if (appending) await appending;
      // From the stored record: the id leads its lines whether or not the view shows it.
      leading[0] = stored[id.name];
      // Cleaned: an array of objects whose required values are all there.
      for (const line of record[lineTable.member] as readonly StoredRecord[]) {
        const appendingLines = lines.add(line, leading);
        if (appendingLines) await appendingLines;
      }
      checkTotal();
    }
  }
  const footer = cleaningMetadata(report);
  const files = { [entries.records]: await main.finish(footer), [entries.lines]: await lines.finish(footer) };
  checkTotal();
  const body = zipStored(files, options.generatedAt);
  if (body.byteLength > options.maxBytes) throw new OutputLimitExceeded('zip passed the limit');
  return { body, records: count, cleaning: report };
}

/**
 * The footer entry that tells a reader the stored data did not all fit its fields:
 * `summary.malformedData`, the counts as JSON (none when all fit, so the footer is as before).
 */
function cleaningMetadata(report: CleaningReport): KeyValue[] {
  if (cleaningWarning(report) === undefined) return [];
  const { nulled, recordsLeftOut, linesLeftOut } = report;
  return [{ key: 'summary.malformedData', value: JSON.stringify({ recordsLeftOut, linesLeftOut, nulled }) }];
}

/** A zip entry's table name (the `summary.table` metadata): its file name without `.parquet`. */
function tableName(entry: string): string {
  return entry.replace(/\.parquet$/, '');
}
