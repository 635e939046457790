import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { unzipSync } from 'fflate';

/** A Parquet file read back with hyparquet: column names, schema elements, rows, key-value metadata. */
export interface ReadBack {
  columns: string[];
  schema: { name: string; type?: string; converted_type?: string; logical_type?: { type: string }; repetition_type?: string }[];
  rows: Record<string, unknown>[];
  metadata: Record<string, string>;
  numRows: number;
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
  };
}

/** The entries of a zip, by name. */
export function unzip(bytes: Uint8Array): Record<string, Uint8Array> {
  return unzipSync(bytes);
}
