/**
 * A Parquet table as a delta's merge takes it (delta-pass.ts): read with its values as the file
 * stores them (a date's days, a decimal's unscaled integer, an instant's integer, a text's UTF-8
 * bytes), so that what is written back is exactly what was read, with no text decoded and encoded
 * again; and written as the service writes its files: the file's own schema and footer
 * key-values, version-1 data pages (some warehouse loaders refuse DATA_PAGE_V2, the only kind
 * hyparquet-writer 0.17's own writer makes), PLAIN values, SNAPPY.
 * The page, RLE and footer encoders are hyparquet-writer's; SNAPPY is hysnappy's WebAssembly, as
 * the service's (a month's merge spent a third of its time in hyparquet-writer's JavaScript one).
 */
import { parquetMetadata, parquetRead, type ColumnChunk, type FileMetaData, type KeyValue, type SchemaElement, type Statistics } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { writePlain } from 'hyparquet-writer/src/plain.js';
import { snappyCompressor } from 'hysnappy';

/** A value as the file stores it: null, a number, a bigint, a boolean, bytes (a text's UTF-8 among them). */
export type RawValue = null | number | bigint | boolean | Uint8Array;

/** A table: its schema and footer, and its rows as raw values in the order of its columns. */
export interface RawTable {
  readonly schema: readonly SchemaElement[];
  readonly keyValues: readonly KeyValue[];
  readonly createdBy: string | undefined;
  /** The columns (the schema's leaves), in order. */
  readonly columns: readonly SchemaElement[];
  readonly rows: RawValue[][];
  /**
   * Each column's chunk as the file holds it, where the file is one row group (a month's table
   * is): a column whose every value a merge leaves as it was is copied as it is, not encoded again.
   */
  readonly chunks?: readonly HeldChunk[];
}

/** A column chunk of a file: its bytes (pages with their headers) and its footer entry. */
export interface HeldChunk {
  readonly bytes: Uint8Array;
  readonly chunk: ColumnChunk;
  /** Where its bytes began in the file. */
  readonly start: bigint;
}

/** SNAPPY, one WebAssembly instance made on first use (hysnappy's `snappyCompress` makes one a call). */
let snappy: ((input: Uint8Array) => Uint8Array) | undefined;

/** Rows per row group of a written file: the service's own. */
const ROW_GROUP_ROWS = 50_000;

/** The logical types a raw read leaves as their physical values. */
const CONVERTED = new Set(['DATE', 'TIMESTAMP_MILLIS', 'TIMESTAMP_MICROS', 'DECIMAL', 'TIME_MILLIS', 'TIME_MICROS', 'UTF8']);
const LOGICAL = new Set(['DATE', 'TIMESTAMP', 'DECIMAL', 'TIME', 'STRING']);

/** Reads a flat Parquet file (the service's tables are flat) with its values raw. */
export async function readRawTable(bytes: Uint8Array): Promise<RawTable> {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(buffer);
  const columns = metadata.schema.slice(1);
  if (columns.some((element) => element.num_children !== undefined && element.num_children > 0)) throw new TypeError('the file is not flat');
  // The same footer with the logical types of dates, instants, decimals and texts taken off:
  // hyparquet then answers the integers the file holds, which no conversion to Date or number has
  // rounded, and a text's bytes.
  const raw: FileMetaData = {
    ...metadata,
    schema: metadata.schema.map((element) => (isConverted(element) ? { ...stripped(element) } : element)),
  };
  let read: unknown[][] = [];
  await parquetRead({ file: buffer, metadata: raw, utf8: false, onComplete: (rows) => { read = rows as unknown[][]; } });
  const rows = read.map((row) => columns.map((_, at) => rawValue(row[at])));
  const chunks = heldChunks(bytes, metadata, rows.length);
  return { schema: metadata.schema, keyValues: metadata.key_value_metadata ?? [], createdBy: metadata.created_by, columns, rows, ...(chunks ? { chunks } : {}) };
}

