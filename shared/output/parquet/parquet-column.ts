import type { SchemaElement } from 'hyparquet-writer';
import type { FieldSpec } from '../../model/fields.js';
import { unreachable } from '../../util/unreachable.js';
import { readingOf, readValue, type MALFORMED, type Physical } from './value-reading.js';
import { BooleanStore, Float64Store, Int32Store, Utf8Store, type ValueStore } from './value-stores.js';

/** The physical types the chunk writer writes. */
export type PhysicalType = 'INT32' | 'INT64' | 'DOUBLE' | 'BOOLEAN' | 'BYTE_ARRAY';

/** How a column chooses its encoding. */
export type DictionaryPolicy =
  /** Always a dictionary: a fixed set of values (a status). */
  | 'always'
  /** Never: values are unique per record (a timestamp), a dictionary cannot win (a boolean) or would fold -0 into 0 (a double). */
  | 'never'
  /** A dictionary while it pays (column-buffer.ts). */
  | 'while-it-pays';

/** What the chunk writer needs of a column: plain data, so it crosses to a worker thread as it is. */
export interface ChunkColumn {
  readonly name: string;
  readonly type: PhysicalType;
  /** Whether the chunk keeps min/max statistics (numbers and booleans) and encoding stats. */
  readonly statistics: boolean;
}

/** A model field as a Parquet column: its schema element, how its stored values are read, and where their physical values are kept. */
export interface ParquetColumn {
  readonly element: SchemaElement;
  readonly chunk: ChunkColumn;
  readonly nullable: boolean;
  readonly dictionary: DictionaryPolicy;
  /** A stored value (never null here) as its physical value, or MALFORMED (value-reading.ts). */
  readonly read: (value: unknown) => Physical | typeof MALFORMED;
  /** A fresh store for the column's physical values. */
  readonly store: () => ValueStore<Physical>;
}

/**
 * The explicit Parquet column of a model field — never guessed from values, so an empty result
 * is still a fully typed file: strings UTF8, dates DATE, timestamps TIMESTAMP(MILLIS, UTC),
 * amounts and quantities DECIMAL(precision, scale) on INT64, line numbers INT32, doubles DOUBLE,
 * flags BOOLEAN. Nullability is the model's (a required column never holds null). Min/max
 * statistics are kept for dates, timestamps, numbers and booleans, which warehouses prune row
 * groups by; not for free-text strings, where they cost a fifth of the export time (measured) for
 * no pruning. Encodings come from the model where it tells: a fixed set of values is a
 * dictionary, a timestamp (unique per record), a boolean or a double is plain; other columns are a
 * dictionary while it pays (column-buffer.ts).
 */
export function parquetColumn(field: FieldSpec): ParquetColumn {
  const { name, nullable } = field;
  const base = { name, repetition_type: nullable ? 'OPTIONAL' : 'REQUIRED' } as const;
  const reading = readingOf(field);
  const read = (value: unknown) => readValue(reading, value);
  switch (field.kind) {
    case 'string':
      return column({ ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } }, false, {
        nullable, dictionary: field.values ? 'always' : 'while-it-pays', read, store: () => new Utf8Store(),
      });
    case 'date':
      return column({ ...base, type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } }, true, {
        nullable, dictionary: 'while-it-pays', read, store: () => new Int32Store(),
      });
    case 'timestamp':
      return column({ ...base, type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' } }, true, {
        nullable, dictionary: 'never', read, store: () => new Float64Store('int64'),
      });
    case 'decimal': {
      const { precision, scale } = field;
      return column({ ...base, type: 'INT64', converted_type: 'DECIMAL', precision, scale, logical_type: { type: 'DECIMAL', precision, scale } }, true, {
        nullable, dictionary: 'while-it-pays', read, store: () => new Float64Store('int64'),
      });
    }
    case 'int32':
      // Plain INT32 is a signed 32-bit integer already. No INTEGER logical type: hyparquet-writer
      // 0.17 serializes its bitWidth with the wrong thrift type and DuckDB refuses the file.
      return column({ ...base, type: 'INT32' }, true, {
        nullable, dictionary: 'while-it-pays', read, store: () => new Int32Store(),
      });
    case 'double':
      // Plain: a dictionary keys values as a Map does, which would fold -0 into 0.
      return column({ ...base, type: 'DOUBLE' }, true, {
        nullable, dictionary: 'never', read, store: () => new Float64Store('double'),
      });
    case 'boolean':
      return column({ ...base, type: 'BOOLEAN' }, true, {
        nullable, dictionary: 'never', read, store: () => new BooleanStore(),
      });
    default:
      return unreachable(field, 'field kind');
  }
}

/** The whole schema (root first) for a list of columns. */
export function parquetSchema(columns: readonly ParquetColumn[]): SchemaElement[] {
  return [{ name: 'root', num_children: columns.length }, ...columns.map((c) => c.element)];
}

function column(element: SchemaElement & { type: PhysicalType }, statistics: boolean, shape: Omit<ParquetColumn, 'element' | 'chunk'>): ParquetColumn {
  return { element, chunk: { name: element.name, type: element.type, statistics }, ...shape };
}
