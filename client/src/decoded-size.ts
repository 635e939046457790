/**
 * What decoding a Parquet file costs every reader that opens it, bounded from its pages, not from
 * what its footer claims: the pull client refuses to write into a folder a file that decodes to far
 * more than it weighs (a 204-byte file whose dictionary decodes to 2 GB, a footer that understates
 * its sizes). The Python loader applies the same rule before it decodes (_bounds.py).
 *
 * The walk: the footer's length first (a footer of millions of empty entries is refused before it
 * is parsed); then, per column chunk, every page header between its first page and its end. Readers
 * allocate what page headers say (values, uncompressed bytes), so those are summed; a dictionary
 * page is decompressed (within its declared size) to find its longest value, which each of the
 * chunk's values may expand to. A chunk whose pages hold other than the values its footer names
 * is refused.
 */
import { readSync } from 'node:fs';
import * as zlib from 'node:zlib';
import { parquetMetadata, snappyUncompress, type ColumnMetaData, type FileMetaData, type PageHeader, type SchemaElement } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { readDataPage, readDataPageV2 } from 'hyparquet/src/datapage.js';
import { getSchemaPath } from 'hyparquet/src/schema.js';
import { DEFAULT_PARSERS } from 'hyparquet/src/convert.js';

/**
 * The encodings of data pages whose decoded size the page sizes and values bound (a fixed width,
 * plain bytes, dictionary indices, deltas of numbers); DELTA_BYTE_ARRAY is not among them.
 */
const READ_ENCODINGS: ReadonlySet<string> = new Set(['PLAIN', 'PLAIN_DICTIONARY', 'RLE', 'RLE_DICTIONARY', 'BIT_PACKED', 'DELTA_BINARY_PACKED', 'DELTA_LENGTH_BYTE_ARRAY', 'BYTE_STREAM_SPLIT']);

/** Bytes one value of a fixed-width Parquet type decodes to (a boolean: one byte in the count). */
const WIDTHS: Readonly<Record<string, number>> = { BOOLEAN: 1, INT32: 4, INT64: 8, INT96: 12, FLOAT: 4, DOUBLE: 8 };
/** Decoded bytes of a variable-width value besides its own: an offset and validity. */
const OFFSET_BYTES = 8;
/**
 * However small its file, a Parquet file may decode to this much; past it, to at most
 * MAX_DECODED_RATIO times its size (the Python loader's rule, _bounds.py). The service's files
 * decode to a few times their size.
 */
export const MIN_DECODED_LIMIT = 64 * 1024 * 1024;
export const MAX_DECODED_RATIO = 256;
/**
 * The largest footer taken: MIN_FOOTER_LIMIT, or 1/FOOTER_SHARE of the file past that. The
 * service's footers are a few hundred bytes per column and row group, under 1% of a file.
 */
export const MIN_FOOTER_LIMIT = 256 * 1024;
export const FOOTER_SHARE = 64;

/**
 * The largest column chunk, and dictionary page, taken: one is read into memory at a time, so this
 * bounds what checking a file holds, whatever its size. The service's chunks (50,000 rows of one
 * column) and dictionaries are a few MB.
 */
const MAX_CHUNK_BYTES = 64 * 1024 * 1024;

/** A Parquet file to check: in memory, or on disk (`fileBytes`), read a part at a time. */
export interface ParquetBytes {
  readonly byteLength: number;
  /** `length` bytes from `offset` (within the file). */
  read(offset: number, length: number): Uint8Array;
}

/** A file on disk as ParquetBytes: each read is a positional read of that part. */
export function fileBytes(fd: number, byteLength: number): ParquetBytes {
  return {
    byteLength,
    read(offset, length) {
      const part = Buffer.allocUnsafe(length);
      for (let at = 0; at < length;) {
        const got = readSync(fd, part, at, length - at, offset + at);
        if (got === 0) throw new UnsafeParquet('the file is shorter than it was');
        at += got;
      }
      return part;
    },
  };
}

function inMemory(bytes: Uint8Array): ParquetBytes {
  return { byteLength: bytes.byteLength, read: (offset, length) => bytes.subarray(offset, offset + length) };
}

export function decodedLimit(fileBytes: number): number {
  return Math.max(MIN_DECODED_LIMIT, MAX_DECODED_RATIO * fileBytes);
}

export function footerLimit(fileBytes: number): number {
  return Math.max(MIN_FOOTER_LIMIT, Math.floor(fileBytes / FOOTER_SHARE));
}

