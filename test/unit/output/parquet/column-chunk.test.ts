import { describe, expect, it } from '@jest/globals';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { int32, oneOf, text, timestamp, type FieldSpec } from '../../../../shared/model/fields.js';
import { writeColumnChunk } from '../../../../shared/output/parquet/column-chunk.js';
import { parquetColumn, parquetSchema } from '../../../../shared/output/parquet/parquet-column.js';
import { encodeRowGroup } from '../../../../shared/output/parquet/row-group.js';
import type { SealedColumn } from '../../../../shared/output/parquet/sealed.js';

// The chunk writer on its own: sealed columns in, column chunks out, framed into a file by
// hyparquet-writer's appendRowGroup and read back by hyparquet, page headers included.
const identity = (bytes: Uint8Array) => bytes.slice();

function fileOf(field: FieldSpec, column: SealedColumn): ArrayBuffer {
  const parquet = parquetColumn(field);
  const out = new ByteWriter();
  const writer = new ParquetWriter({ writer: out, schema: parquetSchema([parquet]) });
  void writer.appendRowGroup(encodeRowGroup([parquet.chunk], { rows: column.rows, columns: [column] }));
  void writer.finish();
  const bytes = out.getBytes();
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** The page types of the file's first column chunk, read from the page headers. */
function pageTypes(file: ArrayBuffer): string[] {
  const meta = parquetMetadata(file).row_groups[0]!.columns[0]!.meta_data!;
  const start = Number(meta.dictionary_page_offset ?? meta.data_page_offset);
  const reader = { view: new DataView(file), offset: start };
  const types: string[] = [];
  while (reader.offset < start + Number(meta.total_compressed_size)) {
    const header = parquetHeader(reader);
    types.push(header.type);
    reader.offset += header.compressed_page_size;
  }
  return types;
}

describe('the column chunk writer', () => {
  it('splits a chunk past about 1 MiB of values into data pages, with an offset index of their first rows', async () => {
    const rows = 300_000;
    const data = Int32Array.from({ length: rows }, (_, i) => i * 7 - 1000);
    const file = fileOf(int32('n'), { rows, values: { kind: 'int32', data } });
    const types = pageTypes(file);
    expect(types.length).toBeGreaterThan(1);
    expect(new Set(types)).toEqual(new Set(['DATA_PAGE']));
    const read = await parquetReadObjects({ file });
    expect(read).toHaveLength(rows);
    expect(read[rows - 1]).toEqual({ n: (rows - 1) * 7 - 1000 });
    const meta = parquetMetadata(file).row_groups[0]!.columns[0]!;
    expect(meta.meta_data!.statistics).toMatchObject({ min_value: -1000, max_value: (rows - 1) * 7 - 1000, null_count: 0n });
    expect(meta.offset_index_offset).toBeDefined();
  });

  it('writes a dictionary page before the data, with RLE_DICTIONARY indices and RLE definition levels', async () => {
    const values = { kind: 'bytes' as const, data: Buffer.from([4, 0, 0, 0, ...Buffer.from('Open'), 6, 0, 0, 0, ...Buffer.from('Closed')]), ends: Int32Array.of(8, 18) };
    const column: SealedColumn = { rows: 4, defined: Uint8Array.of(1, 0, 1, 1), values, indices: Int32Array.of(1, 0, 1) };
    const file = fileOf({ ...oneOf('status', ['Open', 'Closed']), nullable: true }, column);
    expect(pageTypes(file)).toEqual(['DICTIONARY_PAGE', 'DATA_PAGE']);
    const meta = parquetMetadata(file).row_groups[0]!.columns[0]!.meta_data!;
    expect(meta.encodings).toEqual(['PLAIN', 'RLE', 'RLE_DICTIONARY']);
    expect(await parquetReadObjects({ file })).toEqual([{ status: 'Closed' }, { status: null }, { status: 'Open' }, { status: 'Closed' }]);
  });

  it('counts offsets from where the chunk starts in its writer, so a row group can be encoded apart and moved', () => {
    const column: SealedColumn = { rows: 2, values: { kind: 'int64', data: Float64Array.of(1, 2 ** 40) } };
    const chunk = parquetColumn(timestamp('at')).chunk;
    const alone = writeColumnChunk(new ByteWriter(), chunk, column, identity);
    const shifted = new ByteWriter();
    shifted.appendBytes(new Uint8Array(1000));
    const after = writeColumnChunk(shifted, chunk, column, identity);
    expect(after.chunk.file_offset - alone.chunk.file_offset).toBe(1000n);
    expect(after.chunk.meta_data!.data_page_offset - alone.chunk.meta_data!.data_page_offset).toBe(1000n);
    expect(after.chunk.meta_data!.statistics).toEqual({ min_value: 1n, max_value: 2n ** 40n, null_count: 0n });
  });

  it('keeps no statistics for free text, and refuses to compute them for it', () => {
    const values = { kind: 'bytes' as const, data: Buffer.from([1, 0, 0, 0, 97]), ends: Int32Array.of(5) };
    const written = writeColumnChunk(new ByteWriter(), parquetColumn(text('note')).chunk, { rows: 1, values }, identity);
    expect(written.chunk.meta_data!.statistics).toBeUndefined();
    expect(() => writeColumnChunk(new ByteWriter(), { name: 'note', type: 'BYTE_ARRAY', statistics: true }, { rows: 1, values }, identity)).toThrow(/statistics are kept for numbers and booleans only/);
  });
});
