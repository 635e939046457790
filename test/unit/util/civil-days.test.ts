import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { civilDayAt, civilFromDays, daysFromCivil, daysInMonth, formatCivilDay, isCivilDayAt } from '../../../shared/util/civil-days.js';

const DAY_MS = 86_400_000;

/** What a Date says of a day number: the reference the arithmetic must agree with. */
function byDate(days: number): { year: number; month: number; day: number } {
  const date = new Date(days * DAY_MS);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

const FIRST = daysFromCivil(0, 1, 1);
const LAST = daysFromCivil(9999, 12, 31);

describe('civil days', () => {
  // The calendar repeats every 400 years (146,097 days), and the arithmetic works by those eras:
  // a whole era at each end of the range and the centuries around today take every case (every
  // month length, every leap rule, both era edges) at a tenth of the 3.65 million days.
  it.each([[0, 399], [1900, 2100], [9600, 9999]])('agree with Date on every day of the years %i–%i, both ways', (from, to) => {
    for (let days = daysFromCivil(from, 1, 1); days <= daysFromCivil(to, 12, 31); days++) {
      const date = byDate(days);
      const civil = civilFromDays(days);
      if (civil.year !== date.year || civil.month !== date.month || civil.day !== date.day) throw new Error(`day ${days}: ${JSON.stringify(civil)} vs ${JSON.stringify(date)}`);
      if (daysFromCivil(date.year, date.month, date.day) !== days) throw new Error(`day ${days} does not come back`);
    }
    expect(civilFromDays(0)).toEqual({ year: 1970, month: 1, day: 1 });
    expect(LAST - FIRST + 1).toBe(3_652_425);
  });

  it('format as Date does, and read back what they format', () => {
    fc.assert(fc.property(fc.integer({ min: daysFromCivil(1, 1, 1), max: LAST }), (days) => {
      const text = formatCivilDay(days);
      expect(text).toBe(new Date(days * DAY_MS).toISOString().slice(0, 10));
      expect(civilDayAt(text, 0)).toBe(days);
      expect(isCivilDayAt(`T${text}`, 1)).toBe(true);
    }), { numRuns: 5000 });
  });

  it('know the length of every month, leap years by the Gregorian rule', () => {
    for (const year of [1900, 2000, 2023, 2024, 2100, 2400, 4, 0]) {
      for (let month = 1; month <= 12; month++) {
        expect(daysInMonth(year, month)).toBe(byDate(daysFromCivil(year, month + 1, 1) - 1).day);
      }
    }
    expect([daysInMonth(1900, 2), daysInMonth(2000, 2), daysInMonth(2023, 2), daysInMonth(2024, 2)]).toEqual([28, 29, 28, 29]);
  });

  it.each(['2023-02-29', '2025-04-31', '2025-13-01', '2025-00-10', '2025-01-00', '2025-1-011', '2025/01/01', '+025-01-01', '2025-01-1', '202５-01-01', '0000-01-01', '0000-02-29'])(
    'refuse %p, which is not a real calendar day', (text) => {
      expect(civilDayAt(text, 0)).toBeNaN();
      expect(isCivilDayAt(text, 0)).toBe(false);
    });
});
