import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isCalendarDay } from '../../../shared/output/parquet/value-reading.js';
import { calendarMonthOf, formatDay, oneMonthAfter, parseCalendarDate } from '../../../shared/filters/calendar-date.js';
import { checkDateRanges } from '../../../shared/filters/check-date-ranges.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';

describe('calendar dates', () => {
  it('round-trips a date through its day number', () => {
    const day = parseCalendarDate('2025-07-04');
    expect(day).toBeDefined();
    expect(formatDay(day!)).toBe('2025-07-04');
  });

  it.each(['2023-02-29', '2025-04-31', '0000-01-01', '2025-7-4', '2025-07-04 '])('refuses %p', (value) => {
    expect(parseCalendarDate(value)).toBeUndefined();
  });

  it.each([
    ['2025-01-31', '2025-02-28'],
    ['2024-01-31', '2024-02-29'],
    ['2025-01-15', '2025-02-15'],
    ['2025-12-20', '2026-01-20'],
    ['2025-08-31', '2025-09-30'],
  ])('one month after %s is %s', (from, to) => {
    expect(formatDay(oneMonthAfter(parseCalendarDate(from)!))).toBe(to);
  });
});

describe('what a calendar day is', () => {
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  const shapedDay = fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
    .map(([year, month, day]) => `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`);

  it('is one rule: a date the filters refuse is a date the output checks refuse, and the other way', () => {
    fc.assert(fc.property(fc.oneof(shapedDay, fc.constantFrom('0000-01-01', '0001-01-01', '9999-12-31', '0000-02-29'), fc.string({ maxLength: 12 })), (value) => {
      expect([value, parseCalendarDate(value) !== undefined]).toEqual([value, isCalendarDay(value)]);
    }), { numRuns: 5000 });
  });
});

describe('calendar dates before the year 100', () => {
  it('are their own years, not 19xx', () => {
    expect(formatDay(parseCalendarDate('0099-12-31')!)).toBe('0099-12-31');
    expect(formatDay(oneMonthAfter(parseCalendarDate('0025-01-31')!))).toBe('0025-02-28');
    expect(parseCalendarDate('0004-02-29')).toBeDefined();
    expect(parseCalendarDate('0001-02-29')).toBeUndefined();
  });
});

describe('calendar months', () => {
  it.each([
    ['2025-01-15', '2025-01-01', '2025-01-31'],
    ['2024-02-29', '2024-02-01', '2024-02-29'],
    ['2025-02-01', '2025-02-01', '2025-02-28'],
    ['2025-12-31', '2025-12-01', '2025-12-31'],
  ])('%s falls in the calendar month %s–%s', (day, first, last) => {
    const month = calendarMonthOf(parseCalendarDate(day)!);
    expect([formatDay(month.first), formatDay(month.last)]).toEqual([first, last]);
  });

  it('are what a too-long range is told to use instead', () => {
    const { errors } = checkDateRanges(CONTRACTS, { createdFrom: '2025-01-15', createdTo: '2025-03-01' });
    expect(errors.map((error) => error.code)).toEqual(['DATE_RANGE_TOO_LONG']);
    expect(errors[0]!.message).toContain('createdFrom 2025-01-01 with createdTo 2025-01-31');
  });
});
