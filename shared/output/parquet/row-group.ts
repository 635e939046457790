/**
 * A row group from sealed columns to bytes: its column chunks back to back, with offsets counted
 * from the row group's first byte (ParquetWriter.appendRowGroup moves them into the file). Pure:
 * the same in the exporting thread and in a worker.
 */
import { ByteWriter } from 'hyparquet-writer';
import { snappyCompressor } from 'hysnappy';
import { writeColumnChunk, type Compress, type WrittenChunk } from './column-chunk.js';
import type { ChunkColumn } from './parquet-column.js';
import type { SealedRowGroup } from './sealed.js';

/** A row group's bytes and its chunks' footer entries. */
export interface EncodedRowGroup {
  readonly bytes: Uint8Array;
  readonly chunks: WrittenChunk[];
  readonly numRows: number;
}

/**
 * SNAPPY in WebAssembly (hysnappy, by hyparquet's authors: faster than hyparquet-writer's
 * JavaScript one), one instance per thread, made on first use: hysnappy's `snappyCompress`
 * instantiates the module and a new memory on every call, which cost ~10% of an export (found in
 * review, measured).
 */
let snappy: Compress | undefined;

/**
 * Encodes a row group, its pages compressed with SNAPPY. Into `out` when given (its bytes are
 * then a view, README.md "Views"), else into a writer of its own (bytes to transfer).
 */
export function encodeRowGroup(columns: readonly ChunkColumn[], group: SealedRowGroup, out?: ByteWriter): EncodedRowGroup {
  if (out) {
    out.index = 0;
    out.offset = 0;
  } else {
    out = new ByteWriter(1 << 20);
  }
  const compress = (snappy ??= snappyCompressor());
  const chunks = columns.map((column, c) => writeColumnChunk(out, column, group.columns[c]!, compress));
  return { bytes: out.getBytes(), chunks, numRows: group.rows };
}
