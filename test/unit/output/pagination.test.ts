import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { jumpTo, paginate } from '../../../shared/output/pagination.js';

describe('pagination', () => {
  it('has a next page only when one exists and can be reached', () => {
    expect(paginate({ page: 1, pageSize: 25, totalRecords: 60, resultWindow: 10_000 })).toMatchObject({ totalPages: 3, hasNext: true, windowEnds: false, lastReachable: true });
    expect(paginate({ page: 3, pageSize: 25, totalRecords: 60, resultWindow: 10_000 })).toMatchObject({ hasNext: false, windowEnds: false });
    // The next page reaches past a window of 40: the walk ends here, and says why.
    const edge = paginate({ page: 2, pageSize: 15, totalRecords: 50, resultWindow: 40 });
    expect(edge).toMatchObject({ hasNext: false, windowEnds: true, lastReachable: false });
    expect(edge.warning).toMatch(/first 40 of 50/);
    // With its cursor stored, it can be reached whatever the window.
    expect(paginate({ page: 2, pageSize: 15, totalRecords: 50, resultWindow: 40, nextReachable: true })).toMatchObject({ hasNext: true, windowEnds: false });
  });

  it('says when a page is past the end, and has no last page for an empty result', () => {
    expect(paginate({ page: 4, pageSize: 25, totalRecords: 60, resultWindow: 10_000 }).warning).toMatch(/past the last page \(3\)/);
    expect(paginate({ page: 1, pageSize: 25, totalRecords: 0, resultWindow: 10_000 })).toMatchObject({ totalPages: 0, hasNext: false, lastReachable: false });
    expect(paginate({ page: 1, pageSize: 25, totalRecords: 0, resultWindow: 10_000 }).warning).toBeUndefined();
  });

  it('jumps to exactly the records of a page, within the window or not', () => {
    expect(jumpTo(3, 25, 60, 10_000)).toEqual({ skip: 50, take: 10, withinWindow: true });
    expect(jumpTo(4, 25, 60, 10_000)).toBeUndefined();
    expect(jumpTo(6, 10, 60, 50)).toEqual({ skip: 50, take: 10, withinWindow: false });
  });

  it('never promises a next page a jump cannot reach, and every page a walk reaches is within the window or behind a cursor', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 500 }), fc.integer({ min: 1, max: 300 }), (page, pageSize, totalRecords, resultWindow) => {
      const here = paginate({ page, pageSize, totalRecords, resultWindow });
      if (here.hasNext) expect(jumpTo(page + 1, pageSize, totalRecords, resultWindow)?.withinWindow).toBe(true);
      expect(here.hasNext || here.windowEnds || page >= here.totalPages).toBe(true);
      if (here.lastReachable) expect(jumpTo(here.totalPages, pageSize, totalRecords, resultWindow)?.withinWindow).toBe(true);
    }));
  });
});
