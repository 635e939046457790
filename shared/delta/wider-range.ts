/**
 * A token asked again with its date range made wider (docs/api.md, "Deltas"): a nightly job whose
 * range ends today asks tomorrow with tomorrow's end. Its state holds every record it gave of the
 * old range, so the delta of the wider range is the old range's changes since the state, as ever,
 * and every record of the days added, whatever its write time: the caller was given none of them.
 * Only a range made wider, the other filters the same: a narrower range would owe a removal row for
 * every record left outside it, which the state's keys (creation times) cannot tell for every range.
 */
import type { FilterValue, SummaryQuery } from '../model/summary-query.js';
import { civilDayAt, formatCivilDay } from '../util/civil-days.js';

/** A filter as a state keeps it: an equality's field and value, or a date range's field and days. */
export type FilterKey = readonly [field: string, value: string] | readonly [field: string, from: string, to: string];

/** Days of one date range a request adds to its token's: read whole. */
export interface AddedDays {
  readonly field: string;
  readonly from: string;
  readonly to: string;
}

export function filterKeys(query: SummaryQuery): FilterKey[] {
  return query.filters.map((filter) => (filter.kind === 'equals' ? [filter.field.name, filter.value] : [filter.field.name, filter.from, filter.to]));
}

/**
 * The days `asked` adds to `kept`: the same filters in the same order but one date range, which
 * starts on or before the kept one's start and ends on or after its end. Undefined for any other
 * difference (the token was given for other filters); none for the same filters.
 */
export function addedDays(kept: readonly FilterKey[], asked: readonly FilterKey[]): AddedDays[] | undefined {
  if (kept.length !== asked.length) return undefined;
  let added: AddedDays[] | undefined;
  for (const [index, was] of kept.entries()) {
    const now = asked[index]!;
    if (now.length === was.length && now.every((part, at) => part === was[at])) continue;
    if (added || was.length !== 3 || now.length !== 3 || now[0] !== was[0] || now[1] > was[1] || now[2] < was[2]) return undefined;
    const [field, from, to] = now;
    added = [
      ...(from < was[1] ? [{ field, from, to: dayBefore(was[1]) }] : []),
      ...(to > was[2] ? [{ field, from: dayAfter(was[2]), to }] : []),
    ];
  }
  return added ?? [];
}

/** The query of the added days: the request's, its date range cut to them. */
export function queryOfDays(query: SummaryQuery, days: AddedDays): SummaryQuery {
  const cut = (filter: FilterValue): FilterValue => (filter.kind === 'dayRange' && filter.field.name === days.field ? { ...filter, from: days.from, to: days.to } : filter);
  return { ...query, filters: query.filters.map(cut) };
}

function dayBefore(day: string): string {
  return formatCivilDay(civilDayAt(day, 0) - 1);
}

function dayAfter(day: string): string {
  return formatCivilDay(civilDayAt(day, 0) + 1);
}
