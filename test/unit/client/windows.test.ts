import { describe, expect, it } from '@jest/globals';
import { halves, isSettled, monthWindows, parseDay, windowLabel } from '../../../client/src/windows.js';

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

describe('settled windows', () => {
  const at = (instant: string) => Date.parse(instant);

  it('settles a window once the margin has passed after its last day ended (UTC)', () => {
    const window = { to: '2026-11-22' };
    // The 22nd ends at the 23rd 00:00; one day of margin: settled from the 24th 00:00 on.
    expect(isSettled(window, at('2026-11-23T23:59:59.999Z'), 1)).toBe(false);
    expect(isSettled(window, at('2026-11-24T00:00:00.000Z'), 1)).toBe(true);
    expect(isSettled(window, at('2026-11-23T00:00:00.000Z'), 0)).toBe(true);
    expect(isSettled(window, at('2026-11-25T12:00:00.000Z'), 3)).toBe(false);
  });

  it('never settles a window reaching today or the future', () => {
    expect(isSettled({ to: '2026-11-24' }, at('2026-11-24T23:00:00Z'), 0)).toBe(false);
    expect(isSettled({ to: '2026-11-30' }, at('2026-11-24T12:00:00Z'), 0)).toBe(false);
    expect(isSettled({ to: '2027-01-31' }, at('2026-11-24T12:00:00Z'), 1)).toBe(false);
  });
});
