import { ApiError, echo, type FieldError } from '../errors/api-error.js';
import type { Source } from '../model/member-rules.js';
import { fieldSpec, membersOf, type ResourceDefinition } from '../model/resource-definition.js';
import { PAGE_DEFAULTS } from '../model/operation-contract.js';
import type { FilterValue, SummaryQuery } from '../model/summary-query.js';
import type { View } from '../model/view.js';
import { unreachable } from '../util/unreachable.js';
import { PAGINATION_MEMBERS, type FilterMember } from './filter-members.js';
import { checkDateRanges, type RangeRules } from './check-date-ranges.js';

const NONE: readonly string[] = [];

/** Query-string parameters that are not filters: `code` carries an Azure Functions key. */
export const RESERVED_QUERY: ReadonlySet<string> = new Set(['code']);

/** Inputs of `parseFilters`. */
export interface FilterInput {
  /** The parsed JSON body; `undefined` when the body was empty. */
  readonly body: unknown;
  readonly query: URLSearchParams;
  /** What the caller may see: `orderBy` and field filters are checked against it. */
  readonly view: View;
  /** The members the endpoint accepts (`filterMembers` of the view's resource). */
  readonly members: Readonly<Record<string, FilterMember>>;
  readonly maxPageSize: number;
  /**
   * The media type of the export asked for (the one the Accept header chose), absent for JSON
   * pages: with it, `page` and `pageSize` are refused wherever they are given, the message naming it.
   */
  readonly exportMediaType?: string;
  /** The date ranges' rules: one month (the summary operations, the default) or open (a delta). */
  readonly ranges?: RangeRules;
}

/**
 * Validates and merges the body and query-string filters (the body wins) into a `SummaryQuery`.
 * Collects every problem and throws one 400 `ApiError` listing them.
 */
export function parseFilters({ body, query, view, members, maxPageSize, exportMediaType, ranges: rules = 'oneMonth' }: FilterInput): SummaryQuery {
  const { resource } = view;
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw new ApiError('INVALID_BODY', 'The body must be a JSON object of filters, for example {"createdFrom":"2025-01-01","createdTo":"2025-01-31"}, or empty.');
  }
  const errors: FieldError[] = [];
  const given: Record<string, string | number> = {};

  const take = (name: string, raw: unknown, source: Source) => {
    if (exportMediaType !== undefined && PAGINATION_MEMBERS.has(name)) {
      errors.push({ member: name, code: 'PAGINATION_NOT_ALLOWED', message: `${name} cannot be sent with Accept: ${exportMediaType}: an export is the whole result. Leave ${name} out, or ask for JSON.` });
      return;
    }
    const rule = Object.hasOwn(members, name) ? members[name]!.rule : undefined;
    if (!rule) {
      errors.push(unknownMember(name, Object.keys(members), source));
      return;
    }
    const result = rule.schema[source].safeParse(raw);
    if (result.success) given[name] = result.data;
    else errors.push({ member: name, code: rule.code, message: `${name} must be ${rule.expected}.` });
  };

  for (const name of query.size === 0 ? NONE : new Set(query.keys())) {
    if (RESERVED_QUERY.has(name)) continue;
    const values = query.getAll(name);
    if (body !== undefined && Object.hasOwn(body, name)) continue; // the body wins
    if (values.length > 1) errors.push({ member: echo(name), code: 'INVALID_FILTER', message: `${echo(name)} is given ${values.length} times in the query string; give it once.` });
    else take(name, values[0], 'query');
  }
  for (const [name, raw] of Object.entries(body ?? {})) take(name, raw, 'body');

  const ranges = checkDateRanges(resource, given, rules);
  errors.push(...ranges.errors);
  errors.push(...checkVisibility(given, view));
  if (typeof given.pageSize === 'number' && given.pageSize > maxPageSize && !errors.some((e) => e.member === 'pageSize')) {
    errors.push({ member: 'pageSize', code: 'PAGE_SIZE_TOO_LARGE', message: `pageSize may be at most ${maxPageSize}; ask for more pages, or export Parquet.` });
  }
  if (errors.length > 0) throw ApiError.fromFieldErrors(capped(errors) as [FieldError, ...FieldError[]]);

  const filters: FilterValue[] = [];
  for (const filter of resource.filters) {
    switch (filter.kind) {
      case 'equals':
        if (typeof given[filter.member] === 'string') filters.push({ kind: 'equals', field: fieldSpec(resource, filter.field), value: given[filter.member] as string });
        break;
      case 'dayRange': {
        const range = ranges.filters.get(filter);
        if (range) filters.push(range);
        break;
      }
      default:
        unreachable(filter, 'filter kind');
    }
  }
  const { drafts } = resource;
  const matchesNothing = drafts !== undefined && !view.drafts && filters.some((filter) => asksForDrafts(filter, drafts));
  return {
    resource,
    filters,
    matchesNothing,
    orderBy: (given.orderBy as string | undefined) ?? resource.defaultOrder.orderBy,
    order: (given.order as 'asc' | 'desc' | undefined) ?? resource.defaultOrder.order,
    page: (given.page as number | undefined) ?? PAGE_DEFAULTS.page,
    pageSize: (given.pageSize as number | undefined) ?? PAGE_DEFAULTS.pageSize,
    given,
  };
}

