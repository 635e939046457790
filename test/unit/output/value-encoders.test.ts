import { describe, expect, it } from '@jest/globals';
import { decimalEncoder, epochDay, int32Value, timestampMillis } from '../../../shared/output/value-encoders.js';

describe('value encoders', () => {
  it('turns dates into days since the epoch', () => {
    const day = epochDay;
    expect(day('1970-01-02')).toBe(1);
    expect(day('2025-03-01')).toBe(Date.UTC(2025, 2, 1) / 86_400_000);
    expect(() => day('2025-3-1')).toThrow(TypeError);
    expect(day('2024-02-29')).toBe(Date.UTC(2024, 1, 29) / 86_400_000);
    for (const wrong of ['2025-02-29', '2025-04-31', '2025-13-01', '2025-00-10', '2025-01-00', '2025-01-1x']) expect(() => day(wrong)).toThrow(TypeError);
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
