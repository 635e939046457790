import { describe, expect, it } from '@jest/globals';
import { sameColumns, textOf, type RawValue } from '../../../client/src/parquet-table.js';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describe('a merge\'s raw values', () => {
  it('read a text as the service wrote it, a leading U+FEFF included', () => {
    expect(textOf(bytes('\uFEFFCT-1'))).toBe('\uFEFFCT-1');
    expect(textOf(bytes('CT-ü-😀'))).toBe('CT-ü-😀');
    expect(textOf(7)).toBeUndefined();
    expect(textOf(null)).toBeUndefined();
  });

  it('say a column is the same only where every value is, bytes by their contents', () => {
    const held: RawValue[][] = [[bytes('a'), 1, null, 5n], [bytes('b'), -0, true, 6n]];
    const kept = held[0]!;
    expect(sameColumns(held, [kept, [bytes('b'), -0, true, 6n]], 4)).toEqual([true, true, true, true]);
    expect(sameColumns(held, [kept, [bytes('c'), 0, null, 6]], 4)).toEqual([false, false, false, false]);
    expect(sameColumns(held, [kept, [bytes('bb'), -0, false, 6n]], 4)).toEqual([false, true, false, true]);
    expect(sameColumns(held, [kept], 4)).toBeUndefined();
  });
});