/** Whether a filter asks for the drafts status alone (which a caller without the Drafts grant never sees). */
function asksForDrafts(filter: FilterValue, drafts: NonNullable<ResourceDefinition['drafts']>): boolean {
  switch (filter.kind) {
    case 'equals':
      return filter.field.name === drafts.field && filter.value === drafts.value;
    case 'dayRange':
      return false;
    default:
      return unreachable(filter, 'filter kind');
  }
}

/** Problems listed at most; a 64 KiB body of junk members must not become a 2 MB answer. */
const MAX_ERRORS = 20;

function capped(errors: FieldError[]): FieldError[] {
  if (errors.length <= MAX_ERRORS) return errors;
  const first = errors[0]!;
  return [...errors.slice(0, MAX_ERRORS - 1), { member: 'body', code: first.code, message: `${errors.length - MAX_ERRORS + 1} more problems are not listed; fix these first.` }];
}

/** The problem of a member that is no filter of the endpoint, with the known ones or the one it mistook the case of. */
export function unknownMember(name: string, known: readonly string[], source: Source): FieldError {
  const sameName = known.find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  const hint = sameName
    ? `Filter names are case-sensitive: did you mean ${sameName}?`
    : `Known filters: ${known.join(', ')}.`;
  return { member: echo(name), code: 'UNKNOWN_FILTER', message: `${echo(name)} (in the ${source === 'body' ? 'body' : 'query string'}) is not a filter of this endpoint. ${hint}` };
}

/**
 * `orderBy` and filters may only name fields the caller can see: a filter on a hidden field would
 * let a caller probe the values its roles hide. This is the filters' role gate, derived from each
 * filter's field, so a new filter cannot forget it.
 */
function checkVisibility(given: Record<string, string | number>, view: View): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof given.orderBy === 'string' && !view.sortable.includes(given.orderBy)) {
    errors.push({ member: 'orderBy', code: 'INVALID_ORDER_BY', message: `orderBy must be one of the fields you can sort by: ${view.sortable.join(', ')}.` });
  }
  for (const filter of view.resource.filters) {
    if (view.fields.some((field) => field.name === filter.field)) continue;
    for (const member of membersOf(filter)) {
      if (!(member in given)) continue;
      const what = member === filter.field ? member : `${member} (a filter on ${filter.field})`;
      errors.push({ member, code: 'INVALID_FILTER', message: `${what} is not a field your roles can see, so you cannot filter by it.` });
    }
  }
  return errors;
}
