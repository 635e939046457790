import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../../../shared/errors/api-error.js';
import { matchesIfNoneMatch, parseIfNoneMatch } from '../../../shared/results/if-none-match.js';

const ETAG = 'W/"0123456789abcdef0123456789abcdef"';

function refused(value: string): string | undefined {
  try {
    parseIfNoneMatch(value);
    return undefined;
  } catch (error) {
    return (error as ApiError).code;
  }
}

describe('parseIfNoneMatch', () => {
  it('is no precondition without the header', () => {
    expect(parseIfNoneMatch(null)).toBeUndefined();
  });

  it('matches the ETag weakly: with or without W/, in a list, with empty elements and spaces', () => {
    for (const value of [ETAG, ETAG.slice(2), `"x", ${ETAG}`, ` ,${ETAG} ,, "y" `, `W/"a",W/"b",${ETAG}`]) {
      expect([value, matchesIfNoneMatch(parseIfNoneMatch(value)!, ETAG)]).toEqual([value, true]);
    }
  });

  it('does not match another tag, a tag without its quotes, or a prefix', () => {
    for (const value of ['W/"0123456789abcdef0123456789abcdee"', '"0123456789abcdef"', 'W/""']) {
      expect([value, matchesIfNoneMatch(parseIfNoneMatch(value)!, ETAG)]).toEqual([value, false]);
    }
  });

  it('matches anything with *', () => {
    expect(matchesIfNoneMatch(parseIfNoneMatch(' * ')!, ETAG)).toBe(true);
  });

  it('refuses what is not a list of entity tags, and overlong values, as INVALID_PRECONDITION', () => {
    for (const value of ['W/abc', '0123', '"a" "b"', '"a', 'w/"a"', '"a"b', ',', '', '*, "a"', '"a\u0000"', `"${'a'.repeat(9000)}"`]) {
      expect([value.slice(0, 20), refused(value)]).toEqual([value.slice(0, 20), 'INVALID_PRECONDITION']);
    }
  });
});
