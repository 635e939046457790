import { ParquetWriter, type KeyValue } from 'hyparquet-writer';
import { snappyCompress } from 'hysnappy';
import type { FieldSpec } from '../model/fields.js';
import type { ColumnBuffer } from './column-buffers.js';
import { CREATED_BY } from './created-by.js';
import { LimitedByteWriter } from './limited-byte-writer.js';
import { parquetColumn, parquetSchema, type ParquetColumn } from './parquet-columns.js';
import { encodeRowGroup } from './row-group.js';

/** Rows per row group unless an export says otherwise: bounds the memory of a group being filled. */
const ROW_GROUP_ROWS = 50_000;

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
 * Writes one Parquet file row by row: each value lands in its column's typed buffer as it comes,
 * and every `rowGroupSize` rows the columns are sealed, encoded as a row group, and its bytes
 * move to the limited sink.
 */
export class ParquetTableWriter {
  private readonly columns: readonly ParquetColumn[];
  private readonly buffers: readonly ColumnBuffer[];
  private readonly sink: LimitedByteWriter;
  private readonly writer: ParquetWriter;
  private readonly rowGroupSize: number;
  private rows = 0;

  constructor(options: ParquetTableOptions) {
    this.columns = options.fields.map(parquetColumn);
    this.rowGroupSize = options.rowGroupSize ?? ROW_GROUP_ROWS;
    this.buffers = this.columns.map((column) => column.buffer(this.rowGroupSize));
    this.sink = new LimitedByteWriter(options.maxBytes);
    this.writer = new ParquetWriter({
      writer: this.sink,
      schema: parquetSchema(this.columns),
      kvMetadata: [...options.metadata],
      createdBy: CREATED_BY,
    });
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
    const { columns, buffers } = this;
    for (let c = 0; c < columns.length; c++) buffers[c]!.add(c < leading.length ? leading[c] : record[columns[c]!.name]);
    if (++this.rows === this.rowGroupSize) this.writeGroup();
  }

  /** Writes the last row group and the footer; returns the whole file. */
  finish(): Uint8Array {
    if (this.rows > 0) this.writeGroup();
    void this.writer.finish();
    return this.sink.bytes();
  }

  private writeGroup(): void {
    const group = { rows: this.rows, columns: this.buffers.map((buffer) => buffer.seal()) };
    this.rows = 0;
    // Snappy in WebAssembly (same authors as the writer): faster than the writer's built-in JS one.
    void this.writer.appendRowGroup(encodeRowGroup(this.columns.map((column) => column.chunk), group, snappyCompress));
  }
}
