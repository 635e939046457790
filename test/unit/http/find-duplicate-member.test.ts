import { describe, expect, it } from '@jest/globals';
import { findDuplicateMember } from '../../../shared/http/find-duplicate-member.js';

describe('findDuplicateMember', () => {
  it.each([
    ['{"a":1,"a":2}', 'a'],
    ['{ "page" : 1 , "pageSize": 2, "page": 3 }', 'page'],
    ['{"a\\u0062":1,"ab":2}', 'ab'],
    ['{"x":{"y":1,"y":2},"x":3}', 'x'],
  ])('finds the duplicate in %s', (text, name) => {
    expect(findDuplicateMember(text)).toBe(name);
  });

  it.each([
    '{"a":1,"b":2}',
    '{"x":{"a":1,"a":2}}',
    '{"a":"\\"a\\":1,","b":["a","a"]}',
    '{}',
    '[{"a":1},{"a":1}]',
  ])('finds none at the top level of %s', (text) => {
    expect(findDuplicateMember(text)).toBeUndefined();
  });
});
