import { describe, expect, it } from '@jest/globals';
import { guardCursors, type CursorFailure } from '../../../shared/cursors/guarded-cursors.js';
import type { PageCursors } from '../../../shared/cursors/page-cursors.js';

const CURSOR = { continuation: 'c', totalRecords: 7, etag: 'W/"e"' };

function recorder() {
  const reports: string[] = [];
  return { reports, report: (call: 'get' | 'put', reason: CursorFailure) => reports.push(`${call} ${reason}`) };
}

describe('guarded page cursors', () => {
  it('pass a working store through', async () => {
    const stored = new Map<string, typeof CURSOR>();
    const cursors = guardCursors({ get: async (_t, key) => stored.get(key), put: async (_t, key, cursor) => void stored.set(key, cursor) });
    const { reports, report } = recorder();
    expect(await cursors.put('t', 'k', CURSOR, report)).toBe(true);
    expect(await cursors.get('t', 'k', report)).toEqual(CURSOR);
    expect(reports).toEqual([]);
  });

  it('cancel a call past its deadline (its signal fires) and go on without it', async () => {
    const signals: AbortSignal[] = [];
    const hung: PageCursors = { get: (_t, _k, signal) => new Promise(() => void signals.push(signal!)), put: (_t, _k, _c, signal) => new Promise(() => void signals.push(signal!)) };
    const cursors = guardCursors(hung, { deadlineMs: 20, failuresToOpen: 10, openMs: 1000 });
    const { reports, report } = recorder();
    expect(await cursors.get('t', 'k', report)).toBeUndefined();
    expect(await cursors.put('t', 'k', CURSOR, report)).toBe(false);
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true]);
    expect(reports).toEqual(['get timeout', 'put timeout']);
  });

  it('stop asking a store that keeps failing for a while (breaker), then try it again', async () => {
    let now = 0;
    let calls = 0;
    let healthy = false;
    const flaky: PageCursors = {
      get: async () => {
        calls++;
        if (!healthy) throw new Error('down');
        return CURSOR;
      },
      put: async () => {},
    };
    const cursors = guardCursors(flaky, { deadlineMs: 1000, failuresToOpen: 3, openMs: 30_000, now: () => now });
    const { reports, report } = recorder();
    for (let i = 0; i < 5; i++) expect(await cursors.get('t', 'k', report)).toBeUndefined();
    expect(calls).toBe(3);
    expect(reports).toEqual(['get error', 'get error', 'get error', 'get breaker open', 'get breaker open']);
    now = 30_001;
    healthy = true;
    expect(await cursors.get('t', 'k', report)).toEqual(CURSOR);
    expect(calls).toBe(4);
  });

  it('tell the observer they are made with of every failure, as it happens', async () => {
    const heard: string[] = [];
    const store: PageCursors = { get: async () => { throw new Error('down'); }, put: async () => {} };
    const cursors = guardCursors(store, { deadlineMs: 1000, failuresToOpen: 1, openMs: 30_000, onFailure: (call, reason) => heard.push(`${call} ${reason}`) });
    await cursors.get('t', 'k', () => {});
    await cursors.get('t', 'k', () => {});
    expect(heard).toEqual(['get error', 'get breaker open']);
  });
});
