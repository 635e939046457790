/**
 * Where an export's values land: per-column typed buffers, one row group at a time. A stored value
 * is encoded once into its column's physical form — UTF-8 bytes already in Parquet's PLAIN layout,
 * days in an Int32Array, milliseconds and unscaled decimals in a Float64Array (safe integers, no
 * BigInt per value) — or into a dictionary index when its column repeats. `seal` hands the row
 * group over as typed arrays only, which a worker thread takes without copying object by object.
 */
import type { ValueStore } from './value-stores.js';

/** Plain values of a column chunk: the non-null values in order, as Parquet's PLAIN encoding lays them out. */
export type PlainValues =
  | { readonly kind: 'int32'; readonly data: Int32Array }
  /** INT64 values as safe integers (every value this service writes fits 2^53). */
  | { readonly kind: 'int64'; readonly data: Float64Array }
  /** `data` is PLAIN BYTE_ARRAY: each value a 4-byte little-endian length, then its UTF-8 bytes; `ends[i]` is where value i ends. */
  | { readonly kind: 'bytes'; readonly data: Uint8Array; readonly ends: Int32Array };

/** A column chunk's values: plain, or dictionary indices into its distinct values (themselves plain). */
export type ChunkValues = PlainValues | { readonly kind: 'dictionary'; readonly indices: Int32Array; readonly dictionary: PlainValues };

/** One column of one row group, sealed: typed arrays only. */
export interface SealedColumn {
  readonly rows: number;
  /** A nullable column's definition levels: 1 where the row holds a value, 0 where null. */
  readonly defined?: Uint8Array;
  readonly values: ChunkValues;
}

/** How a column chooses its encoding. */
export type DictionaryPolicy =
  /** Always a dictionary: a fixed set of values (a status). */
  | 'always'
  /** Never: values are unique per record (a timestamp). */
  | 'never'
  /** A dictionary while it pays (see TypedColumnBuffer). */
  | 'while-it-pays';

/** The values of one column of the row group being filled. */
export interface ColumnBuffer {
  /** Adds the next row's stored value (null or undefined: a null). */
  add(value: unknown): void;
  /**
   * The row group's column, and a fresh start for the next row group. `owned`: in arrays of its
   * own (to transfer to a worker); else partly views of the buffer's memory, valid until the next add.
   */
  seal(owned: boolean): SealedColumn;
}

/** What a column is made of: how a stored value becomes its physical value, and where that is kept. */
export interface ColumnShape<V extends string | number> {
  readonly name: string;
  readonly nullable: boolean;
  readonly dictionary: DictionaryPolicy;
  /** The stored value (never null here) as its physical value; throws on a value the column cannot hold. */
  readonly toPhysical: (value: unknown) => V;
  readonly store: () => ValueStore<V>;
}

/**
 * A column buffer over a value store. A column that may repeat starts each row group as a
 * dictionary: each distinct value stored once, each row its index; a value is converted to its
 * physical form the first time it is seen (a repeat costs one lookup). It turns plain, for the rest of
 * the export, where a dictionary loses by the rule hyparquet-writer keeps one by (it must at least
 * halve the plain bytes): at once past `rows / 2` distinct values, where it cannot win, else when
 * the row group is sealed.
 */
export class TypedColumnBuffer<V extends string | number> implements ColumnBuffer {
  private rows = 0;
  private readonly defined: Uint8Array;
  private readonly plain: ValueStore<V>;
  private dictionary: Dictionary<V> | undefined;
  // The shape's hot members, read once per value: kept here, one load away.
  private readonly nullable: boolean;
  private readonly toPhysical: (value: unknown) => V;

  constructor(private readonly shape: ColumnShape<V>, private readonly rowGroupRows: number) {
    this.nullable = shape.nullable;
    this.toPhysical = shape.toPhysical;
    this.defined = new Uint8Array(shape.nullable ? rowGroupRows : 0);
    this.plain = shape.store();
    this.dictionary = shape.dictionary === 'never' ? undefined : new Dictionary(shape.dictionary === 'always' ? Number.POSITIVE_INFINITY : Math.max(rowGroupRows >> 1, 1), rowGroupRows);
  }

