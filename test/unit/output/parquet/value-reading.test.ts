import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { calendarDayNumber, instantMillis, isCalendarDay, isTimestamp } from '../../../../shared/output/parquet/value-reading.js';
import { MALFORMED, readingOf, readValue } from '../../../../shared/output/parquet/value-reading.js';
import type { FieldSpec } from '../../../../shared/model/fields.js';

/** What each encoder refuses a value with. */
const epochDay = (value: string) => notNaN(calendarDayNumber(value), value);
const timestampMillis = (value: string) => notNaN(instantMillis(value), value);
function notNaN(number: number, value: string): number {
  if (Number.isNaN(number)) throw new TypeError(`not taken: ${value}`);
  return number;
}
const reader = (field: FieldSpec) => (value: unknown) => readValue(readingOf(field), value);
const decimal = (scale: number) => reader({ name: 'amount', kind: 'decimal', nullable: false, precision: 18, scale } as FieldSpec);
const int32 = reader({ name: 'lineNumber', kind: 'int32', nullable: false } as FieldSpec);

describe('value reading', () => {
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
    expect(epochDay('0001-01-01')).toBe(utc(1, 1, 1));
    expect(() => epochDay('0000-03-01')).toThrow(TypeError);
    // An offset may not carry an instant out of the calendar days (the rule of util/civil-days.ts).
    expect([isTimestamp('0001-01-01T00:30:00+01:00'), isTimestamp('9999-12-31T23:00:00-05:00'), isTimestamp('0000-12-31T23:30:00.000Z')]).toEqual([false, false, false]);
    expect([isTimestamp('0001-01-01T00:30:00-01:00'), isTimestamp('9999-12-31T23:00:00+05:00')]).toEqual([true, true]);
    expect(() => timestampMillis('0001-01-01T00:30:00+01:00')).toThrow(TypeError);
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

  it('reads decimals as unscaled integers without float drift, and refuses more digits than the scale', () => {
    expect(decimal(2)(629692.4)).toBe(62969240);
    expect(decimal(2)(0.29)).toBe(29);
    expect(decimal(4)(93.41)).toBe(934100);
    expect(decimal(2)(-1.25)).toBe(-125);
    for (const wrong of [-1.005, 123.456, '12.5', Number.NaN]) expect([wrong, decimal(2)(wrong)]).toEqual([wrong, MALFORMED]);
  });

  it('takes 32-bit integers as they are and refuses anything else', () => {
    expect(int32(7)).toBe(7);
    expect(int32(-2_147_483_648)).toBe(-2_147_483_648);
    for (const wrong of [2_147_483_648, 1.5, Number.NaN, '7']) expect([wrong, int32(wrong)]).toEqual([wrong, MALFORMED]);
  });

  it('refuses an amount past its precision (DECIMAL(18, 2): 16 digits before the point) rather than write it wrong', () => {
    expect(decimal(2)(9_000_000_000_000)).toBe(900_000_000_000_000);
    expect(decimal(2)(10_000_000_000_000_000)).toBe(MALFORMED);
    expect(decimal(2)(-10_000_000_000_000_000)).toBe(MALFORMED);
  });
});

describe('the value reading of dates and instants', () => {
  const takes = (encode: (value: string) => number, value: string) => {
    try {
      encode(value);
      return true;
    } catch {
      return false;
    }
  };
  const field = (kind: 'date' | 'timestamp') => ({ name: kind, kind, nullable: false }) as FieldSpec;
  // Text near the stored forms: digits, separators and a few letters at every position.
  const nearForm = (form: string) => fc.tuple(...[...form].map((char) => fc.oneof(fc.constant(char), fc.constantFrom('0', '1', '2', '3', '4', '5', '9', '-', ':', '.', 'T', 'Z', 'x', ' ')))).map((chars) => chars.join(''));

  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  // Well-shaped text whose numbers run past their ranges: 13th months, 30 February, 24:00, 60 seconds.
  const shapedDay = fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
    .map(([year, month, day]) => `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`);
  const shapedInstant = fc.tuple(shapedDay, fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 999 }))
    .map(([day, hours, minutes, seconds, millis]) => `${day}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(millis, 3)}Z`);

  it('take exactly what Date.parse reads as that instant, and the readers answer those numbers', () => {
    // The oracle: a stored-form instant is taken when Date.parse reads it back to the same text
    // (no rolling over), an offset form when its day, hours and minutes are in range.
    fc.assert(fc.property(fc.oneof(shapedInstant, nearForm('2024-02-29T23:59:59.999Z'), fc.string({ maxLength: 30 })), (value) => {
      const parsed = Date.parse(value);
      const storedForm = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value) && !value.startsWith('0000');
      if (storedForm) expect([value, isTimestamp(value)]).toEqual([value, !Number.isNaN(parsed) && new Date(parsed).toISOString() === value]);
      expect([value, reader(field('timestamp'))(value)]).toEqual([value, takes(timestampMillis, value) ? parsed : MALFORMED]);
    }), { numRuns: 5000 });
    fc.assert(fc.property(fc.oneof(shapedDay, nearForm('2024-02-29'), fc.string({ maxLength: 12 })), (value) => {
      const parsed = Date.parse(`${value}T00:00:00.000Z`);
      if (/^\d{4}-\d{2}-\d{2}$/.test(value) && !value.startsWith('0000') && Number(value.slice(0, 4)) >= 100) {
        expect([value, isCalendarDay(value)]).toEqual([value, !Number.isNaN(parsed) && new Date(parsed).toISOString().slice(0, 10) === value]);
      }
      expect([value, reader(field('date'))(value)]).toEqual([value, isCalendarDay(value) ? parsed / 86_400_000 : MALFORMED]);
    }), { numRuns: 5000 });
  });
});
