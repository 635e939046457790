/**
 * Whether a stored value is one its field may hold, the same for the JSON pages and the Parquet
 * export: the service reads documents another system writes, and one malformed value must cost
 * that value (or that record), never the whole answer.
 */
import { valuesOf, type FieldSpec } from '../model/fields.js';
import { unreachable } from '../util/unreachable.js';
import { isCalendarDay, isTimestamp } from './parquet/value-encoders.js';

/** Whether a present value (neither null nor undefined) is of a field's type, within its declared values or bounds. */
export type ValueCheck = (value: unknown) => boolean;

/** The check of a field's values. */
export function checkOf(field: FieldSpec): ValueCheck {
  switch (field.kind) {
    case 'string': {
      const values = valuesOf(field);
      // Well-formed Unicode only: a lone surrogate has no UTF-8 (Parquet would answer U+FFFD where
      // JSON answers the escape), so it is malformed in both.
      if (values === undefined) return (value) => typeof value === 'string' && value.isWellFormed();
      const allowed: ReadonlySet<unknown> = new Set(values);
      return (value) => allowed.has(value);
    }
    case 'date':
      return (value) => typeof value === 'string' && isCalendarDay(value);
    case 'timestamp':
      return (value) => typeof value === 'string' && isTimestamp(value);
    case 'decimal': {
      // DECIMAL(precision, scale): an exact unscaled integer (the Parquet encoder's own test,
      // decimalEncoder) of at most `precision` digits, and no more digits than the scale: 123.456789
      // is no amount at scale 2, and is malformed in JSON and Parquet alike rather than answered
      // whole in one and rounded in the other (the double nearest the rounded amount is that amount).
      const limit = 10 ** (field.precision - field.scale);
      const factor = 10 ** field.scale;
      return (value) => {
        if (typeof value !== 'number' || !(value < limit && value > -limit)) return false;
        const unscaled = Math.round(value * factor);
        return Number.isSafeInteger(unscaled) && unscaled / factor === value;
      };
    }
    case 'int32':
      return (value) => typeof value === 'number' && (value | 0) === value;
    case 'double':
      return (value) => typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return (value) => typeof value === 'boolean';
    default:
      return unreachable(field, 'field kind');
  }
}
