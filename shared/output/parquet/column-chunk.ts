/**
 * A sealed column (typed buffers) as a Parquet column chunk: an optional dictionary page, then
 * version 1 data pages of at most about 1 MiB of values, each compressed; with the chunk's footer
 * metadata, statistics and offset index. Offsets count from where the chunk starts in `out`, so a
 * row group can be encoded apart (in a worker thread) and moved into the file by
 * ParquetWriter.appendRowGroup. Page headers and the RLE/bit-packed hybrid are hyparquet-writer's.
 */
import type { ColumnChunk, Encoding, OffsetIndex, PageHeader, Statistics } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import type { PlainValues, SealedColumn } from './column-buffers.js';

/** What the chunk writer needs to know of a column. */
export interface ChunkColumn {
  readonly name: string;
  readonly type: 'INT32' | 'INT64' | 'BYTE_ARRAY';
  /** Whether the chunk keeps min/max statistics (numbers only) and encoding stats. */
  readonly statistics: boolean;
}

/** A page compressor (SNAPPY). */
export type Compress = (bytes: Uint8Array) => Uint8Array;

/** A written chunk: its footer entry, and its offset index when it has more than one page. */
export interface WrittenChunk {
  readonly chunk: ColumnChunk;
  readonly offsetIndex?: OffsetIndex;
}

/** Values per data page, by estimated bytes: hyparquet-writer's default page size. */
const PAGE_BYTES = 1 << 20;

/** INT32 and INT64 bytes are taken from typed arrays as they lie in memory: little-endian, as Parquet wants. */
if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('the Parquet export needs a little-endian machine');