  add(value: unknown): void {
    if (this.rows === this.rowGroupRows) throw new RangeError(`column ${this.shape.name}: the row group is full (${this.rowGroupRows} rows)`);
    if (value === null || value === undefined) {
      if (!this.nullable) throw new TypeError(`column ${this.shape.name}: a required value is missing`);
      this.defined[this.rows++] = 0;
      return;
    }
    const { toPhysical } = this;
    if (this.dictionary === undefined) this.plain.push(toPhysical(value));
    else if (!this.dictionary.add(value, toPhysical)) this.turnPlain().push(toPhysical(value));
    if (this.nullable) this.defined[this.rows] = 1;
    this.rows++;
  }

  seal(owned: boolean): SealedColumn {
    const rows = this.rows;
    const defined = !this.shape.nullable ? undefined : owned ? this.defined.slice(0, rows) : this.defined.subarray(0, rows);
    let values: ChunkValues | undefined;
    if (this.dictionary !== undefined) {
      const dictionary = this.dictionary.seal(this.shape.store(), owned);
      // A chunk without values is written plain, and decides nothing for the row groups after it.
      if (dictionary.indices.length > 0) {
        if (this.shape.dictionary === 'always' || pays(dictionary)) values = dictionary;
        else this.turnPlain();
      }
      this.dictionary?.clear();
    }
    values ??= this.plain.seal(owned);
    this.rows = 0;
    return defined ? { rows, defined, values } : { rows, values };
  }

  /** Moves the indexed values into the plain store and stops indexing. */
  private turnPlain(): ValueStore<V> {
    this.dictionary?.replay((value) => this.plain.push(value));
    this.dictionary = undefined;
    return this.plain;
  }
}

/** The distinct values of one row group (physical) and each one's index (by the stored value). */
class Dictionary<V extends string | number> {
  private readonly index = new Map<unknown, number>();
  private distinct: V[] = [];
  private readonly indices: Int32Array;
  private count = 0;

  constructor(private readonly limit: number, rowGroupRows: number) {
    this.indices = new Int32Array(rowGroupRows);
  }

  /** Indexes a stored value; false (and nothing indexed) when it would pass the limit of distinct values. */
  add(stored: unknown, toPhysical: (value: unknown) => V): boolean {
    let index = this.index.get(stored);
    if (index === undefined) {
      index = this.distinct.length;
      if (index >= this.limit) return false;
      this.distinct.push(toPhysical(stored));
      this.index.set(stored, index);
    }
    this.indices[this.count++] = index;
    return true;
  }

  /** Calls `push` with every indexed value in order. */
  replay(push: (value: V) => void): void {
    for (let i = 0; i < this.count; i++) push(this.distinct[this.indices[i]!]!);
  }

  /** The indices and the distinct values (pushed into `store`, a fresh one: the dictionary's arrays are always its own). */
  seal(store: ValueStore<V>, owned: boolean): Extract<ChunkValues, { kind: 'dictionary' }> {
    for (const value of this.distinct) store.push(value);
    return { kind: 'dictionary', indices: owned ? this.indices.slice(0, this.count) : this.indices.subarray(0, this.count), dictionary: store.seal(true) };
  }

  clear(): void {
    this.index.clear();
    this.distinct = [];
    this.count = 0;
  }
}

/** hyparquet-writer's rule: a dictionary plus its bit-packed indices must at least halve the plain bytes. */
function pays({ indices, dictionary }: Extract<ChunkValues, { kind: 'dictionary' }>): boolean {
  const sizes = plainSizes(dictionary);
  let plainBytes = 0;
  for (let i = 0; i < indices.length; i++) plainBytes += sizes[indices[i]!]!;
  let dictionaryBytes = 0;
  for (let i = 0; i < sizes.length; i++) dictionaryBytes += sizes[i]!;
  const indexBytes = Math.ceil((indices.length * Math.ceil(Math.log2(sizes.length))) / 8);
  return 2 * (dictionaryBytes + indexBytes) <= plainBytes;
}

/** The PLAIN size in bytes of each value. */
function plainSizes(values: PlainValues): Int32Array {
  switch (values.kind) {
    case 'int32':
      return new Int32Array(values.data.length).fill(4);
    case 'int64':
      return new Int32Array(values.data.length).fill(8);
    case 'bytes':
      return values.ends.map((end, i) => end - (i === 0 ? 0 : values.ends[i - 1]!));
  }
}
