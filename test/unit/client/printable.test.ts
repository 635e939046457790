import { describe, expect, it } from '@jest/globals';
import { printable } from '../../../client/src/printable.js';

describe('printable', () => {
  it('keeps ordinary text, accents and symbols as they are', () => {
    expect(printable('400 INVALID_FILTER: status must be one of Draft, Paid — café ✓')).toBe('400 INVALID_FILTER: status must be one of Draft, Paid — café ✓');
  });

  it('turns every run of control characters and bidirectional overrides into one space', () => {
    expect(printable('a\u001b[2Jb\r\nc\u0007\u009b1md\u202eé\u2066f\u0000')).toBe('a [2Jb c 1md é f ');
  });
});