/** A Parquet file a reader may open: its footer, its row count, and the most it decodes to. */
export interface CheckedParquet {
  readonly metadata: FileMetaData;
  readonly rows: number;
  readonly decoded: number;
}

/** Why a file is refused: it is not Parquet, or it decodes to more than a reader should be given. */
export class UnsafeParquet extends Error {
  override readonly name = 'UnsafeParquet';
}

/**
 * Checks a Parquet file (its bytes, or `fileBytes` of one on disk) as every reader of a folder
 * could open it; throws UnsafeParquet. It holds the footer and one column chunk at a time.
 */
export function checkParquet(file: Uint8Array | ParquetBytes): CheckedParquet {
  const source = file instanceof Uint8Array ? inMemory(file) : file;
  const size = source.byteLength;
  const word = (at: number) => {
    const bytes = source.read(at, 4);
    return new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  };
  const magic = (at: number) => at >= 0 && word(at) === 0x31524150;
  if (size < 12 || !magic(0) || !magic(size - 4)) throw new UnsafeParquet('it is not a Parquet file (no PAR1 at both ends)');
  const footer = word(size - 8);
  const dataEnd = size - 8 - footer;
  if (dataEnd < 4) throw new UnsafeParquet(`its footer claims ${footer} bytes, more than the file has`);
  if (footer > footerLimit(size)) throw new UnsafeParquet(`its footer takes ${footer} bytes, more than ${footerLimit(size)} for a file of ${size} bytes`);
  let metadata: FileMetaData;
  try {
    // The footer alone.
    metadata = parquetMetadata(source.read(dataEnd, size - dataEnd));
  } catch (error) {
    throw new UnsafeParquet(`it is not Parquet (${error instanceof Error ? error.message : String(error)})`);
  }
  // The service writes flat tables: a root and one leaf per column, in order.
  const leaves = metadata.schema.slice(1);
  if (leaves.some((element) => element.num_children !== undefined && element.num_children > 0)) throw new UnsafeParquet('it has nested columns, which the service never sends');
  const limit = decodedLimit(size);
  let decoded = 0;
  for (const group of metadata.row_groups) {
    if (group.columns.length !== leaves.length) throw new UnsafeParquet(`a row group has ${group.columns.length} columns where the schema has ${leaves.length}`);
    for (const [index, chunk] of group.columns.entries()) {
      const column = chunk.meta_data;
      if (!column) throw new UnsafeParquet('a column chunk has no metadata');
      decoded += chunkBound(source, column, leaves[index], getSchemaPath(metadata.schema, column.path_in_schema), dataEnd, limit - decoded);
      if (decoded > limit) throw tooLarge(decoded, size, limit);
    }
  }
  return { metadata, rows: Number(metadata.num_rows), decoded };
}

function tooLarge(decoded: number, fileBytes: number, limit: number): UnsafeParquet {
  return new UnsafeParquet(`its pages decode to more than ${decoded} bytes, more than a reader should be given for a file of ${fileBytes} bytes (${limit})`);
}

