import { civilDayAt, civilFromDays, daysFromCivil, daysInMonth, formatCivilDay } from '../util/civil-days.js';

/**
 * A calendar date `YYYY-MM-DD` (what a calendar day is: util/civil-days.ts), as days since the epoch.
 *
 * @example
 * parseCalendarDate('1970-01-02'); // 1
 * parseCalendarDate('2025-02-29'); // undefined: not a real day
 */
export function parseCalendarDate(value: string): number | undefined {
  if (value.length !== 10) return undefined;
  const day = civilDayAt(value, 0);
  return Number.isNaN(day) ? undefined : day;
}

/**
 * The latest `To` allowed for a `From`: the same day next month, clamped to that month's end
 * (2025-01-31 → 2025-02-28; 2025-01-15 → 2025-02-15).
 */
export function oneMonthAfter(fromDay: number): number {
  const from = civilFromDays(fromDay);
  const year = from.year + (from.month === 12 ? 1 : 0);
  const month = (from.month % 12) + 1;
  return daysFromCivil(year, month, Math.min(from.day, daysInMonth(year, month)));
}

/** The first and the last day of the calendar month a day falls in. */
export function calendarMonthOf(day: number): { first: number; last: number } {
  const { year, month } = civilFromDays(day);
  return { first: daysFromCivil(year, month, 1), last: daysFromCivil(year, month, daysInMonth(year, month)) };
}

/** `YYYY-MM-DD` of a day number. */
export function formatDay(day: number): string {
  return formatCivilDay(day);
}
