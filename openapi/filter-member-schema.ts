import { unreachable } from '../shared/util/unreachable.js';
import { formatDay, oneMonthAfter, parseCalendarDate } from '../shared/filters/calendar-date.js';
import { filterMembers, PAGINATION_MEMBERS } from '../shared/filters/filter-members.js';
import type { Source } from '../shared/model/member-rules.js';
import type { DayRangeFilter, ResourceDefinition } from '../shared/model/resource-definition.js';
import type { ApiModel } from './api-model.js';
import type { JsonObject } from './json-schema.js';
import { draftRoles, gatingRoles } from './role-grants.js';
import type { ServiceDefaults } from './service-defaults.js';
import { toJsonSchema } from './json-schema.js';
import { exportMediaTypes as exportMediaTypesOf } from '../shared/model/operation-contract.js';

/**
 * The JSON Schema of one filter member as it is accepted from `source` (a JSON body keeps JSON
 * types, the query string carries text), from the member's zod schema, with the rules zod cannot
 * express (date ranges, visibility, defaults, limits) written into its description.
 */
export function filterMemberSchema(model: ApiModel, resource: ResourceDefinition, name: string, source: Source, defaults: ServiceDefaults): JsonObject {
  const member = Object.hasOwn(filterMembers(resource), name) ? filterMembers(resource)[name] : undefined;
  if (member === undefined) throw new TypeError(`${name} is not a filter of ${resource.name}`);
  const { rule, filter } = member;
  // page and pageSize are whole numbers in the query string too: described as integers there, so
  // a generic client sends what the service takes, within the same bounds as the body's.
  const numeric = PAGINATION_MEMBERS.has(name);
  const schema = toJsonSchema(rule.schema[numeric ? 'body' : source], 'input');
  // A query-string value is text, so its default is too (but for the numbers above).
  const setDefault = (value: string | number) => { schema.default = source === 'query' && !numeric ? String(value) : value; };
  const notes = [`Must be ${rule.expected}; otherwise 400 \`${rule.code}\`.`];

  // What each kind of filter adds; the control members (order, pages) have none.
  if (filter) {
    switch (filter.kind) {
      case 'dayRange':
        schema.format = 'date';
        // The field the range is on, for generated clients (a pull files a delta's records by it).
        schema['x-summary-field'] = filter.field;
        notes.push(dateRangeNote(filter));
        break;
      case 'equals':
        if (resource.drafts?.field === filter.field) notes.push(`\`${resource.drafts.value}\` matches nothing for callers without ${draftRoles(model.datapoints).map((role) => `\`${role}\``).join(' or ')}.`);
        break;
      default:
        unreachable(filter, 'filter kind');
    }
  }
  if (name === 'orderBy') {
    schema.enum = [...resource.sortable];
    setDefault(defaults.orderBy);
    notes.push(orderByNote(model, resource));
  }
  if (name === 'order') setDefault(defaults.order);
  if (name === 'page') {
    setDefault(defaults.page);
    notes.push('A page past the last one answers 200 with empty data and a meta.warning, however deep it is (the store is not read past the count).');
  }
  if (name === 'pageSize') {
    setDefault(defaults.pageSize);
    schema.maximum = defaults.maxPageSize;
    notes.push(`At most MAX_PAGE_SIZE (default ${defaults.maxPageSize}; more is 400 \`PAGE_SIZE_TOO_LARGE\`). A jump to a page that has records may reach at most record MAX_RESULT_WINDOW (page × pageSize ≤ ${defaults.maxResultWindow} by default; deeper is 400 \`RESULT_WINDOW_EXCEEDED\`: walk there page by page, narrow the filters or export Parquet); a page past the last one is empty, not refused.`);
  }
  if (PAGINATION_MEMBERS.has(name)) {
    notes.push(`JSON only: together with an Accept that chooses an export (${exportMediaTypesOf(resource).map((type) => `\`${type}\``).join(' or ')}) it is 400 \`PAGINATION_NOT_ALLOWED\` (an export is the whole result).`);
  }
  // The same gate parseFilters applies: a filter on a field the caller cannot see is refused.
  const gatedBy = filter ? gatingRoles(model.datapoints, resource.name, filter.field) : undefined;
  if (gatedBy !== undefined) {
    notes.push(`Filters on a field that only ${gatedBy} shows: without that role it is 400 \`INVALID_FILTER\` (filtering would reveal the field).`);
  }
  schema.description = notes.join(' ');
  return schema;
}

function dateRangeNote(range: DayRangeFilter): string {
  const example = (from: string) => formatDay(oneMonthAfter(parseCalendarDate(from) ?? 0));
  return `Part of the range \`${range.from}\`–\`${range.to}\` on ${range.field} (UTC days, both inclusive): `
    + `give both ends (else 400 \`DATE_RANGE_INCOMPLETE\`), ${range.from} ≤ ${range.to} (else 400 \`DATE_RANGE_REVERSED\`), `
    + `and ${range.to} at most one calendar month after ${range.from} — the same day next month, clamped to that month's end `
    + `(from 2025-01-31 up to ${example('2025-01-31')}; from 2025-01-15 up to ${example('2025-01-15')}); longer is 400 \`DATE_RANGE_TOO_LONG\`.`;
}

function orderByNote(model: ApiModel, resource: ResourceDefinition): string {
  const gated = resource.sortable
    .map((field) => [field, gatingRoles(model.datapoints, resource.name, field)] as const)
    .filter((entry): entry is readonly [string, string] => entry[1] !== undefined)
    .map(([field, roles]) => `${field} needs ${roles}`);
  return `One of the listed fields that the caller can also see${gated.length > 0 ? ` (${gated.join('; ')})` : ''}; the error's message lists the caller's sortable fields. Ties are broken by the record id in the same direction, so pages are stable.`;
}