/** The most a column chunk decodes to, from its page headers (`budget`: what is left of the file's limit). */
function chunkBound(source: ParquetBytes, column: ColumnMetaData, leaf: SchemaElement | undefined, schemaPath: ReturnType<typeof getSchemaPath>, dataEnd: number, budget: number): number {
  // A dictionary offset of 0 (older writers, for chunks without a dictionary) is no offset.
  const first = Number(column.dictionary_page_offset !== undefined && column.dictionary_page_offset > 0n ? column.dictionary_page_offset : column.data_page_offset);
  const last = first + Number(column.total_compressed_size);
  const name = column.path_in_schema.join('.');
  if (!(first >= 4 && last <= dataEnd && last >= first)) throw new UnsafeParquet(`column ${name} lies outside the file's data`);
  if (last - first > MAX_CHUNK_BYTES) throw new UnsafeParquet(`column ${name} has a chunk of ${last - first} bytes, more than the ${MAX_CHUNK_BYTES} a chunk of the service's may take`);
  // The chunk alone, in memory: its pages are read at offsets within it.
  const bytes = source.read(first, last - first);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const start = 0;
  const end = bytes.byteLength;
  const width = WIDTHS[column.type] ?? (column.type === 'FIXED_LEN_BYTE_ARRAY' ? leaf?.type_length ?? OFFSET_BYTES : undefined);
  let uncompressed = 0;
  let values = 0;
  let longest: number | undefined;
  let lengths: Uint32Array | undefined;
  const dataPages: { readonly header: PageHeader; readonly offset: number }[] = [];
  for (let offset = start; offset < end;) {
    const reader = { view, offset };
    let header: PageHeader;
    try {
      header = parquetHeader(reader);
    } catch (error) {
      throw new UnsafeParquet(`column ${name} has a page header that cannot be read (${error instanceof Error ? error.message : String(error)})`);
    }
    const size = header.compressed_page_size;
    const pageSize = header.uncompressed_page_size;
    if (!(Number.isSafeInteger(size) && size >= 0 && Number.isSafeInteger(pageSize) && pageSize >= 0 && reader.offset + size <= end)) {
      throw new UnsafeParquet(`column ${name} has a page whose sizes do not fit the chunk`);
    }
    uncompressed += pageSize;
    if (uncompressed > budget) return uncompressed;
    if (header.type === 'DICTIONARY_PAGE') {
      if (pageSize > MAX_CHUNK_BYTES) throw new UnsafeParquet(`column ${name} has a dictionary of ${pageSize} bytes, more than the ${MAX_CHUNK_BYTES} a dictionary of the service's may take`);
      const entries = header.dictionary_page_header?.num_values ?? 0;
      lengths = width === undefined ? dictionaryLengths(view, reader.offset, size, pageSize, column.codec, entries, name) : undefined;
      longest = Math.max(longest ?? 0, width ?? (lengths ? lengths.reduce((most, length) => Math.max(most, length), 0) : pageSize));
    } else if (header.type === 'DATA_PAGE' || header.type === 'DATA_PAGE_V2') {
      const encoding = header.data_page_header?.encoding ?? header.data_page_header_v2?.encoding;
      // A value of DELTA_BYTE_ARRAY may repeat all of the one before it: bytes that no page
      // size bounds. The service never writes it (nor anything but these).
      if (encoding === undefined || !READ_ENCODINGS.has(encoding)) throw new UnsafeParquet(`column ${name} has a page in the ${String(encoding)} encoding, which the service never writes`);
      const count = header.data_page_header?.num_values ?? header.data_page_header_v2?.num_values ?? -1;
      if (!(Number.isSafeInteger(count) && count >= 0)) throw new UnsafeParquet(`column ${name} has a data page without its number of values`);
      values += count;
      dataPages.push({ header, offset: reader.offset });
    }
    offset = reader.offset + size;
  }
  if (values !== Number(column.num_values)) throw new UnsafeParquet(`column ${name}'s pages hold ${values} values where its footer says ${column.num_values}`);
  // Each value: its width; a byte array, its bytes in the pages and its offset, or as long as the
  // longest dictionary value.
  if (width !== undefined) return Math.max(uncompressed, values * width);
  const bound = uncompressed + values * ((longest ?? 0) + OFFSET_BYTES);
  // Past the budget only because one dictionary value is long: count what the indices point at.
  if (bound <= budget || lengths === undefined || values * OFFSET_BYTES > budget) return bound;
  const expansion = dictionaryExpansion(view, column, leaf, schemaPath, dataPages, lengths, name);
  return expansion === undefined ? bound : uncompressed + expansion;
}

/**
 * What a dictionary chunk's values decode to, each page's indices read (version 1 pages: their
 * levels, then the indices; plain pages' values as they are), or undefined where a page cannot be
 * read here (a version 2 page, a codec not read): the caller keeps its bound.
 */
