import { describe, expect, it } from '@jest/globals';
import { oneOf, text, timestamp } from '../../../../shared/model/fields.js';
import { ColumnBuffer } from '../../../../shared/output/parquet/column-buffer.js';
import { parquetColumn } from '../../../../shared/output/parquet/parquet-column.js';
import type { PlainValues } from '../../../../shared/output/parquet/sealed.js';

/** The strings of PLAIN BYTE_ARRAY values. */
function strings(values: PlainValues): string[] {
  if (values.kind !== 'bytes') throw new Error(`not bytes: ${values.kind}`);
  return Array.from(values.ends, (end, i) => Buffer.from(values.data.subarray((i === 0 ? 0 : values.ends[i - 1]!) + 4, end)).toString('utf8'));
}

describe('ColumnBuffer', () => {
  it('keeps a fixed set of values as a dictionary: each distinct value once, an index per non-null row', () => {
    const buffer = new ColumnBuffer(parquetColumn(oneOf('status', ['Open', 'Closed'])), 10);
    for (const value of ['Open', 'Closed', 'Open', 'Open']) buffer.add(value);
    const sealed = buffer.seal(true);
    expect(strings(sealed.values)).toEqual(['Open', 'Closed']);
    expect(Array.from(sealed.indices!)).toEqual([0, 1, 0, 0]);
    expect(sealed.rows).toBe(4);
    expect(sealed.defined).toBeUndefined();
  });

  it('turns plain, for the row groups after too, once more than half the values of a row group are distinct', () => {
    const buffer = new ColumnBuffer(parquetColumn(text('name')), 8);
    for (const value of ['a', 'b', 'c', 'd', 'e']) buffer.add(value);
    const first = buffer.seal(true);
    expect(first.indices).toBeUndefined();
    expect(strings(first.values)).toEqual(['a', 'b', 'c', 'd', 'e']);
    for (const value of ['x', 'x', 'x', 'x']) buffer.add(value);
    expect(buffer.seal(true).indices).toBeUndefined();
  });

  it('keeps a dictionary of repeating values while it at least halves the plain bytes, and drops it where it does not', () => {
    const repeating = new ColumnBuffer(parquetColumn(text('supplier')), 100);
    for (let i = 0; i < 100; i++) repeating.add(`Supplier number ${i % 3}`);
    expect(repeating.seal(true).indices?.length).toBe(100);
    const short = new ColumnBuffer(parquetColumn(text('code')), 100);
    // Two-letter values, 40 distinct of 100: a dictionary would not halve the bytes.
    for (let i = 0; i < 100; i++) short.add(`c${i % 40}`);
    const sealed = short.seal(true);
    expect(sealed.indices).toBeUndefined();
    expect(strings(sealed.values)).toHaveLength(100);
  });

  it('records nulls as definition levels, and refuses a null in a required column', () => {
    const buffer = new ColumnBuffer(parquetColumn(text('note', true)), 5);
    for (const value of ['a', null, undefined, 'b']) buffer.add(value);
    const sealed = buffer.seal(true);
    expect(Array.from(sealed.defined!)).toEqual([1, 0, 0, 1]);
    expect(sealed.rows).toBe(4);
    expect(() => new ColumnBuffer(parquetColumn(text('id')), 5).add(null)).toThrow(/column id: a required value is missing/);
  });

  it('refuses a row past the row group', () => {
    const buffer = new ColumnBuffer(parquetColumn(timestamp('at')), 1);
    buffer.add(Date.UTC(2025, 0, 1));
    expect(() => buffer.add(Date.UTC(2025, 0, 2))).toThrow(/row group is full/);
  });

  it('seals owned arrays apart from its memory, and views of it that the next row group overwrites (README: views)', () => {
    const buffer = new ColumnBuffer(parquetColumn(timestamp('at')), 4);
    // Physical values: milliseconds (value-reading.ts reads them from the stored text).
    buffer.add(Date.UTC(2025, 0, 1));
    const owned = buffer.seal(true);
    buffer.add(Date.UTC(2025, 0, 1, 0, 0, 1));
    const view = buffer.seal(false);
    buffer.add(Date.UTC(2025, 0, 1, 0, 0, 2));
    buffer.seal(false);
    expect(owned.values.data[0]).toBe(Date.UTC(2025, 0, 1));
    // The view was of the buffer's memory: the third value now stands where the second did.
    expect(view.values.data[0]).toBe(Date.UTC(2025, 0, 1, 0, 0, 2));
  });
});
