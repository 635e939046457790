import { calendarMonthOf, formatDay } from '../filters/calendar-date.js';
import type { ExportWindow } from '../store/export-jobs.js';

/**
 * The calendar-month windows of the days `fromDay`..`toDay` (days since the epoch, both
 * included), the first and the last cut to the range: exactly the windows a month-by-month pull
 * asks the summary operation for, so each window's ETag is the one that operation answers.
 *
 * @example
 * monthWindows(parseCalendarDate('2025-01-15')!, parseCalendarDate('2025-02-10')!);
 * // [{ label: '2025-01', from: '2025-01-15', to: '2025-01-31' }, { label: '2025-02', from: '2025-02-01', to: '2025-02-10' }]
 */
export function monthWindows(fromDay: number, toDay: number): ExportWindow[] {
  const windows: ExportWindow[] = [];
  for (let day = fromDay; day <= toDay; ) {
    const last = Math.min(calendarMonthOf(day).last, toDay);
    const from = formatDay(day);
    windows.push({ label: from.slice(0, 7), from, to: formatDay(last) });
    day = last + 1;
  }
  return windows;
}

/** How many calendar months the days `fromDay`..`toDay` touch. */
export function monthsTouched(fromDay: number, toDay: number): number {
  const [fromYear, fromMonth] = formatDay(fromDay).split('-').map(Number) as [number, number];
  const [toYear, toMonth] = formatDay(toDay).split('-').map(Number) as [number, number];
  return (toYear - fromYear) * 12 + (toMonth - fromMonth) + 1;
}
