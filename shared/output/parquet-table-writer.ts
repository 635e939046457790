import { ParquetWriter, type KeyValue } from 'hyparquet-writer';
import { snappyCompress } from 'hysnappy';
import type { FieldSpec } from '../model/fields.js';
import { CREATED_BY } from './created-by.js';
import { LimitedByteWriter } from './limited-byte-writer.js';
import { parquetColumn, parquetSchema, type ParquetColumn } from './parquet-columns.js';

/** Options of one Parquet table. */
export interface ParquetTableOptions {
  /** The columns, in order (the caller's visible fields). */
  readonly fields: readonly FieldSpec[];
  /** The most bytes the file may reach; past it `add`/`finish` throw OutputLimitExceeded. */
  readonly maxBytes: number;
  readonly metadata: readonly KeyValue[];
  /** Rows per row group: bounds the memory of the rows not yet encoded. */
  readonly rowGroupSize?: number;
}

/**
 * Writes one Parquet file row by row: values are encoded into per-column arrays as they come,
 * and every `rowGroupSize` rows become a row group whose bytes move to the limited sink.
 */
export class ParquetTableWriter {
  private readonly columns: readonly ParquetColumn[];
  private readonly sink: LimitedByteWriter;
  private readonly writer: ParquetWriter;
  private readonly rowGroupSize: number;
  private buffers: unknown[][];
  private rows = 0;

  constructor(options: ParquetTableOptions) {
    this.columns = options.fields.map(parquetColumn);
    this.sink = new LimitedByteWriter(options.maxBytes);
    this.writer = new ParquetWriter({
      writer: this.sink,
      schema: parquetSchema(this.columns),
      kvMetadata: [...options.metadata],
      // Snappy in WebAssembly (same authors as the writer): faster than the writer's built-in JS one.
      compressors: { SNAPPY: snappyCompress },
      createdBy: CREATED_BY,
    });
    this.rowGroupSize = options.rowGroupSize ?? 50_000;
    this.buffers = this.columns.map(() => []);
  }

  /** Bytes written so far (finished row groups). */
  get bytesWritten(): number {
    return this.sink.offset;
  }

  /**
   * Adds one record; writes a row group when one is full. `leading` values fill the first columns
   * (a line's record id) without copying the record into a new object.
   */
  add(record: Readonly<Record<string, unknown>>, leading: readonly unknown[] = []): void {
    for (let c = 0; c < this.columns.length; c++) {
      const column = this.columns[c]!;
      this.buffers[c]!.push(column.encode(c < leading.length ? leading[c] : record[column.name]));
    }
    if (++this.rows === this.rowGroupSize) this.writeGroup();
  }

  /** Writes the last row group and the footer; returns the whole file. */
  finish(): Uint8Array {
    if (this.rows > 0 || this.writer.row_groups.length === 0) this.writeGroup();
    void this.writer.finish();
    return this.sink.bytes();
  }

  private writeGroup(): void {
    const columnData = this.columns.map((column, c) => ({ name: column.name, data: this.buffers[c]!, statistics: column.statistics, ...(column.encoding ? { encoding: column.encoding } : {}), physical: true }));
    void this.writer.write({ columnData, rowGroupSize: Math.max(this.rows, 1) });
    this.buffers = this.columns.map(() => []);
    this.rows = 0;
  }
}
