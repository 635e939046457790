import { describe, expect, it } from '@jest/globals';
import { findDuplicateMember } from '../../../shared/http/find-duplicate-member.js';

describe('findDuplicateMember', () => {
  it.each([
    ['{"a":1,"a":2}', 'a'],
    ['{ "page" : 1 , "pageSize": 2, "page": 3 }', 'page'],
    ['{"a\\u0062":1,"ab":2}', 'ab'],
    ['{"x":3,"y":{"z":1},"x":4}', 'x'],
    // Inside a member's object: a window's ETag sent twice.
    ['{"x":{"a":1,"a":2}}', 'x.a'],
    ['{"ifNoneMatch":{"2025-01":"W/\\"a\\"","2025-02":"W/\\"b\\"","2025-01":"W/\\"c\\""}}', 'ifNoneMatch.2025-01'],
    ['{"x":{"y":1,"y":2},"x":3}', 'x.y'],
    ['{"list":[{"a":1,"a":2}]}', 'list.[].a'],
  ])('finds the duplicate in %s', (text, name) => {
    expect(findDuplicateMember(text)).toBe(name);
  });

  it.each([
    '{"a":1,"b":2}',
    '{"x":{"a":1},"y":{"a":1}}',
    '{"a":"\\"a\\":1,","b":["a","a"]}',
    '{}',
    '[{"a":1},{"a":1}]',
  ])('finds none in %s', (text) => {
    expect(findDuplicateMember(text)).toBeUndefined();
  });
});
