import { describe, expect, it } from '@jest/globals';
import { echo, MAX_ECHO } from '../../../shared/errors/api-error.js';

describe('echo', () => {
  it('writes control, bidi, zero-width, separator and tag characters as escapes, astral ones whole', () => {
    expect(echo('a\u202eb\u200bc\u0007d\u2028e')).toBe('a\\u202eb\\u200bc\\u0007d\\u2028e');
    expect(echo('x\u{E0041}y')).toBe('x\\u{e0041}y');
    expect(echo('lone \ud800 half')).toBe('lone \\ud800 half');
    expect(echo('Müller 株式会社 \u{1F600}')).toBe('Müller 株式会社 \u{1F600}');
  });

  it('cuts what is longer than MAX_ECHO characters', () => {
    expect(echo('n'.repeat(1000))).toHaveLength(MAX_ECHO);
  });
});
