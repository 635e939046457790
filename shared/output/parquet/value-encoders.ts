/**
 * Fast encoders from stored JSON values to Parquet's physical numbers. Exports push millions of
 * values through these, so they avoid the slow general paths (Date.parse of ISO timestamps
 * dominated the timestamp columns). Strings need none: they are written as UTF-8 straight into
 * their column's buffer (value-stores.ts).
 */
import { CALENDAR_MS, civilDayAt, digitsAt, isCivilDayAt, twoDigitsAt } from '../../util/civil-days.js';

const DAY_MS = 86_400_000;
const COLON = 58;

/** Whether `value` is a calendar day (util/civil-days.ts says what one is; what epochDay takes). */
export function isCalendarDay(value: string): boolean {
  return value.length === 10 && isCivilDayAt(value, 0);
}

/**
 * ISO 8601 with a date, a time and an offset (`Z` or `±HH:MM`): the only other form an instant is
 * taken in. Without an offset (or in any other form: "March 15, 2025 10:00") a text names no
 * instant, and Date.parse would read it in this host's time zone.
 */
const OFFSET_FORM = /^\d{4}-\d{2}-\d{2}T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** Whether `value` is an instant timestampMillis takes (the stored form checked digit by digit, as it reads it). */
export function isTimestamp(value: string): boolean {
  if (!isStoredForm(value)) return isOffsetForm(value);
  // NaN (a non-digit) fails every comparison.
  return isCivilDayAt(value, 0) && twoDigitsAt(value, 11) <= 23 && twoDigitsAt(value, 14) <= 59 && twoDigitsAt(value, 17) <= 59 && digitsAt(value, 20, 3) >= 0;
}

/** A `YYYY-MM-DD` date as days since the epoch, checked to be a real calendar day. */
export function epochDay(value: string): number {
  const day = value.length === 10 ? civilDayAt(value, 0) : Number.NaN;
  if (Number.isNaN(day)) throw new TypeError(`not a YYYY-MM-DD date: ${value}`);
  return day;
}

/**
 * An ISO 8601 UTC timestamp's milliseconds since the epoch, as a number: INT64 columns hold safe
 * integers, so no BigInt per value. The form the store keeps (`YYYY-MM-DDTHH:MM:SS.sssZ`) is read
 * by arithmetic on its digits and must be a real instant; the other ISO form it takes (with an
 * offset, OFFSET_FORM) goes through Date.parse (slower, still exact, never the host's time zone).
 */
export function timestampMillis(value: string): number {
  if (isStoredForm(value)) {
    const day = civilDayAt(value, 0);
    const hours = twoDigitsAt(value, 11);
    const minutes = twoDigitsAt(value, 14);
    const seconds = twoDigitsAt(value, 17);
    const millis = day * DAY_MS + ((hours * 60 + minutes) * 60 + seconds) * 1000 + digitsAt(value, 20, 3);
    // In this form the digits decide: no rolling 02-29 of a common year or 24:00 over, as Date.parse would.
    if (hours <= 23 && minutes <= 59 && seconds <= 59 && !Number.isNaN(millis)) return millis;
    throw new TypeError(`not an ISO 8601 timestamp: ${value}`);
  }
  if (!isOffsetForm(value)) throw new TypeError(`not an ISO 8601 timestamp with an offset: ${value}`);
  return Date.parse(value);
}

/**
 * Whether `value` is OFFSET_FORM with a real calendar day, hours, minutes, seconds and offset, at
 * an instant of a calendar day (its offset may not carry it into year 0000 or 10000).
 */
function isOffsetForm(value: string): boolean {
  const parts = OFFSET_FORM.exec(value);
  if (!parts || !isCivilDayAt(value, 0)) return false;
  const [, hours, minutes, seconds = '00', offsetHours = '00', offsetMinutes = '00'] = parts;
  const instant = Date.parse(value);
  return Number(hours) <= 23 && Number(minutes) <= 59 && Number(seconds) <= 59 && Number(offsetHours) <= 23 && Number(offsetMinutes) <= 59 && instant >= CALENDAR_MS.first && instant <= CALENDAR_MS.last;
}

/** Whether `value` has the shape of the form the store keeps, `YYYY-MM-DDTHH:MM:SS.sssZ` (its digits not yet checked). */
function isStoredForm(value: string): boolean {
  return value.length === 24 && value.charCodeAt(10) === 84 /* T */ && value.charCodeAt(13) === COLON && value.charCodeAt(16) === COLON && value.charCodeAt(19) === 46 /* . */ && value.charCodeAt(23) === 90 /* Z */;
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
