/**
 * Fast encoders from stored JSON values to Parquet's physical numbers. Exports push millions of
 * values through these, so they avoid the slow general paths (Date.parse of ISO timestamps
 * dominated the timestamp columns). Strings need none: they are written as UTF-8 straight into
 * their column's buffer (value-stores.ts).
 */

const DAY_MS = 86_400_000;

/**
 * A `YYYY-MM-DD` date as days since the epoch, by arithmetic on the digits, checked to be a real
 * calendar day. No cache: the export took the same time without the one it had (measured).
 */
export function epochDay(value: string): number {
  const day = value.length === 10 ? Date.UTC(digits(value, 0, 4), digits(value, 5, 2) - 1, digits(value, 8, 2)) / DAY_MS : Number.NaN;
  if (!Number.isInteger(day) || formatCheck(value, day)) throw new TypeError(`not a YYYY-MM-DD date: ${value}`);
  return day;
}

/** True when `value` is not the canonical spelling of `day` (Date.UTC rolls 2025-02-30 over to March). */
function formatCheck(value: string, day: number): boolean {
  const month = digits(value, 5, 2);
  const monthDay = digits(value, 8, 2);
  return month < 1 || month > 12 || monthDay < 1 || (monthDay > 28 && new Date(day * DAY_MS).getUTCDate() !== monthDay);
}

/**
 * An ISO 8601 UTC timestamp's milliseconds since the epoch (`YYYY-MM-DDTHH:MM:SS(.sss)Z`, as
 * stored), as a number: INT64 columns hold safe integers, so no BigInt per value.
 */
export function timestampMillis(value: string): number {
  if (value.length === 24 && value.charCodeAt(23) === 90 /* Z */) {
    const ms = Date.UTC(digits(value, 0, 4), digits(value, 5, 2) - 1, digits(value, 8, 2), digits(value, 11, 2), digits(value, 14, 2), digits(value, 17, 2), digits(value, 20, 3));
    if (!Number.isNaN(ms)) return ms;
  }
  const parsed = Date.parse(value); // any other ISO form: slower, still exact
  if (Number.isNaN(parsed)) throw new TypeError(`not an ISO 8601 timestamp: ${value}`);
  return parsed;
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
