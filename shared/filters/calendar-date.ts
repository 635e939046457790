const DAY_MS = 86_400_000;

/** A real calendar date `YYYY-MM-DD` (ASCII digits, no time part), as days since the epoch. */
export function parseCalendarDate(value: string): number | undefined {
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(value);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return utcDay(year, month, day);
}

/**
 * The latest `To` allowed for a `From`: the same day next month, clamped to that month's end
 * (2025-01-31 → 2025-02-28; 2025-01-15 → 2025-02-15).
 */
export function oneMonthAfter(fromDay: number): number {
  const from = new Date(fromDay * DAY_MS);
  const year = from.getUTCFullYear() + (from.getUTCMonth() === 11 ? 1 : 0);
  const month = ((from.getUTCMonth() + 1) % 12) + 1;
  const day = Math.min(from.getUTCDate(), daysInMonth(year, month));
  return utcDay(year, month, day);
}

/** The first and the last day of the calendar month a day falls in. */
export function calendarMonthOf(day: number): { first: number; last: number } {
  const date = new Date(day * DAY_MS);
  const [year, month] = [date.getUTCFullYear(), date.getUTCMonth() + 1];
  return { first: utcDay(year, month, 1), last: utcDay(year, month, daysInMonth(year, month)) };
}

/** `YYYY-MM-DD` of a day number. */
export function formatDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/**
 * Days since the epoch of a date. Not `Date.UTC(year, …)`: it reads years 0–99 as 1900–1999,
 * which let `0099-12-31 → 2000-01-15` pass as a one-month range.
 */
function utcDay(year: number, month: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return Math.round(date.getTime() / DAY_MS);
}

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}
