/**
 * Stored JSON values read as Parquet's physical values, the one rule of what a field may hold:
 * the service reads documents another system writes, and one malformed value must cost that
 * value (or that record), never the whole answer. The JSON pages and the Parquet export clean
 * their records by the same reading (../record-cleaner.ts), so they refuse the same values.
 *
 * A value is read once: telling whether a date, an instant or an amount is well formed means
 * working out its number (days, milliseconds, the unscaled integer), and that number is what the
 * export writes (column-buffer.ts); JSON answers the stored value. One function reads every kind,
 * by a switch over the field's reading (made once per field): an export reads millions of values,
 * and one call site calling a closure per field cost the cleaning a third more (measured). The
 * general paths are avoided (Date.parse of ISO timestamps dominated the timestamp columns);
 * strings are written as UTF-8 straight into their column's buffer (value-stores.ts).
 */
import { valuesOf, type FieldKind, type FieldSpec } from '../../model/fields.js';
import { unreachable } from '../../util/unreachable.js';
import { CALENDAR_MS, civilDayAt, digitsAt, isCivilDayAt, twoDigitsAt } from '../../util/civil-days.js';

const DAY_MS = 86_400_000;
const COLON = 58;

/** A `YYYY-MM-DD` date as days since the epoch; NaN when it is not a calendar day (util/civil-days.ts says what one is). */
export function calendarDayNumber(value: string): number {
  return value.length === 10 ? civilDayAt(value, 0) : Number.NaN;
}

/** Whether `value` is a calendar day. */
export function isCalendarDay(value: string): boolean {
  return value.length === 10 && isCivilDayAt(value, 0);
}

/**
 * ISO 8601 with a date, a time and an offset (`Z` or `±HH:MM`): the only other form an instant is
 * taken in. Without an offset (or in any other form: "March 15, 2025 10:00") a text names no
 * instant, and Date.parse would read it in this host's time zone.
 */
const OFFSET_FORM = /^\d{4}-\d{2}-\d{2}T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/**
 * An ISO 8601 instant's milliseconds since the epoch, as a number (INT64 columns hold safe
 * integers, so no BigInt per value); NaN when `value` names no instant of the calendar days. The
 * form the store keeps (`YYYY-MM-DDTHH:MM:SS.sssZ`) is read by arithmetic on its digits and must
 * be a real instant; the other ISO form it takes (with an offset, OFFSET_FORM) goes through
 * Date.parse (slower, still exact, never the host's time zone).
 */
export function instantMillis(value: string): number {
  if (isStoredForm(value)) {
    const day = civilDayAt(value, 0);
    const hours = twoDigitsAt(value, 11);
    const minutes = twoDigitsAt(value, 14);
    const seconds = twoDigitsAt(value, 17);
    // In this form the digits decide: no rolling 02-29 of a common year or 24:00 over, as Date.parse
    // would. NaN (a non-digit) fails every comparison and carries through the sum.
    if (!(hours <= 23 && minutes <= 59 && seconds <= 59)) return Number.NaN;
    return day * DAY_MS + ((hours * 60 + minutes) * 60 + seconds) * 1000 + digitsAt(value, 20, 3);
  }
  return offsetFormMillis(value);
}

/** Whether `value` is an instant instantMillis reads. */
export function isTimestamp(value: string): boolean {
  return !Number.isNaN(instantMillis(value));
}

/**
 * The instant of `value` in OFFSET_FORM with a real calendar day, hours, minutes, seconds and
 * offset, at an instant of a calendar day (its offset may not carry it into year 0000 or 10000);
 * NaN otherwise. Parsed once.
 */
