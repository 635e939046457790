import { DRAFT_STATUS, SORTABLE_FIELDS } from '../model/resources.js';
import type { Scope } from './record-store.js';
import type { DateRange, SummaryQuery } from '../filters/summary-query.js';

/** A parameterized Cosmos SQL query. */
export interface SqlQuery {
  readonly query: string;
  readonly parameters: { name: string; value: string }[];
}

const DAY_START = 'T00:00:00.000Z';

/**
 * The WHERE clause for a scope and query. Every value is a bound parameter; the only identifiers
 * spliced in are field names from the model. The tenant is in the WHERE clause as well as the
 * partition key, so a store that ignores the partition key (the embedded one) still isolates.
 */
export function buildWhere(scope: Scope, query: SummaryQuery): SqlQuery {
  const conditions = ['c.tenantId = @tenant'];
  const parameters = [{ name: '@tenant', value: scope.tenant }];
  const bind = (condition: string, name: string, value: string) => {
    conditions.push(condition);
    parameters.push({ name, value });
  };
  if (!scope.view.drafts) bind('c.status != @draft', '@draft', DRAFT_STATUS);
  const { filters } = query;
  if (filters.contractWorkspaceID !== undefined) bind('c.contractWorkspaceID = @workspace', '@workspace', filters.contractWorkspaceID);
  if (filters.contractId !== undefined) bind('c.contractId = @contractId', '@contractId', filters.contractId);
  if (filters.supplierId !== undefined) bind('c.supplierId = @supplierId', '@supplierId', filters.supplierId);
  if (filters.status !== undefined) bind('c.status = @status', '@status', filters.status);
  // Timestamps are ISO 8601 UTC strings, so a day range is a half-open string range.
  const timestampRange = (field: string, range: DateRange | undefined) => {
    if (!range) return;
    bind(`c.${field} >= @${field}From`, `@${field}From`, range.from + DAY_START);
    bind(`c.${field} < @${field}To`, `@${field}To`, nextDay(range.to) + DAY_START);
  };
  timestampRange('createdDate', filters.created);
  timestampRange('updatedDate', filters.updated);
  if (filters.invoiceDate) {
    bind('c.invoiceDate >= @invoiceDateFrom', '@invoiceDateFrom', filters.invoiceDate.from);
    bind('c.invoiceDate <= @invoiceDateTo', '@invoiceDateTo', filters.invoiceDate.to);
  }
  return { query: conditions.join(' AND '), parameters };
}

/** `SELECT VALUE COUNT(1)` under the same filters. */
export function buildCountSql(scope: Scope, query: SummaryQuery): SqlQuery {
  const where = buildWhere(scope, query);
  return { query: `SELECT VALUE COUNT(1) FROM c WHERE ${where.query}`, parameters: where.parameters };
}

/**
 * The first `top` matching records (all of them when `top` is undefined), visible fields only, in
 * the requested order with ties broken by id (which needs the composite indexes of
 * `container-definitions`).
 */
export function buildListSql(scope: Scope, query: SummaryQuery, top?: number): SqlQuery {
  if (top !== undefined && (!Number.isSafeInteger(top) || top < 1)) throw new TypeError(`top must be a positive integer, got ${top}`);
  // Validated upstream against the caller's view; checked again because it is spliced into SQL.
  if (!SORTABLE_FIELDS[query.resource].includes(query.orderBy)) throw new TypeError(`not a sortable field: ${query.orderBy}`);
  const where = buildWhere(scope, query);
  const direction = query.order === 'desc' ? 'DESC' : 'ASC';
  const columns = scope.view.fields.map((field) => `c.${field.name}`);
  if (scope.view.lineFields.length > 0) {
    const lineColumns = scope.view.lineFields.map((field) => `l.${field.name}`).join(', ');
    columns.push(`ARRAY(SELECT ${lineColumns} FROM l IN c.lines) AS lines`);
  }
  return {
    query: `SELECT ${top === undefined ? '' : `TOP ${top} `}${columns.join(', ')} FROM c WHERE ${where.query} ORDER BY c.${query.orderBy} ${direction}, c.id ${direction}`,
    parameters: where.parameters,
  };
}

function nextDay(day: string): string {
  return new Date(Date.parse(day + DAY_START) + 86_400_000).toISOString().slice(0, 10);
}
