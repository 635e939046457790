import type { FieldError } from '../errors/api-error.js';
import { fieldSpec, type DayRangeFilter, type ResourceDefinition } from '../model/resource-definition.js';
import type { FilterValue } from '../model/summary-query.js';
import { OPEN_RANGE } from '../model/delta-operations.js';
import { calendarMonthOf, formatDay, oneMonthAfter, parseCalendarDate } from './calendar-date.js';

/** The ranges that passed, and the problems of those that did not. */
export interface DateRangeCheck {
  readonly filters: ReadonlyMap<DayRangeFilter, FilterValue>;
  readonly errors: FieldError[];
}

/** How long a range may be: the message of a range from `fromDay` to `toDay` that is too long, or undefined. */
export type RangeSpan = (range: { readonly from: string; readonly to: string }, fromDay: number, toDay: number) => string | undefined;

/** The summary operation's span: To at most one calendar month after From (clamped to month end). */
const ONE_MONTH: RangeSpan = (range, fromDay, toDay) => (toDay <= oneMonthAfter(fromDay) ? undefined
  : `A range spans at most one month: with ${range.from} ${formatDay(fromDay)}, ${range.to} may be at most ${formatDay(oneMonthAfter(fromDay))}. To pull longer periods, use calendar months that never overlap: ${range.from} ${formatDay(calendarMonthOf(fromDay).first)} with ${range.to} ${formatDay(calendarMonthOf(fromDay).last)}, then the next month.`);

/**
 * The date rules of one From/To pair, the same for every operation: real calendar dates, both
 * ends given, From ≤ To, and no longer than `span` allows. Days are UTC, To inclusive. Returns
 * the pair's days, or undefined with what was wrong added to `errors`.
 */
export function checkDayRange(range: { readonly from: string; readonly to: string }, given: Readonly<Record<string, unknown>>, span: RangeSpan, errors: FieldError[]): { readonly fromDay: number; readonly toDay: number } | undefined {
  const from = given[range.from];
  const to = given[range.to];
  const fromDay = typeof from === 'string' ? parseCalendarDate(from) : undefined;
  const toDay = typeof to === 'string' ? parseCalendarDate(to) : undefined;
  let ok = true;
  for (const [member, value, day] of [[range.from, from, fromDay], [range.to, to, toDay]] as const) {
    if (value !== undefined && day === undefined) {
      errors.push({ member, code: 'INVALID_DATE', message: `${member} must be a real calendar date YYYY-MM-DD, for example 2025-01-31.` });
      ok = false;
    }
  }
  if (!ok) return undefined;
  if (fromDay === undefined || toDay === undefined) {
    const missing = fromDay === undefined ? range.from : range.to;
    errors.push({ member: missing, code: 'DATE_RANGE_INCOMPLETE', message: `${range.from} and ${range.to} go together: add ${missing}.` });
    return undefined;
  }
  if (fromDay > toDay) {
    errors.push({ member: range.to, code: 'DATE_RANGE_REVERSED', message: `${range.from} must be on or before ${range.to}.` });
    return undefined;
  }
  const tooLong = span(range, fromDay, toDay);
  if (tooLong !== undefined) {
    errors.push({ member: range.to, code: 'DATE_RANGE_TOO_LONG', message: tooLong });
    return undefined;
  }
  return { fromDay, toDay };
}

/** How long a range may be and whether it may be open: the summary operations' one month, or a delta's any span with either end left open. */
export type RangeRules = 'oneMonth' | 'open';

/** No bound on the span (a delta's range: docs/api.md, "Deltas"). */
const ANY_SPAN: RangeSpan = () => undefined;

/**
 * Applies the date rules (checkDayRange) to each From/To pair of a resource that the request
 * names: at most one month (the summary operations), or any span with either end open (a delta:
 * an open end is the first or last day a stored date can be).
 */
export function checkDateRanges(resource: ResourceDefinition, given: Readonly<Record<string, string | number>>, rules: RangeRules = 'oneMonth'): DateRangeCheck {
  const filters = new Map<DayRangeFilter, FilterValue>();
  const errors: FieldError[] = [];
  for (const range of resource.filters) {
    if (range.kind !== 'dayRange' || (given[range.from] === undefined && given[range.to] === undefined)) continue;
    const ends = rules === 'open' ? { [range.from]: OPEN_RANGE.from, [range.to]: OPEN_RANGE.to, ...given } : given;
    // A real calendar date's text is its own YYYY-MM-DD (parseCalendarDate takes no other form).
    if (checkDayRange(range, ends, rules === 'open' ? ANY_SPAN : ONE_MONTH, errors)) filters.set(range, { kind: 'dayRange', field: fieldSpec(resource, range.field), from: ends[range.from] as string, to: ends[range.to] as string });
  }
  return { filters, errors };
}
