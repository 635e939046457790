/**
 * A row group from sealed columns to bytes: its column chunks back to back, with offsets counted
 * from the row group's first byte (ParquetWriter.appendRowGroup moves them into the file). Pure:
 * the same in the exporting thread and in a worker.
 */
import { ByteWriter } from 'hyparquet-writer';
import { snappyCompress } from 'hysnappy';
import type { SealedColumn } from './column-buffers.js';
import { writeColumnChunk, type ChunkColumn, type Compress, type WrittenChunk } from './column-chunk.js';

/** A row group's columns, sealed. */
export interface SealedRowGroup {
  readonly rows: number;
  readonly columns: readonly SealedColumn[];
}

/** A row group's bytes and its chunks' footer entries. */
export interface EncodedRowGroup {
  readonly bytes: Uint8Array;
  readonly chunks: WrittenChunk[];
  readonly numRows: number;
}

/** Encodes a row group, its pages compressed with SNAPPY (in WebAssembly: faster than hyparquet-writer's JavaScript one). */
export function encodeRowGroup(columns: readonly ChunkColumn[], group: SealedRowGroup, compress: Compress = snappyCompress): EncodedRowGroup {
  const out = new ByteWriter(1 << 20);
  const chunks = columns.map((column, c) => writeColumnChunk(out, column, group.columns[c]!, compress));
  return { bytes: out.getBytes(), chunks, numRows: group.rows };
}
