import { DELTA_PAGE_MEMBER, DELTA_PAGE_PATTERN, DELTA_SINCE_MEMBER, DELTA_TOKEN_MEMBER, DELTA_TOKEN_PATTERN, INSTANT_PATTERN } from '../model/delta-operations.js';
import { dateRule, patternRule, positiveIntegerRule, stringRule, valuesRule, type MemberRule } from '../model/member-rules.js';
import type { FilterDefinition, ResourceDefinition } from '../model/resource-definition.js';
import { unreachable } from '../util/unreachable.js';

/** One request member of an endpoint: how it is checked, and the filter it belongs to (none for paging and order). */
export interface FilterMember {
  readonly rule: MemberRule;
  readonly filter?: FilterDefinition;
}

/** Members every endpoint has that choose order and page rather than filter. */
const CONTROL_MEMBERS: Readonly<Record<string, MemberRule>> = {
  orderBy: stringRule('INVALID_ORDER_BY', 'the name of a sortable field'),
  order: valuesRule(['asc', 'desc'], '"asc" or "desc"'),
  page: positiveIntegerRule('the page number'),
  pageSize: positiveIntegerRule('the page size'),
};

/** The members a Parquet export refuses (400 PAGINATION_NOT_ALLOWED). */
export const PAGINATION_MEMBERS: ReadonlySet<string> = new Set(['page', 'pageSize']);

const DATE = dateRule();

/**
 * The members an endpoint accepts, by their exact (case-sensitive) names: the resource's filters
 * in declaration order, then the control members. Made once per operation (summary-endpoint.ts).
 */
export function filterMembers(resource: ResourceDefinition): Readonly<Record<string, FilterMember>> {
  const entries: [string, FilterMember][] = resource.filters.flatMap((filter): [string, FilterMember][] => {
    switch (filter.kind) {
      case 'equals':
        return [[filter.member, { rule: filter.rule, filter }]];
      case 'dayRange':
        return [[filter.from, { rule: DATE, filter }], [filter.to, { rule: DATE, filter }]];
      default:
        return unreachable(filter, 'filter kind');
    }
  });
  for (const [name, rule] of Object.entries(CONTROL_MEMBERS)) {
    if (entries.some(([member]) => member === name)) throw new TypeError(`resource ${resource.name}: filter member ${name} is reserved`);
    entries.push([name, { rule }]);
  }
  return Object.freeze(Object.fromEntries(entries));
}

/**
 * The members of a resource's delta operation: its filters and page size, the token of the
 * last delta (or the time a copy made without one holds every write before) and the name of a
 * later page; never `page` (later pages are reached by their links) nor an order (a delta's rows
 * are merged by id, in no particular order: docs/api.md, "Deltas").
 */
export function deltaMembers(resource: ResourceDefinition): Readonly<Record<string, FilterMember>> {
  const { page: _page, orderBy: _orderBy, order: _order, ...members } = filterMembers(resource);
  return Object.freeze({
    ...members,
    [DELTA_TOKEN_MEMBER]: { rule: { ...patternRule(DELTA_TOKEN_PATTERN, 'the deltaToken of an earlier delta of this operation, as it was given (d1.…)'), code: 'INVALID_DELTA_TOKEN' } },
    [DELTA_PAGE_MEMBER]: { rule: patternRule(DELTA_PAGE_PATTERN, 'the deltaPage a delta\'s page named for its next page, as it was given') },
    [DELTA_SINCE_MEMBER]: { rule: patternRule(INSTANT_PATTERN, 'an ISO 8601 instant, for example 2026-11-28T02:00:00Z: the X-Summary-As-Of (watermark) of the copy you hold') },
  });
}