/** The column chunks of a file of one row group of `rows` rows, each within the file's pages; else undefined. */
function heldChunks(bytes: Uint8Array, metadata: FileMetaData, rows: number): HeldChunk[] | undefined {
  const [group, ...more] = metadata.row_groups;
  if (!group || more.length > 0 || Number(group.num_rows) !== rows || group.columns.length !== metadata.schema.length - 1) return undefined;
  // The footer begins after the pages: its length is the 4 bytes before the closing magic.
  const footer = bytes.byteLength - 8 - new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(bytes.byteLength - 8, true);
  const chunks: HeldChunk[] = [];
  for (const chunk of group.columns) {
    const meta = chunk.meta_data;
    if (!meta || chunk.file_path !== undefined || meta.num_values !== BigInt(rows)) return undefined;
    const start = meta.dictionary_page_offset !== undefined && meta.dictionary_page_offset > 0n && meta.dictionary_page_offset < meta.data_page_offset ? meta.dictionary_page_offset : meta.data_page_offset;
    const end = start + meta.total_compressed_size;
    if (start < 4n || end > BigInt(footer)) return undefined;
    chunks.push({ bytes: bytes.subarray(Number(start), Number(end)), chunk, start });
  }
  return chunks;
}

function isConverted(element: SchemaElement): boolean {
  const logical = element.logical_type?.type;
  return (element.converted_type !== undefined && CONVERTED.has(element.converted_type)) || (logical !== undefined && LOGICAL.has(logical));
}

function stripped(element: SchemaElement): SchemaElement {
  const { converted_type: _converted, logical_type: _logical, scale: _scale, precision: _precision, ...rest } = element;
  return rest;
}

function rawValue(value: unknown): RawValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' || value instanceof Uint8Array) return value;
  throw new TypeError(`a value this client does not merge: ${typeof value}`);
}

/** UTF-8 as the service wrote it: a leading U+FEFF is part of the text (a decoder's default drops it). */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** A raw value as text: a text column's bytes decoded (undefined for any other value). An id is read so wherever the client reads one from a file. */
export function textOf(value: RawValue): string | undefined {
  return value instanceof Uint8Array ? utf8.decode(value) : undefined;
}

/**
 * For each column, whether `rows` hold in it exactly the values of `held` (bigints, bytes, -0 and
 * NaN told apart as the file tells them), position by position; undefined when their counts differ.
 * A row kept is the very row read, so only the rows put in are compared value by value.
 */
export function sameColumns(held: readonly (readonly RawValue[])[], rows: readonly (readonly RawValue[])[], columns: number): boolean[] | undefined {
  if (held.length !== rows.length) return undefined;
  const same = new Array<boolean>(columns).fill(true);
  for (let at = 0; at < rows.length; at++) {
    const row = rows[at]!;
    const before = held[at]!;
    if (row === before) continue;
    for (let c = 0; c < columns; c++) if (same[c] && !sameValue(row[c] ?? null, before[c] ?? null)) same[c] = false;
  }
  return same;
}

function sameValue(a: RawValue, b: RawValue): boolean {
  if (a instanceof Uint8Array) return b instanceof Uint8Array && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
  return Object.is(a, b);
}

/**
 * Writes `rows` as a Parquet file of `table`'s schema, footer key-values and creator. A column
 * `same` says holds the values of `table.chunks` (the file it was read from), position by
 * position, is copied from there.
 */
export function writeRawTable(table: Omit<RawTable, 'rows'>, rows: readonly (readonly RawValue[])[], same: readonly boolean[] = []): Uint8Array {
  const out = new ByteWriter();
  out.appendUint32(0x31524150); // PAR1
  const rowGroups: FileMetaData['row_groups'] = [];
  const held = rows.length <= ROW_GROUP_ROWS ? table.chunks : undefined;
  for (let first = 0; first < rows.length; first += ROW_GROUP_ROWS) {
    const group = rows.slice(first, first + ROW_GROUP_ROWS);
    const start = out.offset;
    const chunks = table.columns.map((column, c) => {
      const values = group.map((row) => row[c] ?? null);
      const chunk = held && same[c] ? copyChunk(out, held[c]!) : writeChunk(out, column, values);
      const statistics = statisticsOf(column, values);
      return statistics ? { ...chunk, meta_data: { ...chunk.meta_data!, statistics } } : chunk;
    });
    rowGroups.push({
      columns: chunks,
      total_byte_size: chunks.reduce((total, chunk) => total + chunk.meta_data!.total_uncompressed_size, 0n),
      num_rows: BigInt(group.length),
      file_offset: BigInt(start),
      total_compressed_size: BigInt(out.offset - start),
    });
  }
  writeMetadata(out, {
    version: 2,
    schema: [...table.schema],
    num_rows: BigInt(rows.length),
    row_groups: rowGroups,
    ...(table.keyValues.length > 0 ? { key_value_metadata: [...table.keyValues] } : {}),
    ...(table.createdBy === undefined ? {} : { created_by: table.createdBy }),
    metadata_length: 0,
  });
  out.appendUint32(0x31524150);
  return new Uint8Array(out.getBuffer());
}

