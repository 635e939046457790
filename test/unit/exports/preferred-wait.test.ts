import { describe, expect, it } from '@jest/globals';
import { preferredWait } from '../../../shared/http/handle-exports.js';
import { MAX_STATUS_WAIT_SECONDS } from '../../../shared/model/export-operations.js';

describe('a status call\'s Prefer: wait', () => {
  it.each([
    [undefined, 0],
    [null, 0],
    ['', 0],
    ['wait=5', 5],
    ['respond-async, wait=7', 7],
    ['wait="3"', 3],
    ['WAIT = 4', 4],
    ['wait=999999', MAX_STATUS_WAIT_SECONDS],
    ['wait=-1', 0],
    ['handling=lenient', 0],
    ['nowait=9', 0],
  ])('reads %p as %p seconds', (header, seconds) => {
    expect(preferredWait(header)).toBe(seconds);
  });
});
