import type { FieldError } from '../errors/api-error.js';
import { fieldSpec, type DayRangeFilter, type ResourceDefinition } from '../model/resource-definition.js';
import type { FilterValue } from '../model/summary-query.js';
import { calendarMonthOf, formatDay, oneMonthAfter, parseCalendarDate } from './calendar-date.js';

/** The ranges that passed, and the problems of those that did not. */
export interface DateRangeCheck {
  readonly filters: ReadonlyMap<DayRangeFilter, FilterValue>;
  readonly errors: FieldError[];
}

/**
 * Applies the date rules to each From/To pair of a resource: real calendar dates, both ends given,
 * From ≤ To, and To at most one calendar month after From (clamped to month end). Days are UTC,
 * To inclusive.
 */
export function checkDateRanges(resource: ResourceDefinition, given: Readonly<Record<string, string | number>>): DateRangeCheck {
  const filters = new Map<DayRangeFilter, FilterValue>();
  const errors: FieldError[] = [];
  for (const range of resource.filters) {
    if (range.kind !== 'dayRange') continue;
    const from = given[range.from];
    const to = given[range.to];
    if (from === undefined && to === undefined) continue;
    const fromDay = typeof from === 'string' ? parseCalendarDate(from) : undefined;
    const toDay = typeof to === 'string' ? parseCalendarDate(to) : undefined;
    let ok = true;
    for (const [member, value, day] of [[range.from, from, fromDay], [range.to, to, toDay]] as const) {
      if (value !== undefined && day === undefined) {
        errors.push({ member, code: 'INVALID_DATE', message: `${member} must be a real calendar date YYYY-MM-DD, for example 2025-01-31.` });
        ok = false;
      }
    }
    if (!ok) continue;
    if (fromDay === undefined || toDay === undefined) {
      const missing = fromDay === undefined ? range.from : range.to;
      errors.push({ member: missing, code: 'DATE_RANGE_INCOMPLETE', message: `${range.from} and ${range.to} go together: add ${missing}.` });
    } else if (fromDay > toDay) {
      errors.push({ member: range.to, code: 'DATE_RANGE_REVERSED', message: `${range.from} must be on or before ${range.to}.` });
    } else if (toDay > oneMonthAfter(fromDay)) {
      errors.push({
        member: range.to,
        code: 'DATE_RANGE_TOO_LONG',
        message: `A range spans at most one month: with ${range.from} ${formatDay(fromDay)}, ${range.to} may be at most ${formatDay(oneMonthAfter(fromDay))}. To pull longer periods, use calendar months that never overlap: ${range.from} ${formatDay(calendarMonthOf(fromDay).first)} with ${range.to} ${formatDay(calendarMonthOf(fromDay).last)}, then the next month.`,
      });
    } else {
      // A real calendar date's text is its own YYYY-MM-DD (parseCalendarDate takes no other form).
      filters.set(range, { kind: 'dayRange', field: fieldSpec(resource, range.field), from: from as string, to: to as string });
    }
  }
  return { filters, errors };
}