/**
 * A chunk's statistics as the service's writer keeps them (shared/output/parquet/column-chunk.ts),
 * so that a merged file prunes as a fresh one: for numbers, dates, instants, decimals and booleans
 * (not texts), the least and the greatest value (NaN left out, -0 as the least zero) and the nulls,
 * from the raw values, whose order is the column's for signed types; none for an unsigned one.
 */
function statisticsOf(column: SchemaElement, values: readonly RawValue[]): Statistics | undefined {
  const type = column.type;
  const unsigned = column.converted_type?.startsWith('UINT') || (column.logical_type?.type === 'INTEGER' && column.logical_type.isSigned === false);
  if (unsigned || !(type === 'BOOLEAN' || type === 'INT32' || type === 'INT64' || type === 'FLOAT' || type === 'DOUBLE')) return undefined;
  let min: RawValue | undefined;
  let max: RawValue | undefined;
  let nulls = 0n;
  for (const value of values) {
    if (value === null) {
      nulls++;
      continue;
    }
    if (typeof value === 'number' && Number.isNaN(value)) continue;
    if (min === undefined || compareRaw(value, min) < 0) min = value;
    if (max === undefined || compareRaw(value, max) > 0) max = value;
  }
  if (min === 0) min = -0;
  if (max === 0) max = 0;
  return { null_count: nulls, ...(min === undefined ? {} : { min_value: min as Statistics['min_value'], max_value: max as Statistics['max_value'] }) };
}

function compareRaw(a: RawValue, b: RawValue): number {
  return a! < b! ? -1 : a! > b! ? 1 : 0;
}

/** A held column chunk, its pages as they are, its footer entry moved to where they now are (its page indexes left out). */
function copyChunk(out: ByteWriter, { bytes, chunk, start: from }: HeldChunk): ColumnChunk {
  const start = BigInt(out.offset);
  out.appendBytes(bytes);
  const meta = chunk.meta_data!;
  const moved = (offset: bigint) => offset - from + start;
  return {
    file_offset: start,
    meta_data: {
      type: meta.type,
      encodings: meta.encodings,
      path_in_schema: meta.path_in_schema,
      codec: meta.codec,
      num_values: meta.num_values,
      total_uncompressed_size: meta.total_uncompressed_size,
      total_compressed_size: meta.total_compressed_size,
      data_page_offset: moved(meta.data_page_offset),
      ...(meta.dictionary_page_offset !== undefined && meta.dictionary_page_offset >= from ? { dictionary_page_offset: moved(meta.dictionary_page_offset) } : {}),
      ...(meta.encoding_stats ? { encoding_stats: meta.encoding_stats } : {}),
    },
  };
}

/** One column chunk of one data page (version 1): the definition levels of an optional column, then its values, compressed together. */
function writeChunk(out: ByteWriter, column: SchemaElement, values: readonly RawValue[]): ColumnChunk {
  const optional = column.repetition_type !== 'REQUIRED';
  const present = values.filter((value) => value !== null);
  if (!optional && present.length !== values.length) throw new TypeError(`column ${column.name} is required, and a row has no value for it`);
  const body = new ByteWriter();
  if (optional) {
    const levels = new ByteWriter();
    writeRleBitPackedHybrid(levels, values.map((value) => (value === null ? 0 : 1)), 1);
    body.appendUint32(levels.offset);
    body.appendBytes(new Uint8Array(levels.getBuffer()));
  }
  writePlain(body, present as never, column.type!, column.type_length);
  const uncompressed = new Uint8Array(body.getBuffer());
  const compressed = (snappy ??= snappyCompressor())(uncompressed);
  const start = out.offset;
  writePageHeader(out, {
    type: 'DATA_PAGE',
    uncompressed_page_size: uncompressed.byteLength,
    compressed_page_size: compressed.byteLength,
    data_page_header: { num_values: values.length, encoding: 'PLAIN', definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' },
  });
  const header = out.offset - start;
  out.appendBytes(compressed);
  return {
    file_offset: BigInt(start),
    meta_data: {
      type: column.type!,
      encodings: optional ? ['PLAIN', 'RLE'] : ['PLAIN'],
      path_in_schema: [column.name],
      codec: 'SNAPPY',
      num_values: BigInt(values.length),
      total_uncompressed_size: BigInt(header + uncompressed.byteLength),
      total_compressed_size: BigInt(out.offset - start),
      data_page_offset: BigInt(start),
      encoding_stats: [{ page_type: 'DATA_PAGE', encoding: 'PLAIN', count: 1 }],
    },
  };
}
