/**
 * Calendar arithmetic on day numbers (days since 1970-01-01, proleptic Gregorian, UTC), by
 * integer arithmetic rather than Date objects, which take years 0–99 as 1900–1999 and parse
 * text leniently: here every year is itself, and nothing but `YYYY-MM-DD` is a day.
 *
 * What a calendar day is, said once: `YYYY-MM-DD` in ASCII digits, a real day of the years
 * 0001–9999 (year 0000 is ISO 8601's only "by agreement", and no source system writes it). The
 * filters (`parseCalendarDate`) and the output checks (`isCalendarDay`, the timestamps' day) all read
 * it with `civilDayAt` / `isCivilDayAt`, so a day the filters refuse is a day the output cleans.
 */

const DASH = 45;
const DAY_MS = 86_400_000;

/** The first and the last millisecond of the calendar days (0001-01-01T00:00Z, 9999-12-31T23:59:59.999Z): an instant outside them names no calendar day. */
export const CALENDAR_MS = { first: daysFromCivil(1, 1, 1) * DAY_MS, last: (daysFromCivil(9999, 12, 31) + 1) * DAY_MS - 1 } as const;

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil), for every year, 0000 included. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1; // from March 1
  return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
}

/** The date of a day number (H. Hinnant's civil_from_days), the inverse of `daysFromCivil`. */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100)); // from March 1
  const shifted = Math.floor((5 * dayOfYear + 2) / 153);
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day: dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1 };
}

/** Days in a month of a proleptic Gregorian year. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * The `YYYY-MM-DD` at `start` of `text` (ASCII digits, year 0001–9999) as a day number; NaN when
 * it is not a calendar day. What follows it is the caller's to check. The digits are read once,
 * in straight code: every date and timestamp of every answer goes through here (a loop per digit
 * group cost a third more, and packing the date into one number to unpack it again a fifth, measured).
 */
export function civilDayAt(text: string, start: number): number {
  if (text.charCodeAt(start + 4) !== DASH || text.charCodeAt(start + 7) !== DASH) return Number.NaN;
  const year = twoDigitsAt(text, start) * 100 + twoDigitsAt(text, start + 2);
  const month = twoDigitsAt(text, start + 5);
  const day = twoDigitsAt(text, start + 8);
  // NaN fails every comparison: a non-digit makes the whole date NaN.
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) ? daysFromCivil(year, month, day) : Number.NaN;
}

/** Whether the `YYYY-MM-DD` at `start` of `text` is a real calendar day. */
export function isCivilDayAt(text: string, start: number): boolean {
  return !Number.isNaN(civilDayAt(text, start));
}

/** `YYYY-MM-DD` of a day number of the years 0000–9999 (the arithmetic's range; a calendar day is 0001–9999). */
export function formatCivilDay(days: number): string {
  const { year, month, day } = civilFromDays(days);
  return `${String(year).padStart(4, '0')}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
}

/** The number written by the two ASCII digits at `start`, NaN when one is not a digit. */
export function twoDigitsAt(text: string, start: number): number {
  return digitAt(text, start) * 10 + digitAt(text, start + 1);
}

function digitAt(text: string, at: number): number {
  const d = text.charCodeAt(at) - 48;
  return d >= 0 && d <= 9 ? d : Number.NaN;
}

/** The number written by `count` ASCII digits at `start`, NaN when one is not a digit. */
export function digitsAt(text: string, start: number, count: number): number {
  let n = 0;
  for (let i = start; i < start + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    n = n * 10 + d;
  }
  return n;
}
