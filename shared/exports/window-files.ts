import { createHash } from 'node:crypto';
import type { KeyValue } from 'hyparquet-writer';
import type { StoredRecord } from '../model/view.js';
import type { CleaningPlan } from '../output/record-cleaner.js';
import { newCleaningReport } from '../output/record-cleaner.js';
import { cleaningMetadata, exportTables, tableWriter, writeTables, type ExportTable, type TableSink } from '../output/export-parquet.js';
import { ParquetTableWriter } from '../output/parquet/parquet-table-writer.js';
import type { Physical } from '../output/parquet/value-reading.js';
import type { ExportFileEntry } from '../store/export-jobs.js';

/** How one window's files are written. */
export interface WindowFilesOptions {
  /** `<job id>/<label>/`: every file of the window is named under it. */
  readonly prefix: string;
  /** A file is closed and the next begun once it holds this many bytes (PARQUET_MAX_BYTES: what one synchronous export may hold). */
  readonly partBytes: number;
  /** The footer's key-value metadata, as a synchronous export writes it (each file adds its `summary.table`). */
  readonly metadata: readonly KeyValue[];
  readonly signal: AbortSignal;
  /** Stores one finished file. */
  readonly write: (blob: string, chunks: readonly Uint8Array[]) => Promise<void>;
  readonly rowGroupSize?: number;
}

/** A window's files, written, and the records they hold. */
export interface WindowFiles {
  readonly records: number;
  readonly files: readonly ExportFileEntry[];
}

/**
 * Writes one window's records as its tables' Parquet files, each the file a synchronous export of
 * the window holds (the same columns, cleaning and footer metadata; a zip export's two tables as
 * two files). A table past `partBytes` goes on in a next file, so no window is too large for a job,
 * and memory holds at most one file per table (plus a row group) at a time. Every table has at
 * least one file, empty or not: a reader finds the schema of every window.
 *
 * @example
 * const { files } = await writeWindowFiles(store.stream(scope, query), plan, { prefix: 'job/2025-01/', partBytes, metadata, signal, write });
 * files[0]; // { table: 'contracts', blob: 'job/2025-01/contracts-000.parquet', records, bytes, sha256 }
 */
export async function writeWindowFiles(records: AsyncIterable<readonly StoredRecord[]>, cleaning: CleaningPlan, options: WindowFilesOptions): Promise<WindowFiles> {
  const report = newCleaningReport();
  // Each file's footer tells what of the stored data its rows could not hold (the report so far).
  const footer = () => cleaningMetadata(report);
  const tables = exportTables(cleaning.view);
  const main = new PartedTable(tables.records, options, footer);
  const lines = tables.lines && new PartedTable(tables.lines, options, footer);
  const written = await writeTables(records, cleaning, { records: main, ...(lines ? { lines } : {}) }, { signal: options.signal, report });
  await main.finish();
  await lines?.finish();
  return { records: written.records, files: [...main.files, ...(lines?.files ?? [])] };
}

/** One table written as files of at most about `partBytes` each. */
class PartedTable implements TableSink {
  readonly files: ExportFileEntry[] = [];
  private writer: ParquetTableWriter;
  private rows = 0;

  constructor(private readonly table: ExportTable, private readonly options: WindowFilesOptions, private readonly footer: () => KeyValue[]) {
    this.writer = this.newWriter();
  }

  addRow(values: readonly (Physical | null | undefined)[], leading?: readonly (Physical | null | undefined)[]): Promise<void> | undefined {
    this.rows++;
    const appending = this.writer.addRow(values, leading);
    if (appending) return appending.then(() => this.closeIfFull());
    return this.writer.bytesWritten >= this.options.partBytes ? this.close() : undefined;
  }

  /** Closes the last file (the only one, empty, when the table has no rows). */
  async finish(): Promise<void> {
    if (this.rows > 0 || this.files.length === 0) await this.close();
  }

  private closeIfFull(): Promise<void> | undefined {
    return this.writer.bytesWritten >= this.options.partBytes ? this.close() : undefined;
  }

  private async close(): Promise<void> {
    const chunks = await this.writer.finish(this.footer());
    const blob = `${this.options.prefix}${this.table.name}-${String(this.files.length).padStart(3, '0')}.parquet`;
    const hash = createHash('sha256');
    let bytes = 0;
    for (const chunk of chunks) {
      hash.update(chunk);
      bytes += chunk.byteLength;
    }
    await this.options.write(blob, chunks);
    this.files.push({ table: this.table.name, blob, records: this.rows, bytes, sha256: hash.digest('hex') });
    this.rows = 0;
    this.writer = this.newWriter();
  }

  private newWriter(): ParquetTableWriter {
    // The part size closes a file; the writer's own bound only keeps one from growing without bound.
    return tableWriter(this.table, { ...this.options, maxBytes: Number.MAX_SAFE_INTEGER });
  }
}
