/**
 * Fast encoders from stored JSON values to Parquet's physical numbers. Exports push millions of
 * values through these, so they avoid the slow general paths (Date.parse of ISO timestamps
 * dominated the timestamp columns). Strings need none: they are written as UTF-8 straight into
 * their column's buffer (value-stores.ts).
 */

const DAY_MS = 86_400_000;
const DASH = 45;
const COLON = 58;

/** Whether `value` is a `YYYY-MM-DD` real calendar day (what epochDay takes). */
export function isCalendarDay(value: string): boolean {
  return value.length === 10 && !Number.isNaN(civilDay(value, 0));
}

/** Whether `value` is an instant timestampMillis takes. */
export function isTimestamp(value: string): boolean {
  try {
    timestampMillis(value);
    return true;
  } catch {
    return false;
  }
}

/** A `YYYY-MM-DD` date as days since the epoch, checked to be a real calendar day. */
export function epochDay(value: string): number {
  const day = value.length === 10 ? civilDay(value, 0) : Number.NaN;
  if (Number.isNaN(day)) throw new TypeError(`not a YYYY-MM-DD date: ${value}`);
  return day;
}

/**
 * An ISO 8601 UTC timestamp's milliseconds since the epoch, as a number: INT64 columns hold safe
 * integers, so no BigInt per value. The form the store keeps (`YYYY-MM-DDTHH:MM:SS.sssZ`) is read
 * by arithmetic on its digits and must be a real instant; any other ISO form goes through
 * Date.parse (slower, still exact).
 */
export function timestampMillis(value: string): number {
  if (value.length === 24 && value.charCodeAt(10) === 84 /* T */ && value.charCodeAt(13) === COLON && value.charCodeAt(16) === COLON && value.charCodeAt(19) === 46 /* . */ && value.charCodeAt(23) === 90 /* Z */) {
    const day = civilDay(value, 0);
    const hours = digits(value, 11, 2);
    const minutes = digits(value, 14, 2);
    const seconds = digits(value, 17, 2);
    const millis = day * DAY_MS + ((hours * 60 + minutes) * 60 + seconds) * 1000 + digits(value, 20, 3);
    // In this form the digits decide: no rolling 02-29 of a common year or 24:00 over, as Date.parse would.
    if (hours <= 23 && minutes <= 59 && seconds <= 59 && !Number.isNaN(millis)) return millis;
    throw new TypeError(`not an ISO 8601 timestamp: ${value}`);
  }
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) throw new TypeError(`not an ISO 8601 timestamp: ${value}`);
  return parsed;
}

/** The `YYYY-MM-DD` at `start` as days since the epoch; NaN when it is not a real calendar day. */
function civilDay(text: string, start: number): number {
  if (text.charCodeAt(start + 4) !== DASH || text.charCodeAt(start + 7) !== DASH) return Number.NaN;
  const year = digits(text, start, 4);
  const month = digits(text, start + 5, 2);
  const day = digits(text, start + 8, 2);
  // NaN fails every comparison: a non-digit makes the whole date NaN.
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month))) return Number.NaN;
  return daysFromCivil(year, month, day);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil), for every year, 0000 included. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1; // from March 1
  return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
}

/**
 * A decimal column's encoder: the unscaled integer at `scale`, rounded once from the stored
 * number, as a number (INT64 columns hold safe integers). Past 2^53 a stored double holds
 * no exact amount anyway: refused rather than written wrong.
 */
export function decimalEncoder(scale: number): (value: number) => number {
  const factor = 10 ** scale;
  return (value) => {
    const unscaled = Math.round(value * factor);
    if (!Number.isSafeInteger(unscaled)) throw new RangeError(`the amount ${value} has no exact decimal at scale ${scale}`);
    return unscaled;
  };
}

/** A stored integer as INT32, refused when it is not one. */
export function int32Value(value: number): number {
  if ((value | 0) !== value) throw new RangeError(`not a 32-bit integer: ${value}`);
  return value;
}

function digits(text: string, start: number, count: number): number {
  let n = 0;
  for (let i = start; i < start + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    n = n * 10 + d;
  }
  return n;
}
