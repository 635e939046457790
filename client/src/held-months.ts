/**
 * Which of a pull folder's months a run's delta is merged into (delta-pass.ts): the folder's token
 * where it goes on for the run's range (its range within the run's: the service answers the days
 * added whole), each month's days the folder holds for it and their one manifest entry, and the
 * month each changed record goes to.
 */
import { DATASETS } from './datasets.js';
import { WindowFailure } from './fetch-window.js';
import type { Manifest, ManifestWindow } from './manifest.js';
import { overlaps } from './plan.js';
import type { Run } from './run-state.js';
import type { Window } from './windows.js';

/** The token of a delta, and what it was asked for: kept in the manifest when the folder holds it. */
export type Token = NonNullable<Manifest['delta']>;

/**
 * The folder's token where it can go on for the run's range: one of that range, or of a range
 * within it (a `--to` that moved on: the service answers the days added whole).
 */
export function within(token: Token | undefined, run: Run): Token | undefined {
  return token !== undefined && run.options.from <= token.from && token.to <= run.options.to ? token : undefined;
}

/** The days of `month` the folder holds for `token`: the month cut to the token's range (undefined: none of them). Without a token, the month. */
export function heldPart(month: Window, token: Token | undefined): Window | undefined {
  if (!token) return month;
  const from = month.from > token.from ? month.from : token.from;
  const to = month.to < token.to ? month.to : token.to;
  return from <= to ? { ...month, from, to } : undefined;
}

/** The field a record's window is found by: the day of its `--by` date. */
export function dateField(run: Run): string {
  return (DATASETS[run.options.dataset].dateFields as Readonly<Record<string, string>>)[run.options.by]!;
}

/** Whether `entry` is the only one of the manifest with days of `month` (a run of a longer range may have left another beyond a token's end). */
export function aloneIn(manifest: Manifest, entry: ManifestWindow, month: Window): boolean {
  return manifest.windows.every((listed) => listed === entry || !overlaps(listed, month));
}

/** The folder's one done entry of exactly `month`'s days, or undefined (held in parts, failed, or not at all). */
export function wholeEntry(manifest: Manifest, month: Window): ManifestWindow | undefined {
  const inside = manifest.windows.filter((entry) => overlaps(entry, month));
  const entry = inside[0];
  return inside.length === 1 && entry && entry.status === 'done' && entry.from === month.from && entry.to === month.to ? entry : undefined;
}

/** The changed records of each window, by the day of their date; a record in no window of the range fails the run. */
export function homesOf(run: Run, months: readonly Window[], days: Iterable<readonly [string, string]>, requestId: string | undefined): Map<Window, string[]> {
  const homes = new Map<Window, string[]>();
  for (const [id, day] of days) {
    const month = months.find((window) => window.from <= day && day <= window.to);
    if (!month) throw new WindowFailure(`the delta holds ${id} of ${dateField(run)} ${day || 'none'}, in no window of ${run.options.from}..${run.options.to}: the folder is left as it was`, requestId);
    const mine = homes.get(month);
    if (mine) mine.push(id);
    else homes.set(month, [id]);
  }
  return homes;
}
