/**
 * Where an export's values land: per column, one row group at a time. A physical value (read
 * from the stored one as it was checked: value-reading.ts) is stored once — UTF-8 bytes already in
 * Parquet's PLAIN layout, days in an Int32Array, milliseconds, unscaled decimals and doubles in a
 * Float64Array (safe integers, no BigInt per value), flags a byte each — or becomes a dictionary
 * index when its column repeats. `seal` hands the row group's column over as typed arrays
 * (sealed.ts).
 */
import type { Physical } from './value-reading.js';
import type { ParquetColumn } from './parquet-column.js';
import type { PlainValues, SealedColumn } from './sealed.js';
import type { ValueStore } from './value-stores.js';

/**
 * The values of one column of the row group being filled. A column that may repeat starts each
 * row group as a dictionary: each distinct value stored once, each row its index (a repeat costs
 * one lookup). It turns plain, for the rest of the export, where a dictionary loses by the rule
 * hyparquet-writer keeps one by (it must at least halve the plain bytes): at once past `rows / 2`
 * distinct values, where it cannot win, else when the row group is sealed.
 */
export class ColumnBuffer {
  private rows = 0;
  private readonly defined: Uint8Array;
  private readonly plain: ValueStore<Physical>;
  private dictionary: Dictionary | undefined;
  // The column's hot member, read once per value: kept here, one load away.
  private readonly nullable: boolean;

  constructor(private readonly column: ParquetColumn, private readonly rowGroupRows: number) {
    this.nullable = column.nullable;
    this.defined = new Uint8Array(column.nullable ? rowGroupRows : 0);
    this.plain = column.store();
    this.dictionary = column.dictionary === 'never' ? undefined : new Dictionary(column.dictionary === 'always' ? Number.POSITIVE_INFINITY : Math.max(rowGroupRows >> 1, 1), rowGroupRows);
  }

  /** Adds the next row's physical value (null or undefined: a null). */
  add(value: Physical | null | undefined): void {
    if (this.rows === this.rowGroupRows) throw new RangeError(`column ${this.column.chunk.name}: the row group is full (${this.rowGroupRows} rows)`);
    if (value === null || value === undefined) {
      if (!this.nullable) throw new TypeError(`column ${this.column.chunk.name}: a required value is missing`);
      this.defined[this.rows++] = 0;
      return;
    }
    if (this.dictionary === undefined) this.plain.push(value);
    else if (!this.dictionary.add(value)) this.turnPlain().push(value);
    if (this.nullable) this.defined[this.rows] = 1;
    this.rows++;
  }

  /**
   * The row group's column, and a fresh start for the next row group. `owned`: in arrays of its
   * own (to transfer to a worker); else partly views of the buffer's memory (README.md, "Views").
   */
  seal(owned: boolean): SealedColumn {
    const rows = this.rows;
    const defined = !this.nullable ? undefined : owned ? this.defined.slice(0, rows) : this.defined.subarray(0, rows);
    let sealed: Pick<SealedColumn, 'values' | 'indices'> | undefined;
    if (this.dictionary !== undefined) {
      const dictionary = this.dictionary.seal(this.column.store(), owned);
      // A chunk without values is written plain, and decides nothing for the row groups after it.
      if (dictionary.indices.length > 0) {
        if (this.column.dictionary === 'always' || pays(dictionary)) sealed = dictionary;
        else this.turnPlain();
      }
      this.dictionary?.clear();
    }
    sealed ??= { values: this.plain.seal(owned) };
    this.rows = 0;
    return { rows, ...(defined ? { defined } : {}), ...sealed };
  }

  /** Moves the indexed values into the plain store and stops indexing. */
  private turnPlain(): ValueStore<Physical> {
    this.dictionary?.replay((value) => this.plain.push(value));
    this.dictionary = undefined;
    return this.plain;
  }
}

/** The distinct values of one row group and each one's index. */
class Dictionary {
  private readonly index = new Map<Physical, number>();
  private distinct: Physical[] = [];
  private readonly indices: Int32Array;
  private count = 0;

  constructor(private readonly limit: number, rowGroupRows: number) {
    this.indices = new Int32Array(rowGroupRows);
  }

  /** Indexes a value; false (and nothing indexed) when it would pass the limit of distinct values. */
  add(value: Physical): boolean {
    let index = this.index.get(value);
    if (index === undefined) {
      index = this.distinct.length;
      if (index >= this.limit) return false;
      this.distinct.push(value);
      this.index.set(value, index);
    }
    this.indices[this.count++] = index;
    return true;
  }

  /** Calls `push` with every indexed value in order. */
  replay(push: (value: Physical) => void): void {
    for (let i = 0; i < this.count; i++) push(this.distinct[this.indices[i]!]!);
  }

  /** The indices and the distinct values (pushed into `store`, a fresh one: the dictionary's values are always its own). */
  seal(store: ValueStore<Physical>, owned: boolean): { values: PlainValues; indices: Int32Array } {
    for (const value of this.distinct) store.push(value);
    return { values: store.seal(true), indices: owned ? this.indices.slice(0, this.count) : this.indices.subarray(0, this.count) };
  }

  clear(): void {
    this.index.clear();
    this.distinct = [];
    this.count = 0;
  }
}

/** hyparquet-writer's rule: a dictionary plus its bit-packed indices must at least halve the plain bytes. */
function pays({ values, indices }: { values: PlainValues; indices: Int32Array }): boolean {
  const sizes = plainSizes(values);
  let plainBytes = 0;
  for (let i = 0; i < indices.length; i++) plainBytes += sizes[indices[i]!]!;
  let dictionaryBytes = 0;
  for (let i = 0; i < sizes.length; i++) dictionaryBytes += sizes[i]!;
  const indexBytes = Math.ceil((indices.length * Math.ceil(Math.log2(sizes.length))) / 8);
  return 2 * (dictionaryBytes + indexBytes) <= plainBytes;
}

/** The PLAIN size in bytes of each value (a boolean's eighth of a byte counted as a byte: they are never a dictionary). */
function plainSizes(values: PlainValues): Int32Array {
  switch (values.kind) {
    case 'int32':
      return new Int32Array(values.data.length).fill(4);
    case 'int64':
    case 'double':
      return new Int32Array(values.data.length).fill(8);
    case 'boolean':
      return new Int32Array(values.data.length).fill(1);
    case 'bytes':
      return values.ends.map((end, i) => end - (i === 0 ? 0 : values.ends[i - 1]!));
  }
}
