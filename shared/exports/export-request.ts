/**
 * What an export job's kick-off asks for: the summary operation's filters and order over a date
 * range of many calendar months, and the ETags the caller holds per month. Every window is checked
 * as the summary operation would check its request, so a job is refused with that operation's
 * 400s before anything is recorded.
 */
import { ApiError, echo, type FieldError } from '../errors/api-error.js';
import { checkDayRange, type RangeSpan } from '../filters/check-date-ranges.js';
import { PAGINATION_MEMBERS, type FilterMember } from '../filters/filter-members.js';
import { parseFilters, RESERVED_QUERY, unknownMember } from '../filters/parse-filters.js';
import { parseIfNoneMatch } from '../results/if-none-match.js';
import { PARQUET_MEDIA_TYPE } from '../model/operation-contract.js';
import type { DayRangeFilter } from '../model/resource-definition.js';
import type { SummaryQuery } from '../model/summary-query.js';
import type { View } from '../model/view.js';
import { monthsTouched, monthWindows } from './export-windows.js';
import type { ExportWindow } from '../store/export-jobs.js';

/** The request member that carries the caller's ETags per window. */
export const IF_NONE_MATCH_MEMBER = 'ifNoneMatch';

/** A kick-off, understood. */
export interface ExportRequest {
  /** The filters and order as the caller gave them, the whole range included (no `ifNoneMatch`). */
  readonly given: Readonly<Record<string, string>>;
  /** The request members of the range the job is cut into months along (`createdFrom`/`createdTo` or `updatedFrom`/`updatedTo`). */
  readonly range: { readonly from: string; readonly to: string };
  readonly windows: readonly ExportWindow[];
  /** Window label → the caller's ETag of it (as sent: an entity tag, or a list of them). Labels outside the range are left out. */
  readonly ifNoneMatch: Readonly<Record<string, string>>;
}

/** What `parseExportRequest` checks a kick-off against. */
export interface ExportRequestInput {
  readonly body: unknown;
  readonly query: URLSearchParams;
  readonly view: View;
  readonly members: Readonly<Record<string, FilterMember>>;
  readonly maxPageSize: number;
  /** The most calendar months a job's range may touch (EXPORT_MAX_MONTHS). */
  readonly maxMonths: number;
}

/**
 * Checks a kick-off and cuts its range into calendar months. Every problem is one 400 listing
 * them, in the summary operation's codes: the range's (both ends, real days, in order, at most
 * `maxMonths` months), then every filter as that operation checks it.
 *
 * @example
 * parseExportRequest({ body: { createdFrom: '2025-01-01', createdTo: '2025-12-31' }, query, view, members, maxPageSize: 1000, maxMonths: 36 }).windows.length; // 12
 */
export function parseExportRequest({ body, query, view, members, maxPageSize, maxMonths }: ExportRequestInput): ExportRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('INVALID_BODY', 'The body must be a JSON object: the filters of the summary operation with a date range of any number of months, for example {"createdFrom":"2024-01-01","createdTo":"2025-12-31"}.');
  }
  const errors: FieldError[] = [];
  for (const name of query.keys()) {
    if (RESERVED_QUERY.has(name)) continue;
    errors.push({ member: echo(name), code: 'INVALID_FILTER', message: `${echo(name)} is in the query string: an export job takes its filters in the JSON body only.` });
  }
  // No prototype: a member named __proto__ is a member like any other, refused below as an unknown filter.
  const given: Record<string, string> = Object.create(null) as Record<string, string>;
  let ifNoneMatchValue: unknown;
  for (const [name, value] of Object.entries(body)) {
    if (name === IF_NONE_MATCH_MEMBER) ifNoneMatchValue = value;
    else if (!Object.hasOwn(members, name)) errors.push(unknownMember(name, Object.keys(members).filter((known) => !PAGINATION_MEMBERS.has(known)), 'body'));
    else if (PAGINATION_MEMBERS.has(name)) errors.push({ member: name, code: 'PAGINATION_NOT_ALLOWED', message: `${name} cannot be sent to an export job: its files hold the whole result of every window. Leave ${name} out.` });
    // Every filter is text; a value of another type is refused below, by the filter's own rule.
    else given[name] = value as string;
  }
  const range = pickRange(view, given, errors);
  let windows: ExportWindow[] = [];
  const days = range && checkDayRange(range, given, monthsSpan(maxMonths), errors);
  if (days) windows = monthWindows(days.fromDay, days.toDay);
  const ifNoneMatch = parseWindowEtags(ifNoneMatchValue, errors);
  if (errors.length === 0 && range && windows.length > 0) {
    // Every window is the same request but for its range: the first one's problems are every one's.
    try {
      windowQuery({ given, range }, windows[0]!, { view, members, maxPageSize });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      errors.push(...error.errors);
      if (error.errors.length === 0) throw error;
    }
  }
  if (errors.length > 0) throw ApiError.fromFieldErrors(errors as [FieldError, ...FieldError[]]);
  const labels = new Set(windows.map((window) => window.label));
  return {
    given,
    range: range!,
    windows,
    ifNoneMatch: Object.fromEntries(Object.entries(ifNoneMatch).filter(([label]) => labels.has(label))),
  };
}

