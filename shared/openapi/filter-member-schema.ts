import { BASE_ROLE } from '../access/datapoints.js';
import { formatDay, oneMonthAfter, parseCalendarDate } from '../filters/calendar-date.js';
import { DATE_RANGES, FILTER_MEMBERS, type Source } from '../filters/filter-members.js';
import { PAGINATION_MEMBERS } from '../filters/parse-filters.js';
import { DRAFT_STATUS, RECORD_FIELDS, SORTABLE_FIELDS, type Resource } from '../model/resources.js';
import type { JsonObject } from './json-value.js';
import { draftRoles, rolesGranting } from './role-grants.js';
import type { ServiceDefaults } from './service-defaults.js';
import { toJsonSchema } from './to-json-schema.js';

/**
 * The JSON Schema of one filter member as it is accepted from `source` (a JSON body keeps JSON
 * types, the query string carries text), from the member's zod schema, with the rules zod cannot
 * express (date ranges, visibility, defaults, limits) written into its description.
 */
export function filterMemberSchema(resource: Resource, name: string, source: Source, defaults: ServiceDefaults): JsonObject {
  const rule = FILTER_MEMBERS[resource][name];
  if (rule === undefined) throw new TypeError(`${name} is not a filter of ${resource}`);
  const schema = toJsonSchema(rule.schema[source], 'input');
  // A query-string value is text, so its default is too.
  const setDefault = (value: string | number) => { schema.default = source === 'query' ? String(value) : value; };
  const notes = [`Must be ${rule.expected}; otherwise 400 \`${rule.code}\`.`];

  const range = DATE_RANGES.find((candidate) => candidate.from === name || candidate.to === name);
  if (range) {
    schema.format = 'date';
    notes.push(dateRangeNote(resource, range));
  }
  if (name === 'orderBy') {
    schema.enum = [...SORTABLE_FIELDS[resource]];
    setDefault(defaults.orderBy);
    notes.push(orderByNote(resource));
  }
  if (name === 'order') setDefault(defaults.order);
  if (name === 'page') setDefault(defaults.page);
  if (name === 'pageSize') {
    setDefault(defaults.pageSize);
    notes.push(`At most MAX_PAGE_SIZE (default ${defaults.maxPageSize}; more is 400 \`PAGE_SIZE_TOO_LARGE\`). page × pageSize may reach at most MAX_RESULT_WINDOW records (default ${defaults.maxResultWindow}; deeper is 400 \`RESULT_WINDOW_EXCEEDED\`: narrow the filters or export Parquet).`);
  }
  if (PAGINATION_MEMBERS.has(name)) {
    notes.push('JSON only: together with `Accept: application/vnd.apache.parquet` it is 400 `PAGINATION_NOT_ALLOWED` (an export is the whole result).');
  }
  const gatedBy = fieldRoles(resource, name);
  if (gatedBy !== undefined) {
    notes.push(`Filters on a field that only ${gatedBy} shows: without that role it is 400 \`INVALID_FILTER\` (filtering would reveal the field).`);
  }
  if (name === 'status') {
    notes.push(`\`${DRAFT_STATUS}\` matches nothing for callers without ${draftRoles().map((role) => `\`${role}\``).join(' or ')}.`);
  }
  schema.description = notes.join(' ');
  return schema;
}

function dateRangeNote(resource: Resource, range: (typeof DATE_RANGES)[number]): string {
  const field = [range.filter, `${range.filter}Date`].find((candidate) => RECORD_FIELDS[resource].some((spec) => spec.name === candidate));
  const example = (from: string) => formatDay(oneMonthAfter(parseCalendarDate(from) ?? 0));
  return `Part of the range \`${range.from}\`–\`${range.to}\`${field ? ` on ${field}` : ''} (UTC days, both inclusive): `
    + `give both ends (else 400 \`DATE_RANGE_INCOMPLETE\`), ${range.from} ≤ ${range.to} (else 400 \`DATE_RANGE_REVERSED\`), `
    + `and ${range.to} at most one calendar month after ${range.from} — the same day next month, clamped to that month's end `
    + `(from 2025-01-31 up to ${example('2025-01-31')}; from 2025-01-15 up to ${example('2025-01-15')}); longer is 400 \`DATE_RANGE_TOO_LONG\`.`;
}

function orderByNote(resource: Resource): string {
  const gated = SORTABLE_FIELDS[resource]
    .map((field) => [field, fieldRoles(resource, field)] as const)
    .filter((entry): entry is readonly [string, string] => entry[1] !== undefined)
    .map(([field, roles]) => `${field} needs ${roles}`);
  return `One of the listed fields that the caller can also see${gated.length > 0 ? ` (${gated.join('; ')})` : ''}; the error's message lists the caller's sortable fields. Ties are broken by the record id in the same direction, so pages are stable.`;
}

/** The roles that show a record field, when the base role does not (undefined: not a field, or everyone sees it). */
function fieldRoles(resource: Resource, name: string): string | undefined {
  if (!RECORD_FIELDS[resource].some((field) => field.name === name)) return undefined;
  const roles = rolesGranting(resource, name);
  return roles.includes(BASE_ROLE) ? undefined : roles.map((role) => `\`${role}\``).join(' or ');
}
