import * as z from 'zod';
import type { ErrorCode } from '../errors/error-codes.js';

/** Where a member came from: JSON body values keep their JSON type, query values are strings. */
export type Source = 'body' | 'query';

/** How one request member is checked: its schema per source (built once), the code and message when it fails. */
export interface MemberRule {
  readonly schema: Readonly<Record<Source, z.ZodType<string | number>>>;
  readonly code: ErrorCode;
  /** What a valid value looks like, as the end of "<member> must be …". */
  readonly expected: string;
}

/** The same schema whatever the source. */
const either = (schema: z.ZodType<string | number>): MemberRule['schema'] => ({ body: schema, query: schema });

/** Free text: a non-empty string of at most 128 characters. */
export function textRule(): MemberRule {
  return { schema: either(z.string().min(1).max(128)), code: 'INVALID_FILTER', expected: 'a non-empty string of at most 128 characters' };
}

/** A string matching `pattern`, described by `expected`. */
export function patternRule(pattern: RegExp, expected: string): MemberRule {
  return { schema: either(z.string().regex(pattern)), code: 'INVALID_FILTER', expected };
}

/** One of a fixed set of strings. */
export function valuesRule(values: readonly string[], expected = `one of ${values.join(', ')}`): MemberRule {
  if (values.length === 0) throw new TypeError('valuesRule needs at least one value');
  return { schema: either(z.enum(values as [string, ...string[]])), code: 'INVALID_FILTER', expected };
}

/** Any string, checked further by the code that reads it (`orderBy` against the caller's view). */
export function stringRule(code: ErrorCode, expected: string): MemberRule {
  return { schema: either(z.string()), code, expected };
}

/** A calendar date; whether it is a real one is checked with its range (`check-date-ranges`). */
export function dateRule(): MemberRule {
  return stringRule('INVALID_DATE', 'a calendar date YYYY-MM-DD, for example 2025-01-31');
}

/** A whole number ≥ 1: a JSON integer in the body, digits in the query string. */
export function positiveIntegerRule(what: string): MemberRule {
  return {
    schema: {
      body: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
      // The same numbers as the body's: digits without a leading zero, up to 2^53 − 1.
      query: z.string().regex(/^[1-9][0-9]{0,15}$/).transform(Number).pipe(z.number().max(Number.MAX_SAFE_INTEGER)),
    },
    code: 'INVALID_FILTER',
    expected: `${what}: a whole number ≥ 1 (a JSON integer in the body)`,
  };
}
