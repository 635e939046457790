import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { decimalEncoder, epochDay, int32Value, timestampMillis } from '../../../../shared/output/parquet/value-encoders.js';

describe('value encoders', () => {
  it('turns dates into days since the epoch', () => {
    const day = epochDay;
    expect(day('1970-01-02')).toBe(1);
    expect(day('2025-03-01')).toBe(Date.UTC(2025, 2, 1) / 86_400_000);
    expect(() => day('2025-3-1')).toThrow(TypeError);
    expect(day('2024-02-29')).toBe(Date.UTC(2024, 1, 29) / 86_400_000);
    for (const wrong of ['2025-02-29', '2025-04-31', '2025-13-01', '2025-00-10', '2025-01-00', '2025-01-1x']) expect(() => day(wrong)).toThrow(TypeError);
  });

  it('counts days right in every year, leap centuries and years before 100 included, and checks the separators', () => {
    const utc = (year: number, month: number, day: number) => {
      const date = new Date(0);
      date.setUTCFullYear(year, month - 1, day);
      return Math.round(date.getTime() / 86_400_000);
    };
    expect(epochDay('0050-01-01')).toBe(utc(50, 1, 1));
    expect(epochDay('0000-03-01')).toBe(utc(0, 3, 1));
    expect(epochDay('9999-12-31')).toBe(utc(9999, 12, 31));
    expect(epochDay('2000-02-29')).toBe(utc(2000, 2, 29));
    for (const wrong of ['1900-02-29', '2100-02-29', '2025x01-01', '2025-01x01', '2025-06-31']) expect(() => epochDay(wrong)).toThrow(TypeError);
    fc.assert(fc.property(fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (date) => {
      expect(epochDay(date.toISOString().slice(0, 10))).toBe(Math.floor(date.getTime() / 86_400_000));
    }));
  });

  it('reads stored timestamps by their digits exactly as Date.parse does, and refuses impossible times', () => {
    fc.assert(fc.property(fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (date) => {
      expect(timestampMillis(date.toISOString())).toBe(date.getTime());
    }));
    // Date.parse would roll the first and the last over to the next day; the stored form is read strictly.
    for (const wrong of ['2025-03-01T24:00:00.000Z', '2025-03-01T12:60:00.000Z', '2025-03-01T12:00:60.000Z', '2025-02-29T12:00:00.000Z']) expect(() => timestampMillis(wrong)).toThrow(TypeError);
  });

  it('turns ISO timestamps into exact milliseconds, fast path and general path alike', () => {
    expect(timestampMillis('2025-03-01T12:34:56.789Z')).toBe(Date.UTC(2025, 2, 1, 12, 34, 56, 789));
    expect(timestampMillis('2025-03-01T12:34:56Z')).toBe(Date.UTC(2025, 2, 1, 12, 34, 56));
    expect(timestampMillis('2025-03-01T12:34:56.789+01:00')).toBe(Date.UTC(2025, 2, 1, 11, 34, 56, 789));
    expect(() => timestampMillis('yesterday')).toThrow(TypeError);
  });

  it('turns decimals into unscaled integers without float drift', () => {
    expect(decimalEncoder(2)(629692.4)).toBe(62969240);
    expect(decimalEncoder(2)(0.29)).toBe(29);
    expect(decimalEncoder(4)(93.41)).toBe(934100);
    expect(decimalEncoder(2)(-1.005)).toBe(-100);
  });

  it('takes 32-bit integers as they are and refuses anything else', () => {
    expect(int32Value(7)).toBe(7);
    expect(int32Value(-2_147_483_648)).toBe(-2_147_483_648);
    for (const wrong of [2_147_483_648, 1.5, Number.NaN]) expect(() => int32Value(wrong)).toThrow(RangeError);
  });

  it('refuses an amount with no exact unscaled integer (past 2^53) rather than write it wrong', () => {
    expect(decimalEncoder(2)(90_000_000_000_000)).toBe(9_000_000_000_000_000);
    expect(() => decimalEncoder(2)(100_000_000_000_000)).toThrow(RangeError);
    expect(() => decimalEncoder(2)(-100_000_000_000_000)).toThrow(RangeError);
  });
});
