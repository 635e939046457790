/**
 * Fields: what a stored document may carry, with its type. Every layer reads these specs — SQL
 * projection, JSON, the Parquet schema, the OpenAPI record schemas — so a field is declared once.
 */

/** How a field's values are typed (JSON keeps them as strings/numbers; Parquet maps them exactly). */
export type FieldKind = 'string' | 'date' | 'timestamp' | 'decimal' | 'int32';

/** One field of a resource (or of its lines). */
export interface FieldSpec {
  readonly name: string;
  readonly kind: FieldKind;
  /** Whether a stored value may be null. */
  readonly nullable: boolean;
  /** For `decimal`: declared precision and scale. */
  readonly precision?: number;
  readonly scale?: number;
  /** For a `string` that takes one of a fixed set of values (a status): those values. */
  readonly values?: readonly string[];
}

/** Field names are spliced into SQL as `c.<name>`, so they are plain identifiers. */
export const FIELD_NAME = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

function field(spec: FieldSpec): FieldSpec {
  if (!FIELD_NAME.test(spec.name)) throw new TypeError(`field name "${spec.name}" is not a plain identifier`);
  return Object.freeze({ ...spec, ...(spec.values ? { values: Object.freeze([...spec.values]) } : {}) });
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
