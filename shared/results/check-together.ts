/**
 * Neighbouring windows of one query checked by one aggregate over their days, where the version
 * behind each window's ETag is known and every one of those versions was taken after all of their
 * latest writes (by QUIET_SECONDS). Then any write since lifts the aggregate's latest write above
 * theirs, and a delete alone lowers its count: an aggregate equal to their versions added up
 * means each window is as its ETag says (docs/decisions.md, "How many aggregates a kick-off asks").
 */
import type { SummaryQuery } from '../model/summary-query.js';
import type { Scope } from '../model/view.js';
import { isMoving } from '../output/result-etag.js';
import type { RecordStore, StoreMeter, TakenVersion } from '../store/record-store.js';

/** One window of the run: its query, and the version behind the caller's ETag for it. */
export interface KnownWindow {
  readonly query: SummaryQuery;
  readonly version: TakenVersion;
}

/**
 * Every version was taken when all of the windows' writes were older than QUIET_SECONDS: only
 * such a run can be checked together (a version taken while writes still land may miss some).
 */
export function settledTogether(windows: readonly KnownWindow[]): boolean {
  const latestWrite = Math.max(...windows.map(({ version }) => version.latestWrite));
  return windows.every(({ version }) => !isMoving(latestWrite, version.takenAt));
}

/**
 * Whether none of the neighbouring `windows` (in order, settled together) changed since their
 * versions: one aggregate over their days. `takenAt` is when it was taken: the new version of
 * each window, when unchanged, is its recorded one as of then.
 */
export async function checkTogether(scope: Scope, windows: readonly KnownWindow[], deps: { readonly store: Pick<RecordStore, 'version'>; readonly clock: () => number }, meter: StoreMeter): Promise<{ readonly unchanged: boolean; readonly takenAt: number }> {
  const takenAt = deps.clock();
  const now = await deps.store.version(scope, joined(windows[0]!.query, windows.at(-1)!.query), meter);
  const records = windows.reduce((total, { version }) => total + version.records, 0);
  const latestWrite = Math.max(...windows.map(({ version }) => version.latestWrite));
  return { unchanged: now.records === records && now.latestWrite === latestWrite, takenAt };
}

/**
 * The query of neighbouring windows together: every filter the same, the day range from the first
 * window's first day to the last one's last. Neighbouring day ranges meet with no text between
 * them (build-sql.ts), so it matches exactly the records the windows' own queries match.
 */
function joined(first: SummaryQuery, last: SummaryQuery): SummaryQuery {
  return {
    ...first,
    filters: first.filters.map((filter, index) => {
      const other = last.filters[index];
      return filter.kind === 'dayRange' && other?.kind === 'dayRange' ? { ...filter, to: other.to } : filter;
    }),
  };
}
