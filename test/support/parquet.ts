import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { unzipSync } from 'fflate';

/** A Parquet file read back with hyparquet: column names, schema elements, rows, key-value metadata. */
export interface ReadBack {
  columns: string[];
  schema: { name: string; type?: string; converted_type?: string; logical_type?: { type: string }; repetition_type?: string }[];
  rows: Record<string, unknown>[];
  metadata: Record<string, string>;
  numRows: number;
  /** The footer's created_by. */
  createdBy: string;
  /** Every page's type, read from the page headers themselves (not from the footer's summary). */
  pageTypes: string[];
}

/** Reads a whole Parquet file with hyparquet (an independent reader). */
export async function readParquet(bytes: Uint8Array): Promise<ReadBack> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const meta = parquetMetadata(file);
  const rows = (await parquetReadObjects({ file })) as Record<string, unknown>[];
  const schema = meta.schema.slice(1) as ReadBack['schema'];
  return {
    columns: schema.map((element) => element.name),
    schema,
    rows,
    metadata: Object.fromEntries((meta.key_value_metadata ?? []).map(({ key, value }) => [key, value ?? ''])),
    numRows: Number(meta.num_rows),
    createdBy: meta.created_by ?? '',
    pageTypes: pageTypes(file, meta),
  };
}

/** Walks each column chunk page by page, reading the page headers. */
function pageTypes(file: ArrayBuffer, meta: ReturnType<typeof parquetMetadata>): string[] {
  const types: string[] = [];
  for (const group of meta.row_groups) {
    for (const column of group.columns) {
      const chunk = column.meta_data!;
      const start = Number(chunk.dictionary_page_offset ?? chunk.data_page_offset);
      const end = start + Number(chunk.total_compressed_size);
      const reader = { view: new DataView(file), offset: start };
      while (reader.offset < end) {
        const header = parquetHeader(reader);
        types.push(header.type);
        reader.offset += header.compressed_page_size;
      }
    }
  }
  return types;
}

/** The entries of a zip, by name. */
export function unzip(bytes: Uint8Array): Record<string, Uint8Array> {
  return unzipSync(bytes);
}
