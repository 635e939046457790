import { describe, expect, it } from '@jest/globals';
import { fileLabel, halves, isGrowing, monthEnd, monthWindows, parseDay, windowLabel } from '../../../client/src/windows.js';

describe('calendar-month windows', () => {
  it('splits a range into calendar months, cut to the range at both ends, never overlapping', () => {
    expect(monthWindows('2024-01-15', '2024-04-10')).toEqual([
      { month: '2024-01', from: '2024-01-15', to: '2024-01-31' },
      { month: '2024-02', from: '2024-02-01', to: '2024-02-29' },
      { month: '2024-03', from: '2024-03-01', to: '2024-03-31' },
      { month: '2024-04', from: '2024-04-01', to: '2024-04-10' },
    ]);
  });

  it('covers every day of a range exactly once, across years and leap days', () => {
    const windows = monthWindows('2023-11-30', '2025-03-01');
    const days = windows.flatMap((window) => {
      const out: string[] = [];
      for (let t = Date.parse(`${window.from}T00:00:00Z`); t <= Date.parse(`${window.to}T00:00:00Z`); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
      return out;
    });
    expect(days.length).toBe(new Set(days).size);
    expect(days[0]).toBe('2023-11-30');
    expect(days.at(-1)).toBe('2025-03-01');
    expect(days.length).toBe((Date.parse('2025-03-01') - Date.parse('2023-11-30')) / 86_400_000 + 1);
    expect(windows.map((window) => window.month)).toContain('2024-02');
  });

  it('gives one window for one day, and refuses a reversed range or a date that does not exist', () => {
    expect(monthWindows('2025-02-28', '2025-02-28')).toEqual([{ month: '2025-02', from: '2025-02-28', to: '2025-02-28' }]);
    expect(() => monthWindows('2025-03-01', '2025-02-28')).toThrow(/after/);
    expect(() => monthWindows('2025-02-29', '2025-03-01')).toThrow(/not a calendar day/);
    expect(parseDay('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(parseDay('2025-2-1')).toBeUndefined();
    // The service's calendar days: 0001–9999, the years before 100 as themselves.
    expect(parseDay('0050-03-01')).toBe(new Date(0).setUTCFullYear(50, 2, 1));
    expect([parseDay('0000-01-01'), parseDay('0099-02-29')]).toEqual([undefined, undefined]);
  });

  it('halves a window into two that tile it, down to single days', () => {
    const month = { month: '2025-03', from: '2025-03-01', to: '2025-03-31' };
    expect(halves(month)).toEqual([{ month: '2025-03', from: '2025-03-01', to: '2025-03-16' }, { month: '2025-03', from: '2025-03-17', to: '2025-03-31' }]);
    expect(halves({ month: '2025-03', from: '2025-03-05', to: '2025-03-06' })).toEqual([{ month: '2025-03', from: '2025-03-05', to: '2025-03-05' }, { month: '2025-03', from: '2025-03-06', to: '2025-03-06' }]);
    expect(halves({ month: '2025-03', from: '2025-03-05', to: '2025-03-05' })).toBeNull();
    expect(windowLabel(month)).toBe('2025-03');
    expect(windowLabel(halves(month)![1])).toBe('2025-03-17_2025-03-31');
    // A month cut by --from/--to is a part of it, named by its days, so that it never takes the
    // name (and file) of the whole month another run pulls into the same folder.
    expect(monthWindows('2025-03-15', '2025-04-30').map(windowLabel)).toEqual(['2025-03-15_2025-03-31', '2025-04']);
    expect(windowLabel({ month: '2024-02', from: '2024-02-01', to: '2024-02-29' })).toBe('2024-02');
  });
});

describe('growing windows', () => {
  const at = (instant: string) => Date.parse(instant);

  it('grow while their last day is yesterday or later (UTC): only their files\' name depends on it', () => {
    const window = { month: '2026-11', from: '2026-11-01', to: '2026-11-22' };
    expect(isGrowing(window, at('2026-11-23T23:59:59.999Z'))).toBe(true);
    expect(isGrowing(window, at('2026-11-24T00:00:00.000Z'))).toBe(false);
    expect(fileLabel(window, true)).toBe('2026-11');
    expect(fileLabel(window, false)).toBe('2026-11-01_2026-11-22');
  });

  it('know the last day of every month', () => {
    expect(['2024-02', '2025-02', '2025-04', '2025-12'].map(monthEnd)).toEqual(['2024-02-29', '2025-02-28', '2025-04-30', '2025-12-31']);
  });
});
