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
import type { ChunkColumn } from './parquet-column.js';
import { valueCount, type PlainValues, type SealedColumn } from './sealed.js';

/** A page compressor (SNAPPY). */
export type Compress = (bytes: Uint8Array) => Uint8Array;

/** A written chunk: its footer entry, and its offset index when it has more than one page. */
export interface WrittenChunk {
  readonly chunk: ColumnChunk;
  readonly offsetIndex?: OffsetIndex;
}

/** Values per data page, by estimated bytes: hyparquet-writer's default page size. */
const PAGE_BYTES = 1 << 20;

/** Writes one column chunk to `out`. */
export function writeColumnChunk(out: ByteWriter, column: ChunkColumn, sealed: SealedColumn, compress: Compress): WrittenChunk {
  const start = out.offset;
  const { values, indices } = sealed;
  // As parquet-mr and Arrow list them: the values' encodings, and RLE where there are definition levels.
  const encodings: Encoding[] = sealed.defined ? ['PLAIN', 'RLE'] : ['PLAIN'];
  let uncompressed = 0;
  let dictionaryPageOffset: bigint | undefined;
  if (indices) {
    dictionaryPageOffset = BigInt(out.offset);
    const entries = valueCount(values);
    uncompressed += writePage(out, compress, plainBytes(values, 0, entries), { dictionary_page_header: { num_values: entries, encoding: 'PLAIN' }, type: 'DICTIONARY_PAGE' });
    encodings.push('RLE_DICTIONARY');
  }
  const encoding: Encoding = indices ? 'RLE_DICTIONARY' : 'PLAIN';
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
function dataPages({ rows, defined, values, indices }: SealedColumn): DataPage[] {
  const size = valueSize(indices ? undefined : values);
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
    case 'double':
      return () => 8;
    case 'boolean':
      return () => 1 / 8;
    case 'bytes': {
      const { ends } = values;
      return (i) => ends[i]! - (i === 0 ? 0 : ends[i - 1]!) - 4;
    }
  }
}

/**
 * Scratch memory for what lives only until a page is compressed — its body, its levels, INT64
 * values as bytes, booleans as bits — reused page after page, one set per thread, made on first
 * use: far fewer large allocations, and so fewer garbage collections, than a fresh array per page.
 * What it holds is a view until the next page (README.md, "Views").
 */
interface Scratch {
  readonly body: ByteWriter;
  readonly levels: ByteWriter;
  halves: Int32Array;
  bits: Uint8Array;
}
let scratchMemory: Scratch | undefined;

function scratch(): Scratch {
  if (scratchMemory === undefined) {
    // Numbers are taken from typed arrays as they lie in memory: little-endian, as Parquet wants.
    if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('the Parquet export needs a little-endian machine');
    scratchMemory = { body: new ByteWriter(1 << 16), levels: new ByteWriter(1 << 12), halves: new Int32Array(1 << 14), bits: new Uint8Array(1 << 12) };
  }
  return scratchMemory;
}

function reset(writer: ByteWriter): ByteWriter {
  writer.index = 0;
  writer.offset = 0;
  return writer;
}

/**
 * A version 1 data page's body: definition levels (nullable columns: RLE behind their 4-byte
 * length), then the values. The bytes are scratch memory: valid until the next page.
 */
function dataPageBody({ defined, values, indices: allIndices }: SealedColumn, page: DataPage): Uint8Array {
  const valuesEnd = page.firstValue + page.values;
  if (defined === undefined && allIndices === undefined) return plainBytes(values, page.firstValue, valuesEnd);
  const body = reset(scratch().body);
  if (defined !== undefined) {
    const levels = reset(scratch().levels);
    writeRleBitPackedHybrid(levels, defined.subarray(page.firstRow, page.firstRow + page.rows), 1);
    body.appendUint32(levels.offset);
    body.appendBytes(levels.getBytes());
  }
  if (allIndices !== undefined) {
    const indices = allIndices.subarray(page.firstValue, valuesEnd);
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

/** Values `from` to `to` (exclusive) in PLAIN encoding: a view of the values, or of scratch memory. */
function plainBytes(values: PlainValues, from: number, to: number): Uint8Array {
  switch (values.kind) {
    case 'int32':
      return new Uint8Array(values.data.buffer, values.data.byteOffset + from * 4, (to - from) * 4);
    case 'double':
      return new Uint8Array(values.data.buffer, values.data.byteOffset + from * 8, (to - from) * 8);
    case 'boolean': {
      // One bit per value, the first value in the lowest bit of the first byte.
      const memory = scratch();
      const length = Math.ceil((to - from) / 8);
      if (memory.bits.length < length) memory.bits = new Uint8Array(length);
      const bits = memory.bits.fill(0, 0, length);
      for (let i = from; i < to; i++) if (values.data[i]) bits[(i - from) >> 3]! |= 1 << ((i - from) & 7);
      return bits.subarray(0, length);
    }
    case 'int64': {
      // Each safe integer as its two's-complement halves: low 32 bits, then high (no BigInt).
      const memory = scratch();
      if (memory.halves.length < (to - from) * 2) memory.halves = new Int32Array((to - from) * 2);
      const halves = memory.halves;
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

/** Compresses a page body and writes its header and the compressed bytes; the uncompressed size, header included. */
function writePage(out: ByteWriter, compress: Compress, body: Uint8Array, header: Omit<PageHeader, 'compressed_page_size' | 'uncompressed_page_size'>): number {
  const compressed = compress(body);
  const headerStart = out.offset;
  writePageHeader(out, { ...header, uncompressed_page_size: body.byteLength, compressed_page_size: compressed.byteLength });
  const headerBytes = out.offset - headerStart;
  out.appendBytes(compressed);
  return headerBytes + body.byteLength;
}

/**
 * Min/max of the non-null values (INT64 as bigint, as the footer writes them; BOOLEAN as booleans;
 * a double's zero as -0 for the minimum and +0 for the maximum, as the format asks) and the null count.
 */
function statistics({ rows, values, indices }: SealedColumn): Statistics {
  const present = indices ? indices.length : valueCount(values);
  const nullCount = BigInt(rows - present);
  if (values.kind === 'bytes') throw new TypeError('statistics are kept for numbers and booleans only');
  const { data } = values;
  if (data.length === 0) return { null_count: nullCount };
  let min = data[0]!;
  let max = min;
  for (let i = 1; i < data.length; i++) {
    const value = data[i]!;
    if (value < min) min = value;
    else if (value > max) max = value;
  }
  switch (values.kind) {
    case 'int64':
      return { min_value: BigInt(min), max_value: BigInt(max), null_count: nullCount };
    case 'boolean':
      return { min_value: min === 1, max_value: max === 1, null_count: nullCount };
    case 'double':
      return { min_value: min === 0 ? -0 : min, max_value: max === 0 ? 0 : max, null_count: nullCount };
    case 'int32':
      return { min_value: min, max_value: max, null_count: nullCount };
  }
}
