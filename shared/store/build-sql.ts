import { TENANT_FIELD, type DraftReferences } from '../model/resource-definition.js';
import type { FilterValue, SummaryQuery } from '../model/summary-query.js';
import type { Scope } from '../model/view.js';
import { unreachable } from '../util/unreachable.js';

/** A parameterized Cosmos SQL query. */
export interface SqlQuery {
  readonly query: string;
  readonly parameters: { name: string; value: string }[];
}

const DAY_START = 'T00:00:00.000Z';

/**
 * The WHERE clause for a scope and query. Every value is a bound parameter; the only identifiers
 * spliced in are field names from the resource definition (plain identifiers, checked where the
 * fields are declared). The tenant is in the WHERE clause as well as the partition key, so a store
 * that ignores the partition key (the embedded one) still isolates.
 */
export function buildWhere(scope: Scope, query: SummaryQuery): SqlQuery {
  const conditions = [`c.${TENANT_FIELD} = @tenant`];
  const parameters = [{ name: '@tenant', value: scope.tenant }];
  const bind = (condition: string, name: string, value: string) => {
    conditions.push(condition.replace('@', `@${name}`));
    parameters.push({ name: `@${name}`, value });
  };
  const { drafts } = query.resource;
  if (drafts && !scope.view.drafts) bind(`c.${drafts.field} != @`, 'draft', drafts.value);
  const hidden = hiddenReferences(scope, query);
  query.filters.forEach((filter, f) => {
    conditionsOf(filter).forEach(([condition, value], c) => bind(condition, `f${f}_${c}`, value));
    // A filter on a reference the caller may not see matches only the references it may see.
    if (hidden && hidden.fields.includes(filter.field.name)) conditions.push(referenceVisible(hidden));
  });
  if (conditions.some((condition) => condition.includes(DRAFT_REFERENCE))) parameters.push({ name: DRAFT_REFERENCE, value: hidden!.value });
  return { query: conditions.join(' AND '), parameters };
}

/** The parameter holding the drafts value a reference is compared with. */
const DRAFT_REFERENCE = '@hiddenStatus';

/** The resource's Draft references, when the caller may not see Drafts (else undefined: nothing to hide). */
function hiddenReferences(scope: Scope, query: SummaryQuery): DraftReferences | undefined {
  return scope.view.drafts ? undefined : query.resource.draftReferences;
}

/**
 * True when a reference may be shown: the referenced record's stored status is known and not the
 * drafts value. Always a boolean (a missing or non-string status is false), so it fails closed.
 */
function referenceVisible(references: DraftReferences): string {
  const status = `c.${references.statusProperty}`;
  return `(IS_STRING(${status}) AND ${status} != ${DRAFT_REFERENCE})`;
}

/**
 * The conditions of one filter, each with `@` where its value goes. A day range on a timestamp is
 * a half-open range of ISO 8601 UTC strings; on a date, an inclusive range of `YYYY-MM-DD` strings.
 */
function conditionsOf(filter: FilterValue): [condition: string, value: string][] {
  const field = `c.${filter.field.name}`;
  switch (filter.kind) {
    case 'equals':
      return [[`${field} = @`, filter.value]];
    case 'dayRange':
      return filter.field.kind === 'timestamp'
        ? [[`${field} >= @`, filter.from + DAY_START], [`${field} < @`, nextDay(filter.to) + DAY_START]]
        : [[`${field} >= @`, filter.from], [`${field} <= @`, filter.to]];
    default:
      return unreachable(filter, 'filter kind');
  }
}

/**
 * The result's version under the same filters, as two aggregates (record-store.ts, ResultVersion):
 * its count, and the latest system write time `_ts`. Each is a `SELECT VALUE` aggregate, the only
 * kind the SDK runs across partitions (a tenant's key prefix may span several), and no document
 * leaves the store.
 */
export function buildVersionSql(scope: Scope, query: SummaryQuery): { readonly records: SqlQuery; readonly latestWrite: SqlQuery } {
  const where = buildWhere(scope, query);
  return {
    records: { query: `SELECT VALUE COUNT(1) FROM c WHERE ${where.query}`, parameters: where.parameters },
    latestWrite: { query: `SELECT VALUE MAX(c._ts) FROM c WHERE ${where.query}`, parameters: where.parameters },
  };
}

/**
 * The matching records, visible fields only, in the requested order with ties broken by id (which
 * needs the composite indexes of `container-definitions`). How many are read is the reader's
 * `maxItemCount`, so a continuation can resume exactly where a page ended.
 */
export function buildListSql(scope: Scope, query: SummaryQuery): SqlQuery {
  // Validated upstream against the caller's view; checked again because it is spliced into SQL.
  if (!query.resource.sortable.includes(query.orderBy)) throw new TypeError(`not a sortable field: ${query.orderBy}`);
  const where = buildWhere(scope, query);
  const direction = query.order === 'desc' ? 'DESC' : 'ASC';
  const hidden = hiddenReferences(scope, query);
  const columns = scope.view.fields.map((field) => (hidden?.fields.includes(field.name)
    ? `(${referenceVisible(hidden)} ? c.${field.name} : null) AS ${field.name}`
    : `c.${field.name}`));
  const parameters = [...where.parameters];
  if (columns.some((column) => column.includes(DRAFT_REFERENCE)) && !parameters.some((parameter) => parameter.name === DRAFT_REFERENCE)) {
    parameters.push({ name: DRAFT_REFERENCE, value: hidden!.value });
  }
  const { lines } = query.resource;
  if (lines && scope.view.lineFields.length > 0) {
    const lineColumns = scope.view.lineFields.map((field) => `l.${field.name}`).join(', ');
    columns.push(`ARRAY(SELECT ${lineColumns} FROM l IN c.${lines.member}) AS ${lines.member}`);
  }
  return {
    query: `SELECT ${columns.join(', ')} FROM c WHERE ${where.query} ORDER BY c.${query.orderBy} ${direction}, c.id ${direction}`,
    parameters,
  };
}

function nextDay(day: string): string {
  return new Date(Date.parse(day + DAY_START) + 86_400_000).toISOString().slice(0, 10);
}
