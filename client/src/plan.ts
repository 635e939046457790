/**
 * Which windows a run visits: every calendar month of the range, and every window the folder holds
 * outside it (all are kept exact), each with the manifest entries to check by their ETags, or none
 * when it must be pulled whole.
 */
import { checkableEntries, ManifestError, type Manifest, type ManifestWindow } from './manifest.js';
import type { Window } from './windows.js';

/** One window of a run: a month of the range, or a window the folder holds outside it; `parts`: the entries to check by ETag, or null to pull it whole. */
export interface Unit {
  readonly window: Window;
  readonly parts: readonly ManifestWindow[] | null;
}

/** The range's months, and every window the folder holds outside them, in date order. */
export function plan(manifest: Manifest, dir: string, months: readonly Window[]): Unit[] {
  for (const month of months) refuseStraddling(manifest, dir, month);
  const units: Unit[] = months.map((month) => ({ window: month, parts: checkableEntries(manifest, dir, month.from, month.to) }));
  // Entries outside the range that overlap (a failed month beside its done parts) are one window:
  // visited twice, one visit would undo the other's commit.
  const outside = manifest.windows.filter((entry) => !months.some((month) => overlaps(entry, month))).sort((a, b) => a.from.localeCompare(b.from));
  const extents: Window[] = [];
  for (const entry of outside) {
    const last = extents.at(-1);
    if (last && overlaps(entry, last)) extents[extents.length - 1] = { ...last, to: entry.to > last.to ? entry.to : last.to };
    else extents.push({ month: entry.from.slice(0, 7), from: entry.from, to: entry.to });
  }
  for (const window of extents) units.push({ window, parts: checkableEntries(manifest, dir, window.from, window.to) });
  return units.sort((a, b) => a.window.from.localeCompare(b.window.from));
}

/** Whether two windows share a day. */
export function overlaps(entry: Pick<Window, 'from' | 'to'>, window: Pick<Window, 'from' | 'to'>): boolean {
  return entry.from <= window.to && entry.to >= window.from;
}

/**
 * A window about to be pulled replaces what the manifest holds inside it. An entry reaching
 * outside it would be pulled twice in part: refused, the folder left as it is.
 */
function refuseStraddling(manifest: Manifest, dir: string, window: Window): void {
  const straddling = manifest.windows.find((entry) => entry.status !== 'failed' && overlaps(entry, window) && (entry.from < window.from || entry.to > window.to));
  if (straddling) {
    throw new ManifestError(`${dir} holds ${straddling.from}..${straddling.to}, which ${window.from}..${window.to} overlaps only in part: pulling it would duplicate records. Pull whole months (or the same days as before), or into another --out`);
  }
}
