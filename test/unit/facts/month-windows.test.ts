import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../../dev/project-root.js';
import { monthWindows as clientWindows } from '../../../client/src/windows.js';
import { monthWindows as serviceWindows } from '../../../shared/exports/export-windows.js';
import { parseCalendarDate } from '../../../shared/filters/calendar-date.js';

// One set of vectors (test/vectors/month-windows.json) for the three places that cut a range into
// calendar months: the service's export jobs, the pull client and the Python loader
// (python/tests/test_month_windows.py reads the same file). A window's ETag is only the same in
// all three when they cut the same windows.
interface Vectors {
  readonly ranges: readonly { readonly from: string; readonly to: string; readonly windows: readonly [string, string, string][] }[];
  readonly reversed: readonly { readonly from: string; readonly to: string }[];
}
const vectors = JSON.parse(readFileSync(join(projectRoot(), 'test', 'vectors', 'month-windows.json'), 'utf8')) as Vectors;
const day = (text: string) => parseCalendarDate(text)!;

describe('month windows, by the shared vectors', () => {
  it('has vectors at every edge: a single day, month ends, leap and non-leap Februaries, a year\'s turn', () => {
    expect(vectors.ranges.length).toBeGreaterThanOrEqual(8);
    expect(vectors.ranges.some(({ windows }) => windows.some(([label, , to]) => label.endsWith('-02') && to.endsWith('-29')))).toBe(true);
  });

  it.each(vectors.ranges.map((range) => [`${range.from}..${range.to}`, range] as const))('the service cuts %s as the vectors say', (_name, range) => {
    expect(serviceWindows(day(range.from), day(range.to)).map((window) => [window.label, window.from, window.to])).toEqual(range.windows);
  });

  it.each(vectors.ranges.map((range) => [`${range.from}..${range.to}`, range] as const))('the pull client cuts %s as the vectors say', (_name, range) => {
    expect(clientWindows(range.from, range.to).map((window) => [window.month, window.from, window.to])).toEqual(range.windows);
  });

  it('a reversed range is no windows to the service and an error to the client', () => {
    for (const range of vectors.reversed) {
      expect(serviceWindows(day(range.from), day(range.to))).toEqual([]);
      expect(() => clientWindows(range.from, range.to)).toThrow(/after/);
    }
  });
});
