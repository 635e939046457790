import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm/node';

/** A Parquet file read back with parquet-wasm (the Rust `parquet` crate, Arrow's own reader). */
export interface ArrowReadBack {
  columns: { name: string; type: string; nullable: boolean }[];
  numRows: number;
  /** Each column's values as strings (null stays null), for comparing across readers. */
  values: Record<string, (string | null)[]>;
}

export function readWithArrow(bytes: Uint8Array): ArrowReadBack {
  const table = tableFromIPC(readParquet(bytes).intoIPCStream());
  const columns = table.schema.fields.map((field) => ({ name: field.name, type: String(field.type), nullable: field.nullable }));
  const values = Object.fromEntries(
    columns.map(({ name }) => [name, [...table.getChild(name)!].map((value: unknown) => (value === null ? null : String(value)))]),
  );
  return { columns, numRows: table.numRows, values };
}