/** Writes one column chunk to `out`. */
export function writeColumnChunk(out: ByteWriter, column: ChunkColumn, sealed: SealedColumn, compress: Compress): WrittenChunk {
  const start = out.offset;
  const { values } = sealed;
  // As parquet-mr and Arrow list them: the values' encodings, and RLE where there are definition levels.
  const encodings: Encoding[] = sealed.defined ? ['PLAIN', 'RLE'] : ['PLAIN'];
  let uncompressed = 0;
  let dictionaryPageOffset: bigint | undefined;
  if (values.kind === 'dictionary') {
    dictionaryPageOffset = BigInt(out.offset);
    const entries = valueCount(values.dictionary);
    uncompressed += writePage(out, compress, plainBytes(values.dictionary, 0, entries), { dictionary_page_header: { num_values: entries, encoding: 'PLAIN' }, type: 'DICTIONARY_PAGE' });
    encodings.push('RLE_DICTIONARY');
  }
  const encoding: Encoding = values.kind === 'dictionary' ? 'RLE_DICTIONARY' : 'PLAIN';
  const dataPageOffset = BigInt(out.offset);
  const pages = dataPages(sealed);
  const locations: OffsetIndex['page_locations'] = [];
  for (const page of pages) {
    const offset = out.offset;
    uncompressed += writePage(out, compress, dataPageBody(sealed, page), {
      data_page_header: { num_values: page.rows, encoding, definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' },
      type: 'DATA_PAGE',
    });
    locations.push({ offset: BigInt(offset), compressed_page_size: out.offset - offset, first_row_index: BigInt(page.firstRow) });
  }
  const chunk: ColumnChunk = {
    file_offset: BigInt(start),
    meta_data: {
      type: column.type,
      encodings,
      path_in_schema: [column.name],
      codec: 'SNAPPY',
      num_values: BigInt(sealed.rows),
      total_uncompressed_size: BigInt(uncompressed),
      total_compressed_size: BigInt(out.offset - start),
      data_page_offset: dataPageOffset,
      ...(dictionaryPageOffset === undefined ? {} : { dictionary_page_offset: dictionaryPageOffset }),
      ...(column.statistics
        ? {
          statistics: statistics(sealed),
          encoding_stats: [
            ...(dictionaryPageOffset === undefined ? [] : [{ page_type: 'DICTIONARY_PAGE' as const, encoding: 'PLAIN' as const, count: 1 }]),
            { page_type: 'DATA_PAGE' as const, encoding, count: pages.length },
          ],
        }
        : {}),
    },
  };
  return locations.length > 1 ? { chunk, offsetIndex: { page_locations: locations } } : { chunk };
}

/** One data page: its rows, and its values (fewer where rows are null). */
interface DataPage {
  readonly firstRow: number;
  readonly rows: number;
  readonly firstValue: number;
  readonly values: number;
}

/** Splits the rows into pages of about PAGE_BYTES of values (estimated as hyparquet-writer does: 4 bytes per dictionary index). */
function dataPages({ rows, defined, values }: SealedColumn): DataPage[] {
  const size = valueSize(values.kind === 'dictionary' ? undefined : values);
  const pages: DataPage[] = [];
  let firstRow = 0;
  let firstValue = 0;
  let value = 0;
  let bytes = 0;
  for (let row = 0; row < rows; row++) {
    if (defined !== undefined && defined[row] === 0) continue;
    const bytesOfValue = size(value);
    if (bytes + bytesOfValue >= PAGE_BYTES && value > firstValue) {
      pages.push({ firstRow, rows: row - firstRow, firstValue, values: value - firstValue });
      firstRow = row;
      firstValue = value;
      bytes = 0;
    }
    bytes += bytesOfValue;
    value++;
  }
  if (rows > firstRow) pages.push({ firstRow, rows: rows - firstRow, firstValue, values: value - firstValue });
  return pages;
}

function valueSize(values: PlainValues | undefined): (index: number) => number {
  switch (values?.kind) {
    case undefined:
    case 'int32':
      return () => 4;
    case 'int64':
      return () => 8;
    case 'bytes': {
      const { ends } = values;
      return (i) => ends[i]! - (i === 0 ? 0 : ends[i - 1]!) - 4;
    }
  }
}

/**
 * Scratch memory for what lives only until a page is compressed — its body, its levels, INT64
 * values as bytes — reused page after page (one set per thread): far fewer large allocations,
 * and so fewer garbage collections, than a fresh array per page.
 */
const scratch = { body: new ByteWriter(1 << 16), levels: new ByteWriter(1 << 12), halves: new Int32Array(1 << 14) };

function reset(writer: ByteWriter): ByteWriter {
  writer.index = 0;
  writer.offset = 0;
  return writer;
}

/**
 * A version 1 data page's body: definition levels (nullable columns: RLE behind their 4-byte
 * length), then the values. The bytes are scratch memory: valid until the next page.
 */
function dataPageBody({ defined, values }: SealedColumn, page: DataPage): Uint8Array {
  const valuesEnd = page.firstValue + page.values;
  if (defined === undefined && values.kind !== 'dictionary') return plainBytes(values, page.firstValue, valuesEnd);
  const body = reset(scratch.body);
  if (defined !== undefined) {
    const levels = reset(scratch.levels);
    writeRleBitPackedHybrid(levels, defined.subarray(page.firstRow, page.firstRow + page.rows), 1);
    body.appendUint32(levels.offset);
    body.appendBytes(levels.getBytes());
  }
  if (values.kind === 'dictionary') {
    const indices = values.indices.subarray(page.firstValue, valuesEnd);
    let max = 0;
    for (let i = 0; i < indices.length; i++) if (indices[i]! > max) max = indices[i]!;
    const bitWidth = Math.ceil(Math.log2(max + 1));
    body.appendUint8(bitWidth);
    writeRleBitPackedHybrid(body, indices, bitWidth);
  } else {
    body.appendBytes(plainBytes(values, page.firstValue, valuesEnd));
  }
  return body.getBytes();
}

/** Values `from` to `to` (exclusive) in PLAIN encoding (INT64: in scratch memory, valid until the next call). */
function plainBytes(values: PlainValues, from: number, to: number): Uint8Array {
  switch (values.kind) {
    case 'int32':
      return new Uint8Array(values.data.buffer, values.data.byteOffset + from * 4, (to - from) * 4);
    case 'int64': {
      // Each safe integer as its two's-complement halves: low 32 bits, then high (no BigInt).
      if (scratch.halves.length < (to - from) * 2) scratch.halves = new Int32Array((to - from) * 2);
      const halves = scratch.halves;
      for (let i = from, h = 0; i < to; i++, h += 2) {
        const value = values.data[i]!;
        const high = Math.floor(value / 4294967296);
        halves[h] = value - high * 4294967296;
        halves[h + 1] = high;
      }
      return new Uint8Array(halves.buffer, 0, (to - from) * 8);
    }
    case 'bytes':
      return values.data.subarray(from === 0 ? 0 : values.ends[from - 1], to === 0 ? 0 : values.ends[to - 1]);
  }
}

function valueCount(values: PlainValues): number {
  return values.kind === 'bytes' ? values.ends.length : values.data.length;
}

/** Compresses a page body and writes its header and the compressed bytes; the uncompressed size, header included. */
function writePage(out: ByteWriter, compress: Compress, body: Uint8Array, header: Omit<PageHeader, 'compressed_page_size' | 'uncompressed_page_size'>): number {
  const compressed = compress(body);
  const headerStart = out.offset;
  writePageHeader(out, { ...header, uncompressed_page_size: body.byteLength, compressed_page_size: compressed.byteLength });
  const headerBytes = out.offset - headerStart;
  out.appendBytes(compressed);
  return headerBytes + body.byteLength;
}

/** Min/max of the non-null values (INT64 as bigint, as the footer writes them) and the null count. */
function statistics({ rows, values }: SealedColumn): Statistics {
  const plain = values.kind === 'dictionary' ? values.dictionary : values;
  const present = values.kind === 'dictionary' ? values.indices.length : valueCount(values);
  const nullCount = BigInt(rows - present);
  if (plain.kind === 'bytes') throw new TypeError('statistics are kept for numbers only');
  const { data } = plain;
  if (data.length === 0) return { null_count: nullCount };
  let min = data[0]!;
  let max = min;
  for (let i = 1; i < data.length; i++) {
    const value = data[i]!;
    if (value < min) min = value;
    else if (value > max) max = value;
  }
  return plain.kind === 'int64'
    ? { min_value: BigInt(min), max_value: BigInt(max), null_count: nullCount }
    : { min_value: min, max_value: max, null_count: nullCount };
}