function offsetFormMillis(value: string): number {
  const parts = OFFSET_FORM.exec(value);
  if (!parts || !isCivilDayAt(value, 0)) return Number.NaN;
  const [, hours, minutes, seconds = '00', offsetHours = '00', offsetMinutes = '00'] = parts;
  const instant = Date.parse(value);
  const taken = Number(hours) <= 23 && Number(minutes) <= 59 && Number(seconds) <= 59 && Number(offsetHours) <= 23 && Number(offsetMinutes) <= 59 && instant >= CALENDAR_MS.first && instant <= CALENDAR_MS.last;
  return taken ? instant : Number.NaN;
}

/** Whether `value` has the shape of the form the store keeps, `YYYY-MM-DDTHH:MM:SS.sssZ` (its digits not yet checked). */
function isStoredForm(value: string): boolean {
  return value.length === 24 && value.charCodeAt(10) === 84 /* T */ && value.charCodeAt(13) === COLON && value.charCodeAt(16) === COLON && value.charCodeAt(19) === 46 /* . */ && value.charCodeAt(23) === 90 /* Z */;
}

/** What a malformed value reads as. */
export const MALFORMED: unique symbol = Symbol('malformed');

/** A value as Parquet holds it: text, days, milliseconds, an unscaled decimal, a number or a flag. */
export type Physical = string | number | boolean;

/** How a field's values are read: its kind, and what the kind needs (readingOf). */
export interface ValueReading {
  readonly kind: FieldKind;
  /** A string field's declared values (undefined: any well-formed text). */
  readonly allowed: ReadonlySet<unknown> | undefined;
  /** A decimal's bound (10^(precision − scale)) and the factor of its scale (10^scale); 0 for other kinds. */
  readonly limit: number;
  readonly factor: number;
}

/** The reading of a field's values. */
export function readingOf(field: FieldSpec): ValueReading {
  const values = valuesOf(field);
  const decimal = field.kind === 'decimal' ? { limit: 10 ** (field.precision - field.scale), factor: 10 ** field.scale } : { limit: 0, factor: 0 };
  return Object.freeze({ kind: field.kind, allowed: values === undefined ? undefined : new Set<unknown>(values), ...decimal });
}

/** A present value (neither null nor undefined) as its physical value, or MALFORMED when it is not of its field's type, within its declared values or bounds. */
export function readValue(reading: ValueReading, value: unknown): Physical | typeof MALFORMED {
  switch (reading.kind) {
    case 'string': {
      const { allowed } = reading;
      if (allowed !== undefined) return allowed.has(value) ? (value as string) : MALFORMED;
      // Well-formed Unicode only: a lone surrogate has no UTF-8 (Parquet would answer U+FFFD where
      // JSON answers the escape), so it is malformed in both.
      return typeof value === 'string' && value.isWellFormed() ? value : MALFORMED;
    }
    case 'date':
      return numberOrMalformed(typeof value === 'string' ? calendarDayNumber(value) : Number.NaN);
    case 'timestamp':
      return numberOrMalformed(typeof value === 'string' ? instantMillis(value) : Number.NaN);
    case 'decimal': {
      // DECIMAL(precision, scale): an exact unscaled integer of at most `precision` digits (INT64
      // columns hold safe integers), and no more digits than the scale: 123.456789 is no amount at
      // scale 2, and is malformed in JSON and Parquet alike rather than answered whole in one and
      // rounded in the other (the double nearest the rounded amount is that amount).
      const { limit, factor } = reading;
      if (typeof value !== 'number' || !(value < limit && value > -limit)) return MALFORMED;
      const unscaled = Math.round(value * factor);
      return Number.isSafeInteger(unscaled) && unscaled / factor === value ? unscaled : MALFORMED;
    }
    case 'int32':
      return typeof value === 'number' && (value | 0) === value ? value : MALFORMED;
    case 'double':
      return typeof value === 'number' && Number.isFinite(value) ? value : MALFORMED;
    case 'boolean':
      return typeof value === 'boolean' ? value : MALFORMED;
    default:
      return unreachable(reading.kind, 'field kind');
  }
}

function numberOrMalformed(number: number): number | typeof MALFORMED {
  return Number.isNaN(number) ? MALFORMED : number;
}
