import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Float64Store, Int32Store, Utf8Store } from '../../../../shared/output/parquet/value-stores.js';

/** The strings of a sealed Utf8Store, read back from its PLAIN bytes. */
function readPlain(store: Utf8Store): string[] {
  const values = store.seal(true);
  if (values.kind !== 'bytes') throw new Error('not bytes');
  const view = new DataView(values.data.buffer, values.data.byteOffset, values.data.byteLength);
  const out: string[] = [];
  let at = 0;
  for (const end of values.ends) {
    const length = view.getUint32(at, true);
    expect(at + 4 + length).toBe(end);
    out.push(Buffer.from(values.data.subarray(at + 4, end)).toString('utf8'));
    at = end;
  }
  return out;
}

describe('value stores', () => {
  it('write strings as PLAIN BYTE_ARRAY exactly: ASCII by hand, anything else and long strings by Buffer', () => {
    const store = new Utf8Store();
    const strings = ['', 'EUR', 'Müller & Söhne', '株式会社', 'emoji 🚀', `ascii then é${'x'.repeat(10)}`, 'y'.repeat(65), `${'z'.repeat(70)}ü`];
    for (const value of strings) store.push(value);
    expect(readPlain(store)).toEqual(strings);
  });

  it('round-trip any string through growth, as Buffer.from encodes it (lone surrogates as U+FFFD)', () => {
    fc.assert(fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 200 }), { maxLength: 300 }), (strings) => {
      const store = new Utf8Store();
      for (const value of strings) store.push(value);
      expect(readPlain(store)).toEqual(strings.map((value) => Buffer.from(value, 'utf8').toString('utf8')));
    }), { numRuns: 50 });
  });

  it('give numbers back in order past their first growth, owned or as views, and start over after sealing', () => {
    const ints = new Int32Store();
    const longs = new Float64Store('int64');
    for (let i = 0; i < 5000; i++) {
      ints.push(i - 2500);
      longs.push((i - 2500) * 2 ** 40);
    }
    const sealedInts = ints.seal(false);
    const sealedLongs = longs.seal(true);
    expect(Array.from(sealedInts.kind === 'int32' ? sealedInts.data : [])).toEqual(Array.from({ length: 5000 }, (_, i) => i - 2500));
    expect(sealedLongs.kind === 'int64' && sealedLongs.data[4999]).toBe(2499 * 2 ** 40);
    ints.push(7);
    const again = ints.seal(true);
    expect(again.kind === 'int32' && Array.from(again.data)).toEqual([7]);
  });
});
