/**
 * Date windows. The service takes From/To as UTC calendar days, both included, at most one month
 * apart; calendar months (01–31, then 01–28, ...) never overlap and never exceed that, so a range
 * is pulled month by month, and a month too large for one export is halved down to single days.
 */
import { OptionsError } from './client-error.js';

/** A window of whole UTC days, both ends included. */
export interface Window {
  /** The calendar month it belongs to, `YYYY-MM`. */
  readonly month: string;
  readonly from: string;
  readonly to: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** Date.UTC for every year: Date.UTC reads the years 0–99 as 1900–1999. */
function utcDay(year: number, monthIndex: number, day: number): number {
  return new Date(0).setUTCFullYear(year, monthIndex, day);
}

/** Parses `YYYY-MM-DD` as a real calendar day of the years 0001–9999 (the service's rule); undefined otherwise. */
export function parseDay(value: string): number | undefined {
  const match = DAY.exec(value);
  if (!match || match[1] === '0000') return undefined;
  const time = utcDay(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return formatDay(time) === value ? time : undefined;
}

/** The calendar day after `day` (`YYYY-MM-DD`). */
export function nextDay(day: string): string {
  return formatDay(Date.parse(`${day}T00:00:00Z`) + DAY_MS);
}

export function formatDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

function day(value: string): number {
  const time = parseDay(value);
  if (time === undefined) throw new OptionsError(`not a calendar day YYYY-MM-DD: ${value}`);
  return time;
}

/** The calendar-month windows of `from`..`to` (both included), the first and last cut to the range. */
export function monthWindows(from: string, to: string): Window[] {
  const start = day(from);
  const end = day(to);
  if (start > end) throw new OptionsError(`--from ${from} is after --to ${to}`);
  const windows: Window[] = [];
  for (let cursor = start; cursor <= end; ) {
    const last = Math.min(lastDayOfMonth(cursor), end);
    windows.push({ month: formatDay(cursor).slice(0, 7), from: formatDay(cursor), to: formatDay(last) });
    cursor = last + DAY_MS;
  }
  return windows;
}

/** The two halves of a window of more than one day (the first takes the middle day); null for one day. */
export function halves(window: Window): [Window, Window] | null {
  const start = day(window.from);
  const end = day(window.to);
  if (start === end) return null;
  const mid = start + Math.floor((end - start) / DAY_MS / 2) * DAY_MS;
  return [
    { month: window.month, from: window.from, to: formatDay(mid) },
    { month: window.month, from: formatDay(mid + DAY_MS), to: window.to },
  ];
}

/**
 * Whether a window still grows at `now`: its last day is yesterday (UTC) or later, so a run
 * tomorrow asks for a longer window of the same month. Only the name of its files depends on it
 * (fileLabel); every window, growing or not, is checked on every run.
 */
export function isGrowing(window: Pick<Window, 'to'>, now: number): boolean {
  return day(window.to) + 2 * DAY_MS > now;
}

/** The last day (its midnight, UTC) of the calendar month that `time` is in: the one place a month's end is worked out. */
function lastDayOfMonth(time: number): number {
  const date = new Date(time);
  return utcDay(date.getUTCFullYear(), date.getUTCMonth() + 1, 0);
}

/** The last day of the calendar month `YYYY-MM`. */
export function monthEnd(month: string): string {
  return formatDay(lastDayOfMonth(day(`${month}-01`)));
}

/**
 * The label a window's files are named by: its own; for a growing window, its label up to the end
 * of its month, so that the nightly runs of a range ending today replace one file in place
 * (`contracts-2026-11.parquet`, not a new `…-11-01_2026-11-24` every night).
 */
export function fileLabel(window: Window, growing: boolean): string {
  return growing ? windowLabel({ ...window, to: formatDay(lastDayOfMonth(day(window.from))) }) : windowLabel(window);
}

/** A window's file-name label: `YYYY-MM` for a whole calendar month, else `from_to` (a part of one). */
export function windowLabel(window: Window): string {
  return window.from.endsWith('-01') && window.to === formatDay(lastDayOfMonth(day(window.from))) ? window.month : `${window.from}_${window.to}`;
}