/**
 * The summary query of one window of a job: the job's filters with the window's days as its
 * range, checked as the summary operation checks a request (the same query, so the same ETag).
 */
export function windowQuery(
  request: Pick<ExportRequest, 'given' | 'range'>,
  window: ExportWindow,
  context: { readonly view: View; readonly members: Readonly<Record<string, FilterMember>>; readonly maxPageSize: number },
): SummaryQuery {
  return parseFilters({
    body: { ...request.given, [request.range.from]: window.from, [request.range.to]: window.to },
    query: new URLSearchParams(),
    view: context.view,
    members: context.members,
    maxPageSize: context.maxPageSize,
    exportMediaType: PARQUET_MEDIA_TYPE,
  });
}

/** The one date range of the request: a job is cut into months along exactly one. */
function pickRange(view: View, given: Readonly<Record<string, string>>, errors: FieldError[]): { from: string; to: string } | undefined {
  const ranges = view.resource.filters.filter((filter): filter is DayRangeFilter => filter.kind === 'dayRange');
  const present = ranges.filter((range) => Object.hasOwn(given, range.from) || Object.hasOwn(given, range.to));
  const names = ranges.map((range) => `${range.from}/${range.to}`).join(' or ');
  if (present.length === 1) return { from: present[0]!.from, to: present[0]!.to };
  if (present.length === 0) {
    errors.push({ member: ranges[0]?.from ?? 'body', code: 'DATE_RANGE_INCOMPLETE', message: `An export job needs a date range: ${names}, both ends, of any number of calendar months.` });
  } else {
    errors.push({ member: present[1]!.from, code: 'INVALID_FILTER', message: `An export job is cut into months along one date range; give ${names}, not both.` });
  }
  return undefined;
}

/** An export job's span: at most `maxMonths` calendar months touched. */
function monthsSpan(maxMonths: number): RangeSpan {
  return (_range, fromDay, toDay) => {
    const months = monthsTouched(fromDay, toDay);
    return months <= maxMonths ? undefined : `An export job spans at most ${maxMonths} calendar months; this range touches ${months}. Start one job per part of the range.`;
  };
}

/** A manifest's windows as [label, etag] entries (those without an ETag left out), or null when it is not an array of windows. */
function windowEntries(value: readonly unknown[]): [string, unknown][] | null {
  const entries: [string, unknown][] = [];
  for (const item of value) {
    const window = item as { label?: unknown; etag?: unknown } | null;
    if (typeof window !== 'object' || window === null || Array.isArray(window) || typeof window.label !== 'string') return null;
    if (window.etag !== undefined && window.etag !== null) entries.push([window.label, window.etag]);
  }
  return entries;
}

/** At most this many windows' ETags: more than any job has windows. */
const MAX_ETAGS = 1000;
const LABEL = /^\d{4}-(0[1-9]|1[0-2])$/;

/**
 * `ifNoneMatch`: an object from window label (`YYYY-MM`) to an ETag (or a list, as in the header);
 * or a manifest's `windows` as they are, an array of objects with `label` and `etag` (other members
 * ignored, as are windows without an ETag: failed or pending ones), which a tool that cannot build
 * an object (Data Factory) sends from last run's manifest.
 */
function parseWindowEtags(value: unknown, errors: FieldError[]): Record<string, string> {
  if (value === undefined) return {};
  const member = IF_NONE_MATCH_MEMBER;
  const windows = Array.isArray(value) ? windowEntries(value) : undefined;
  if (windows === null || typeof value !== 'object' || value === null) {
    errors.push({ member, code: 'INVALID_PRECONDITION', message: `${member} must be an object from window label to the ETag you hold for it, for example {"2025-01":"W/\\"4f2a…\\""}, or a manifest's windows as they are ([{"label":"2025-01","etag":"W/\\"4f2a…\\""}, …]).` });
    return {};
  }
  const entries = windows ?? Object.entries(value);
  if (entries.length > MAX_ETAGS) {
    errors.push({ member, code: 'INVALID_PRECONDITION', message: `${member} has ${entries.length} windows; send at most ${MAX_ETAGS}.` });
    return {};
  }
  const etags: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [label, etag] of entries) {
    const at = `${member}.${echo(label)}`;
    if (!LABEL.test(label)) {
      errors.push({ member: at, code: 'INVALID_PRECONDITION', message: `${at}: a window's label is its calendar month, YYYY-MM.` });
      continue;
    }
    if (Object.hasOwn(etags, label)) {
      errors.push({ member: at, code: 'INVALID_PRECONDITION', message: `${at} is given more than once; send one ETag per window.` });
      continue;
    }
    try {
      if (typeof etag !== 'string' || etag.trim() === '*' || parseIfNoneMatch(etag) === undefined) throw new TypeError('not an entity tag');
      etags[label] = etag;
    } catch {
      errors.push({ member: at, code: 'INVALID_PRECONDITION', message: `${at} must be the ETag the manifest or the summary operation gave you for that window, for example "W/\\"4f2a…\\"".` });
    }
  }
  return etags;
}