function dictionaryExpansion(view: DataView, column: ColumnMetaData, leaf: SchemaElement | undefined, schemaPath: ReturnType<typeof getSchemaPath>, pages: readonly { readonly header: PageHeader; readonly offset: number }[], lengths: Uint32Array, name: string): number | undefined {
  if (leaf === undefined || !['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'BROTLI', 'ZSTD'].includes(column.codec)) return undefined;
  // Pages decompressed by this file's own rules, within their declared sizes.
  const compressors = Object.fromEntries(['GZIP', 'BROTLI', 'ZSTD'].map((codec) => [codec, (input: Uint8Array, size: number) => decompress(input, size, codec) ?? new Uint8Array(0)]));
  const decoder = { type: column.type, element: leaf, schemaPath, pathInSchema: column.path_in_schema, codec: column.codec, parsers: DEFAULT_PARSERS, compressors };
  let total = 0;
  for (const { header, offset } of pages) {
    const compressed = new Uint8Array(view.buffer, view.byteOffset + offset, header.compressed_page_size);
    let decoded: ArrayLike<unknown>;
    let encoding: string | undefined;
    let count: number;
    try {
      if (header.type === 'DATA_PAGE' && header.data_page_header) {
        const bytes = decompress(compressed, header.uncompressed_page_size, column.codec);
        if (bytes === undefined || bytes.byteLength !== header.uncompressed_page_size) return undefined;
        decoded = readDataPage(bytes, header.data_page_header, decoder).dataPage;
        encoding = header.data_page_header.encoding;
        count = header.data_page_header.num_values;
      } else if (header.type === 'DATA_PAGE_V2' && header.data_page_header_v2) {
        decoded = readDataPageV2(compressed, header, decoder).dataPage;
        encoding = header.data_page_header_v2.encoding;
        count = header.data_page_header_v2.num_values;
      } else {
        return undefined;
      }
    } catch (error) {
      throw new UnsafeParquet(`column ${name} has a page that cannot be read (${error instanceof Error ? error.message : String(error)})`);
    }
    const dictionary = encoding === 'PLAIN_DICTIONARY' || encoding === 'RLE_DICTIONARY';
    for (let index = 0; index < decoded.length; index++) {
      const value = decoded[index];
      const length = dictionary ? lengths[Number(value)] : (value as { length?: number } | undefined)?.length ?? 0;
      if (length === undefined) throw new UnsafeParquet(`column ${name} has an index past its dictionary`);
      total += length + OFFSET_BYTES;
    }
    // Nulls: an offset each.
    total += Math.max(0, count - decoded.length) * OFFSET_BYTES;
  }
  return total;
}

/**
 * The lengths of a byte-array dictionary page's values: the page decompressed within its declared
 * size, its `entries` length-prefixed values read; undefined for a codec this client cannot
 * decompress (the caller counts the whole page as one value).
 */
function dictionaryLengths(view: DataView, offset: number, size: number, pageSize: number, codec: string, entries: number, name: string): Uint32Array | undefined {
  const compressed = new Uint8Array(view.buffer, view.byteOffset + offset, size);
  let page: Uint8Array;
  try {
    page = decompress(compressed, pageSize, codec) ?? new Uint8Array(0);
  } catch (error) {
    throw new UnsafeParquet(`column ${name}'s dictionary does not decompress to its declared ${pageSize} bytes (${error instanceof Error ? error.message : String(error)})`);
  }
  if (page.byteLength === 0 && pageSize > 0) return undefined;
  if (page.byteLength !== pageSize) throw new UnsafeParquet(`column ${name}'s dictionary decompresses to ${page.byteLength} bytes, not the ${pageSize} it declares`);
  if (entries > pageSize / 4) throw new UnsafeParquet(`column ${name}'s dictionary declares more values than its ${pageSize} bytes hold`);
  const bytes = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const lengths = new Uint32Array(entries);
  let at = 0;
  for (let index = 0; index < entries; index++) {
    if (at + 4 > page.byteLength) throw new UnsafeParquet(`column ${name}'s dictionary holds fewer than the ${entries} values it declares`);
    const length = bytes.getUint32(at, true);
    at += 4 + length;
    if (at > page.byteLength) throw new UnsafeParquet(`column ${name}'s dictionary holds a value past its end`);
    lengths[index] = length;
  }
  return lengths;
}

/** A page's bytes, decompressed to exactly `size` bytes; undefined for a codec this client does not read. */
function decompress(bytes: Uint8Array, size: number, codec: string): Uint8Array | undefined {
  switch (codec) {
    case 'UNCOMPRESSED':
      return bytes;
    case 'SNAPPY': {
      const out = new Uint8Array(size);
      snappyUncompress(bytes, out);
      return out;
    }
    case 'GZIP':
      return zlib.gunzipSync(bytes, { maxOutputLength: Math.max(size, 1) });
    case 'BROTLI':
      return zlib.brotliDecompressSync(bytes, { maxOutputLength: Math.max(size, 1) });
    case 'ZSTD':
      // Node 22.15 and later; on an older Node a ZSTD dictionary counts whole, as an unread codec's does.
      return zlib.zstdDecompressSync?.(bytes, { maxOutputLength: Math.max(size, 1) });
    default:
      return undefined;
  }
}
