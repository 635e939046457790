/**
 * What a row group is between its buffers and its bytes: typed arrays only, so it moves to a
 * worker thread without a copy (README.md, "Data flow").
 */

/** The non-null values of a column chunk in order, as Parquet's PLAIN encoding lays them out or close to it. */
export type PlainValues =
  | { readonly kind: 'int32'; readonly data: Int32Array }
  /** INT64 values as safe integers (every value this service writes fits 2^53). */
  | { readonly kind: 'int64'; readonly data: Float64Array }
  | { readonly kind: 'double'; readonly data: Float64Array }
  /** One byte per value, 0 or 1 (PLAIN packs them to bits when the page is written). */
  | { readonly kind: 'boolean'; readonly data: Uint8Array }
  /** PLAIN BYTE_ARRAY: each value a 4-byte little-endian length, then its UTF-8 bytes; `ends[i]` is where value i ends. */
  | { readonly kind: 'bytes'; readonly data: Uint8Array; readonly ends: Int32Array };

/** One column of one row group, sealed. */
export interface SealedColumn {
  readonly rows: number;
  /** A nullable column's definition levels: 1 where the row holds a value, 0 where null. */
  readonly defined?: Uint8Array;
  /** The values; with `indices`, the dictionary: each distinct value once. */
  readonly values: PlainValues;
  /** Dictionary-encoded: per non-null row, the index of its value in `values`. */
  readonly indices?: Int32Array;
}

/** A row group's columns, sealed. */
export interface SealedRowGroup {
  readonly rows: number;
  readonly columns: readonly SealedColumn[];
}

/** How many values `values` holds. */
export function valueCount(values: PlainValues): number {
  return values.kind === 'bytes' ? values.ends.length : values.data.length;
}
