/**
 * A Parquet table as a delta's merge takes it (delta-pass.ts): read with its values as the file
 * stores them (a date's days, a decimal's unscaled integer, an instant's integer), so that what is
 * written back is exactly what was read; and written as the service writes its files: the file's
 * own schema and footer key-values, version-1 data pages (some warehouse loaders refuse
 * DATA_PAGE_V2, the only kind hyparquet-writer 0.17's own writer makes), PLAIN values, SNAPPY.
 * The page, RLE and footer encoders are hyparquet-writer's.
 */
import { parquetMetadata, parquetReadObjects, type ColumnChunk, type FileMetaData, type KeyValue, type SchemaElement } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { writePlain } from 'hyparquet-writer/src/plain.js';
import { snappyCompress } from 'hyparquet-writer/src/snappy.js';

/** A value as the file stores it: null, a number, a bigint, a boolean, a string (UTF-8 text) or bytes. */
export type RawValue = null | number | bigint | boolean | string | Uint8Array;

/** A table: its schema and footer, and its rows as raw values in the order of its columns. */
export interface RawTable {
  readonly schema: readonly SchemaElement[];
  readonly keyValues: readonly KeyValue[];
  readonly createdBy: string | undefined;
  /** The columns (the schema's leaves), in order. */
  readonly columns: readonly SchemaElement[];
  readonly rows: RawValue[][];
}

/** Rows per row group of a written file: the service's own. */
const ROW_GROUP_ROWS = 50_000;

/** The logical types a raw read leaves as their physical values. */
const CONVERTED = new Set(['DATE', 'TIMESTAMP_MILLIS', 'TIMESTAMP_MICROS', 'DECIMAL', 'TIME_MILLIS', 'TIME_MICROS']);

/** Reads a flat Parquet file (the service's tables are flat) with its values raw. */
export async function readRawTable(bytes: Uint8Array): Promise<RawTable> {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(buffer);
  const columns = metadata.schema.slice(1);
  if (columns.some((element) => element.num_children !== undefined && element.num_children > 0)) throw new TypeError('the file is not flat');
  // The same footer with the logical types of dates, instants and decimals taken off: hyparquet then
  // answers the integers the file holds, which no conversion to Date or number has rounded.
  const raw: FileMetaData = {
    ...metadata,
    schema: metadata.schema.map((element) => (isConverted(element) ? { ...stripped(element) } : element)),
  };
  const objects = await parquetReadObjects({ file: buffer, metadata: raw });
  const rows = objects.map((object) => columns.map((column) => rawValue(object[column.name])));
  return { schema: metadata.schema, keyValues: metadata.key_value_metadata ?? [], createdBy: metadata.created_by, columns, rows };
}

function isConverted(element: SchemaElement): boolean {
  const logical = element.logical_type?.type;
  return (element.converted_type !== undefined && CONVERTED.has(element.converted_type)) || logical === 'DATE' || logical === 'TIMESTAMP' || logical === 'DECIMAL' || logical === 'TIME';
}

function stripped(element: SchemaElement): SchemaElement {
  const { converted_type: _converted, logical_type: _logical, scale: _scale, precision: _precision, ...rest } = element;
  return rest;
}

function rawValue(value: unknown): RawValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' || typeof value === 'string' || value instanceof Uint8Array) return value;
  throw new TypeError(`a value this client does not merge: ${typeof value}`);
}

/** A row's values as one text: equal rows, equal texts (bigints, bytes, -0 and NaN told apart). */
export function rowKey(row: readonly RawValue[]): string {
  return JSON.stringify(row.map((value) => {
    if (typeof value === 'bigint') return `${value}n`;
    if (value instanceof Uint8Array) return `b${Buffer.from(value).toString('base64')}`;
    if (typeof value === 'number' && (Object.is(value, -0) || !Number.isFinite(value))) return `${Object.is(value, -0) ? '-0' : String(value)}d`;
    return value;
  }));
}

/** Writes `rows` as a Parquet file of `table`'s schema, footer key-values and creator. */
export function writeRawTable(table: Omit<RawTable, 'rows'>, rows: readonly (readonly RawValue[])[]): Uint8Array {
  const out = new ByteWriter();
  out.appendUint32(0x31524150); // PAR1
  const rowGroups: FileMetaData['row_groups'] = [];
  for (let first = 0; first < rows.length; first += ROW_GROUP_ROWS) {
    const group = rows.slice(first, first + ROW_GROUP_ROWS);
    const start = out.offset;
    const chunks = table.columns.map((column, c) => writeChunk(out, column, group.map((row) => row[c] ?? null)));
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
  const compressed = snappyCompress(uncompressed);
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
