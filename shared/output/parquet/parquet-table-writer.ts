import { ByteWriter, ParquetWriter, type KeyValue } from 'hyparquet-writer';
import type { FieldSpec } from '../../model/fields.js';
import { MALFORMED, type Physical } from './value-reading.js';
import { ColumnBuffer } from './column-buffer.js';
import { CREATED_BY } from './created-by.js';
import { LimitedByteWriter } from './limited-byte-writer.js';
import { parquetColumn, parquetSchema, type ChunkColumn, type ParquetColumn } from './parquet-column.js';
import { encodeRowGroup, type EncodedRowGroup } from './row-group.js';
import { rowGroupEncoder, type RowGroupEncoder } from './row-group-workers.js';
import type { SealedRowGroup } from './sealed.js';

/** A row led by nothing (a record's row; a line's is led by its record's id): one array for every call. */
const NO_LEADING: readonly never[] = Object.freeze([]);

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
  /** Where full row groups are encoded; default: the process's workers, if it has any (row-group-workers.ts). */
  readonly encoder?: RowGroupEncoder | null;
}

/**
 * Writes one Parquet file row by row: each value lands in its column's typed buffer as it comes,
 * and every `rowGroupSize` rows the columns are sealed, encoded as a row group, and its bytes
 * move to the limited sink, in order. With workers, a full row group is encoded in one while the
 * next fills; when the next is full too and the table already has a row group in flight per
 * worker, `add` hands it over and returns a promise that appends the oldest (so a table holds at
 * most two sealed row groups per worker: one being encoded, one behind it). The last, partial row
 * group is encoded here: a small export never waits for a worker.
 */
export class ParquetTableWriter {
  private readonly columns: readonly ParquetColumn[];
  private readonly names: readonly string[];
  private readonly buffers: readonly ColumnBuffer[];
  private readonly sink: LimitedByteWriter;
  private readonly writer: ParquetWriter;
  private readonly rowGroupSize: number;
  private readonly encoder: RowGroupEncoder | undefined;
  private readonly inFlight: Promise<EncodedRowGroup>[] = [];
  /** Where row groups encoded here are written before they are appended (reused: fewer large allocations, fewer GCs). */
  private readonly scratch = new ByteWriter(1 << 20);
  private rows = 0;

  constructor(options: ParquetTableOptions) {
    this.columns = options.fields.map(parquetColumn);
    this.names = this.columns.map((column) => column.chunk.name);
    this.rowGroupSize = options.rowGroupSize ?? ROW_GROUP_ROWS;
    this.buffers = this.columns.map((column) => new ColumnBuffer(column, this.rowGroupSize));
    this.encoder = options.encoder === undefined ? rowGroupEncoder() : options.encoder ?? undefined;
    this.sink = new LimitedByteWriter(options.maxBytes);
    this.writer = new ParquetWriter({
      writer: this.sink,
      schema: parquetSchema(this.columns),
      // None rather than an empty list: arrow-rs refuses a footer's empty key-value list (hyparquet-writer writes it untyped).
      kvMetadata: options.metadata.length > 0 ? [...options.metadata] : undefined,
      createdBy: CREATED_BY,
    });
  }

  /** Bytes written so far (row groups appended). */
  get bytesWritten(): number {
    return this.sink.offset;
  }

  /**
   * Adds one record of stored values, read by the columns' names and made physical by each
   * column's reader (a value it cannot hold is a TypeError: an export cleans its rows first, and
   * adds them with addRow); seals a row group when one is full. `leading` values fill the first
   * columns (a line's record id). A returned promise must be awaited before the next `add` (it
   * appends the oldest row group in flight).
   */
  add(record: Readonly<Record<string, unknown>>, leading: readonly unknown[] = []): Promise<void> | undefined {
    const { names, columns } = this;
    const physical = (c: number, value: unknown) => {
      if (value === null || value === undefined) return value;
      const read = columns[c]!.read(value);
      if (read === MALFORMED) throw new TypeError(`column ${names[c]}: not a value of its type: ${String(value)}`);
      return read;
    };
    return this.addRow(names.map((_, c) => physical(c, c < leading.length ? leading[c] : record[names[c]!])));
  }

  /**
   * Adds one row of physical values given by position (value-reading.ts: an export's rows, cleaned
   * straight into arrays by record-cleaner.ts cleanRow): `leading` values, then `values`, fill the
   * columns in order. As `add`.
   */
  addRow(values: readonly (Physical | null | undefined)[], leading: readonly (Physical | null | undefined)[] = NO_LEADING): Promise<void> | undefined {
    const { buffers } = this;
    const offset = leading.length;
    for (let c = 0; c < offset; c++) buffers[c]!.add(leading[c]);
    for (let c = offset; c < buffers.length; c++) buffers[c]!.add(values[c - offset]);
    return this.rowAdded();
  }

  /** A row was added: a full row group is sealed and encoded (here, or by a worker). */
  private rowAdded(): Promise<void> | undefined {
    if (++this.rows < this.rowGroupSize) return undefined;
    if (this.encoder === undefined) {
      this.append(encodeRowGroup(this.chunkColumns(), this.seal(false), this.scratch));
      return undefined;
    }
    const encoding = this.encoder.encode(this.chunkColumns(), this.seal(true));
    // Awaited in turn below; until then a failure must not surface as an unhandled rejection.
    encoding.catch(() => undefined);
    this.inFlight.push(encoding);
    return this.inFlight.length > this.encoder.parallel ? this.appendOldest() : undefined;
  }

  /**
   * Writes the row groups still to come and the footer, with `metadata` known only now added to
   * the footer's key-value list; returns the whole file, as the parts it was written in.
   */
  async finish(metadata: readonly KeyValue[] = []): Promise<readonly Uint8Array[]> {
    const last = this.rows > 0 ? encodeRowGroup(this.chunkColumns(), this.seal(false), this.scratch) : undefined;
    while (this.inFlight.length > 0) await this.appendOldest();
    if (last) this.append(last);
    if (metadata.length > 0) this.writer.kvMetadata = [...(this.writer.kvMetadata ?? []), ...metadata];
    void this.writer.finish();
    return this.sink.parts();
  }

  /** `owned`: to transfer to a worker; else views (README.md, "Views"), encoded here at once. */
  private seal(owned: boolean): SealedRowGroup {
    const group = { rows: this.rows, columns: this.buffers.map((buffer) => buffer.seal(owned)) };
    this.rows = 0;
    return group;
  }

  private chunkColumns(): ChunkColumn[] {
    return this.columns.map((column) => column.chunk);
  }

  private async appendOldest(): Promise<void> {
    this.append(await this.inFlight.shift()!);
  }

  private append(encoded: EncodedRowGroup): void {
    void this.writer.appendRowGroup(encoded);
  }
}
