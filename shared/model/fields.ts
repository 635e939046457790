/**
 * Fields: what a stored document may carry, with its type. Every layer reads these specs — SQL
 * projection, JSON, the Parquet schema, the OpenAPI record schemas — so a field is declared once.
 */

/** How a field's values are typed (JSON keeps them as strings, numbers and booleans; Parquet maps them exactly). */
export type FieldKind = FieldSpec['kind'];

interface FieldBase {
  readonly name: string;
  /** Whether a stored value may be null. */
  readonly nullable: boolean;
}

/**
 * One field of a resource (or of its lines), a union by kind: what a kind needs (a decimal's
 * precision and scale) it always has, and a `switch` over `kind` ending in `unreachable` makes the
 * compiler list every place a new kind must be handled.
 */
export type FieldSpec =
  /** UTF-8 text; `values`: the fixed set it takes (a status). */
  | FieldBase & { readonly kind: 'string'; readonly values?: readonly string[] }
  /** A calendar date `YYYY-MM-DD`. */
  | FieldBase & { readonly kind: 'date' }
  /** An ISO 8601 UTC instant. */
  | FieldBase & { readonly kind: 'timestamp' }
  /** An exact decimal: a JSON number, DECIMAL(precision, scale) in Parquet. */
  | FieldBase & { readonly kind: 'decimal'; readonly precision: number; readonly scale: number }
  /** A signed 32-bit integer. */
  | FieldBase & { readonly kind: 'int32' }
  /** A floating-point number (IEEE 754 double): a measure, never money. */
  | FieldBase & { readonly kind: 'double' }
  | FieldBase & { readonly kind: 'boolean' };

/** The values a field takes when it is a string of a fixed set, else undefined. */
export function valuesOf(field: FieldSpec): readonly string[] | undefined {
  return field.kind === 'string' ? field.values : undefined;
}

/** Field names are spliced into SQL as `c.<name>`, so they are plain identifiers. */
export const FIELD_NAME = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

function field<F extends FieldSpec>(spec: F): F {
  if (!FIELD_NAME.test(spec.name)) throw new TypeError(`field name "${spec.name}" is not a plain identifier`);
  const values = valuesOf(spec);
  return Object.freeze({ ...spec, ...(values ? { values: Object.freeze([...values]) } : {}) }) as unknown as F;
}

/** A UTF-8 string field. */
export const text = (name: string, nullable = false): FieldSpec => field({ name, kind: 'string', nullable });

/** A string field with a fixed set of values. */
export const oneOf = (name: string, values: readonly string[]): FieldSpec => field({ name, kind: 'string', nullable: false, values });

/** A calendar date `YYYY-MM-DD`. */
export const day = (name: string, nullable = false): FieldSpec => field({ name, kind: 'date', nullable });

/** An ISO 8601 UTC timestamp. */
export const timestamp = (name: string): FieldSpec => field({ name, kind: 'timestamp', nullable: false });

/** An exact decimal (a JSON number; DECIMAL(precision, scale) in Parquet). */
export const decimal = (name: string, precision: number, scale: number): FieldSpec => field({ name, kind: 'decimal', nullable: false, precision, scale });

/** An amount of money: DECIMAL(18, 2). */
export const money = (name: string): FieldSpec => decimal(name, 18, 2);

/** A signed 32-bit integer. */
export const int32 = (name: string): FieldSpec => field({ name, kind: 'int32', nullable: false });

/** A floating-point number. */
export const double = (name: string, nullable = false): FieldSpec => field({ name, kind: 'double', nullable });

/** A true/false flag. */
export const flag = (name: string, nullable = false): FieldSpec => field({ name, kind: 'boolean', nullable });
