import { ApiError } from '../errors/api-error.js';

/**
 * An `If-None-Match` precondition (RFC 9110 §13.1.2): `*`, or the entity tags it lists. A request
 * whose result still has one of them is answered 412 `RESULT_UNCHANGED` with no records (§13.1.2:
 * 412, not 304, for a method other than GET or HEAD).
 */
export type IfNoneMatch = { readonly any: true } | { readonly any: false; readonly tags: readonly string[] };

/** Longer than any list a client keeps; bounds the parse. */
const MAX_LENGTH = 8192;

/** One entity tag with what may follow it: `[W/]"<etagc>*"`, then a comma or the end. */
const ENTITY_TAG = /^(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*(?:,|$)/;

/**
 * The header's precondition, or undefined when there is none. A value that is not `*` or a list of
 * entity tags is refused (400 `INVALID_PRECONDITION`): evaluating it as "no match" would export a
 * result the caller thinks it is only checking.
 */
export function parseIfNoneMatch(value: string | null): IfNoneMatch | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (text === '*') return { any: true };
  if (text.length > MAX_LENGTH) throw invalid(`is ${text.length} characters long; send at most ${MAX_LENGTH}`);
  const tags: string[] = [];
  let rest = text;
  while (rest !== '') {
    // Empty list elements are allowed (RFC 9110 §5.6.1).
    const skipped = rest.replace(/^[ \t]*,?[ \t]*/, '');
    if (skipped !== rest) {
      rest = skipped;
      continue;
    }
    const match = ENTITY_TAG.exec(rest);
    if (!match) throw invalid('is not * or a list of entity tags such as W/"…" (send back the ETag of an earlier answer, quotes included)');
    tags.push(match[1]!);
    rest = rest.slice(match[0].length);
  }
  if (tags.length === 0) throw invalid('lists no entity tag');
  return { any: false, tags };
}

/** Whether `etag` (as this service writes it) matches the precondition: the weak comparison (RFC 9110 §8.8.3.2). */
export function matchesIfNoneMatch(precondition: IfNoneMatch, etag: string): boolean {
  if (precondition.any) return true;
  const opaque = etag.replace(/^W\//, '').slice(1, -1);
  return precondition.tags.includes(opaque);
}

function invalid(what: string): ApiError {
  return new ApiError('INVALID_PRECONDITION', `If-None-Match ${what}.`, { errors: [{ member: 'If-None-Match', code: 'INVALID_PRECONDITION', message: `If-None-Match ${what}.` }] });
}
