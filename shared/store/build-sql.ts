import { TENANT_FIELD, type DraftReferences } from '../model/resource-definition.js';
import type { FilterValue, SummaryQuery } from '../model/summary-query.js';
import type { Scope } from '../model/view.js';
import { valuesOf } from '../model/fields.js';
import { unreachable } from '../util/unreachable.js';

/** A parameterized Cosmos SQL query. */
export interface SqlQuery {
  readonly query: string;
  readonly parameters: { name: string; value: string | number | string[] }[];
}

/**
 * What the delta feed narrows a result to (docs/decisions.md, "The delta feed"): the records
 * written since a store time (`_ts`, whole seconds, at or after), and the records whose key field
 * is a text, in `[from, before)` (either end open).
 */
export interface Narrowing {
  readonly writtenSince?: number;
  /** The records with these ids (the resource's id field). */
  readonly ids?: readonly string[];
  /** Only records whose id field is a text (the delta feed knows a record by it: one that is not is in none of its reads). */
  readonly textIds?: true;
  readonly key?: { readonly field: string; readonly from?: string; readonly before?: string };
  /** Several text ranges of one field at once, any of which a record's value is in. */
  readonly keyRanges?: { readonly field: string; readonly ranges: readonly { readonly from?: string; readonly before?: string }[] };
}

/**
 * The text a day range ends before: the next day's date, which sorts after every text of the day
 * To (its instants, the day itself, an offset form at midnight) and before every text of the next
 * day. The day after 9999-12-31 has no four-digit year (`+010000-01-01` sorts before every
 * date): `9999-12-32` sorts after every text of that day instead.
 */
function dayAfter(to: string): string {
  return to === '9999-12-31' ? '9999-12-32' : new Date(Date.parse(`${to}T00:00:00.000Z`) + 86_400_000).toISOString().slice(0, 10);
}

/**
 * The WHERE clause for a scope and query. Every value is a bound parameter; the only identifiers
 * spliced in are field names from the resource definition (plain identifiers, checked where the
 * fields are declared). The tenant is in the WHERE clause as well as the partition key, so a store
 * that ignores the partition key (the embedded one) still isolates.
 */
export function buildWhere(scope: Scope, query: SummaryQuery, narrowing: Narrowing = {}): SqlQuery {
  const conditions: string[] = [];
  const parameters: SqlQuery['parameters'] = [];
  const bind = (condition: string, name: string, value: string | number) => {
    conditions.push(condition.replace('@', `@${name}`));
    parameters.push({ name: `@${name}`, value });
  };
  // The most selective first (the delta feed's narrowing, the tenant, the caller's filters, the
  // Drafts rule): a store that evaluates conditions in turn (the embedded one) stops at the first
  // false one, and a count of a small key range no longer reads every document's tenant. Cosmos
  // serves any order from its index.
  if (narrowing.writtenSince !== undefined) bind('c._ts >= @', 'since', narrowing.writtenSince);
  const { key } = narrowing;
  if (key) {
    checkField(query, key.field);
    if (key.from !== undefined) bind(`c.${key.field} >= @`, 'keyFrom', key.from);
    if (key.before !== undefined) bind(`c.${key.field} < @`, 'keyBefore', key.before);
    conditions.push(`IS_STRING(c.${key.field})`);
  }
  const { keyRanges } = narrowing;
  if (keyRanges) {
    checkField(query, keyRanges.field);
    const field = `c.${keyRanges.field}`;
    const any = keyRanges.ranges.map((range, r) => {
      const ends: string[] = [];
      if (range.from !== undefined) {
        ends.push(`${field} >= @r${r}From`);
        parameters.push({ name: `@r${r}From`, value: range.from });
      }
      if (range.before !== undefined) {
        ends.push(`${field} < @r${r}Before`);
        parameters.push({ name: `@r${r}Before`, value: range.before });
      }
      return ends.length === 0 ? 'true' : `(${ends.join(' AND ')})`;
    });
    conditions.push(any.length === 0 ? 'false' : `(${any.join(' OR ')})`, `IS_STRING(${field})`);
  }
  if (narrowing.ids !== undefined) {
    conditions.push(`ARRAY_CONTAINS(@ids, c.${query.resource.idField})`);
    parameters.push({ name: '@ids', value: [...narrowing.ids] });
  }
  if (narrowing.textIds) conditions.push(`IS_STRING(c.${query.resource.idField})`);
  bind(`c.${TENANT_FIELD} = @`, 'tenant', scope.tenant);
  const hidden = hiddenReferences(scope, query);
  let visible: string | undefined;
  query.filters.forEach((filter, f) => {
    conditionsOf(filter).forEach(([condition, value], c) => bind(condition, `f${f}_${c}`, value));
    // A filter on a reference the caller may not see matches only the references it may see.
    if (hidden && hidden.fields.includes(filter.field.name)) conditions.push(visible ??= referenceVisible(hidden, parameters));
  });
  const { drafts } = query.resource;
  if (drafts && !scope.view.drafts) {
    const shown = valuesOf(query.resource.fields.find((field) => field.name === drafts.field)!)!.filter((value) => value !== drafts.value);
    conditions.push(isOneOf(`c.${drafts.field}`, shown, 'shown', parameters));
  }
  return { query: conditions.join(' AND '), parameters };
}

/** The resource's Draft references, when the caller may not see Drafts (else undefined: nothing to hide). */
function hiddenReferences(scope: Scope, query: SummaryQuery): DraftReferences | undefined {
  return scope.view.drafts ? undefined : query.resource.draftReferences;
}

/** The parameters' prefix of the statuses a reference shows for. */
const SHOWN_FOR = 'referenced';

/**
 * True when a reference may be shown: the referenced record's stored status is one known not to
 * be Draft. Binds those statuses into `parameters` once.
 */
function referenceVisible(references: DraftReferences, parameters: SqlQuery['parameters']): string {
  return isOneOf(`c.${references.statusProperty}`, references.shownFor, SHOWN_FOR, parameters);
}

/**
 * `property` is one of `values`, as a condition that is always a boolean (a missing or non-string
 * value is false, never undefined), so that whatever it guards fails closed. The values are bound
 * as `@<prefix><n>` (once, however often the condition is used).
 */
function isOneOf(property: string, values: readonly string[], prefix: string, parameters: SqlQuery['parameters']): string {
  const names = values.map((value, index) => {
    const name = `@${prefix}${index}`;
    if (!parameters.some((parameter) => parameter.name === name)) parameters.push({ name, value });
    return name;
  });
  return `(IS_STRING(${property}) AND (${names.map((name) => `${property} = ${name}`).join(' OR ')}))`;
}

/**
 * The conditions of one filter, each with `@` where its value goes. A day range, on a timestamp or
 * a date, is the texts from the day From up to the day after To: by text, so that neighbouring
 * ranges meet with nothing between them (`Feb 28 < value < Mar 1` holds no text; a joint check of
 * several months, check-windows.ts, matches exactly what the months match). ISO 8601 UTC instants
 * and `YYYY-MM-DD` dates sort by text as by time.
 */
function conditionsOf(filter: FilterValue): [condition: string, value: string][] {
  const field = `c.${filter.field.name}`;
  switch (filter.kind) {
    case 'equals':
      return [[`${field} = @`, filter.value]];
    case 'dayRange':
      return [[`${field} >= @`, filter.from], [`${field} < @`, dayAfter(filter.to)]];
    default:
      return unreachable(filter, 'filter kind');
  }
}

/** The queries of a result's version (record-store.ts, ResultVersion): no document leaves the store. */
export interface VersionSql {
  /** Its count and latest system write time `_ts` in one query: the store evaluates the filter once. */
  readonly both: SqlQuery;
  /** The same as two `SELECT VALUE` aggregates: the form every SDK path merges (cosmos-record-store.ts). */
  readonly records: SqlQuery;
  readonly latestWrite: SqlQuery;
}

/**
 * The result's version under the same filters as its records: how many match, and their latest
 * system write time `_ts`, asked in one query, or as two `SELECT VALUE` aggregates where the SDK
 * refuses the one (docs/store.md, "Validators").
 */
export function buildVersionSql(scope: Scope, query: SummaryQuery, narrowing: Narrowing = {}): VersionSql {
  const where = buildWhere(scope, query, narrowing);
  const sql = (select: string): SqlQuery => ({ query: `SELECT ${select} FROM c WHERE ${where.query}`, parameters: where.parameters });
  return {
    both: sql('COUNT(1) AS records, MAX(c._ts) AS latestWrite'),
    records: sql('VALUE COUNT(1)'),
    latestWrite: sql('VALUE MAX(c._ts)'),
  };
}

/**
 * The matching records, visible fields only, in the requested order with ties broken by id (which
 * needs the composite indexes of `container-definitions`), or in the store's own order (`any`: the
 * delta feed's reads of what changed, which no one pages through). How many are read is the
 * reader's `maxItemCount`, so a continuation can resume exactly where a page ended.
 */
export function buildListSql(scope: Scope, query: SummaryQuery, narrowing: Narrowing = {}, keyField?: string, order: 'ordered' | 'any' = 'ordered'): SqlQuery {
  // Validated upstream against the caller's view; checked again because it is spliced into SQL.
  if (!query.resource.sortable.includes(query.orderBy)) throw new TypeError(`not a sortable field: ${query.orderBy}`);
  const where = buildWhere(scope, query, narrowing);
  const direction = query.order === 'desc' ? 'DESC' : 'ASC';
  const hidden = hiddenReferences(scope, query);
  const parameters = [...where.parameters];
  const columns = scope.view.fields.map((field) => (hidden?.fields.includes(field.name)
    ? `(${referenceVisible(hidden, parameters)} ? c.${field.name} : null) AS ${field.name}`
    : `c.${field.name}`));
  const { lines } = query.resource;
  if (lines && scope.view.lineFields.length > 0) {
    // Guarded in the query itself, so that no stored shape fails it (in the embedded store or in
    // Cosmos): lines that are not an array, and lines that are not objects, come back as they are
    // stored, for the record cleaner to leave out and count.
    const member = `c.${lines.member}`;
    const line = `{${scope.view.lineFields.map((field) => `${field.name}: l.${field.name}`).join(', ')}}`;
    columns.push(`(IS_ARRAY(${member}) ? ARRAY(SELECT VALUE (IS_OBJECT(l) ? ${line} : l) FROM l IN ${member}) : ${member}) AS ${lines.member}`);
  }
  // The delta feed keeps each record's key whether the view shows that field or not.
  if (keyField !== undefined) {
    checkField(query, keyField);
    columns.push(`c.${keyField} AS ${DELTA_KEY_MEMBER}`);
  }
  return {
    query: `SELECT ${columns.join(', ')} FROM c WHERE ${where.query}${order === 'ordered' ? ` ORDER BY c.${query.orderBy} ${direction}, c.id ${direction}` : ''}`,
    parameters,
  };
}

/** A field name spliced into SQL: one of the resource's own (plain identifiers, checked where they are declared). */
function checkField(query: SummaryQuery, name: string): void {
  if (!query.resource.fields.some((field) => field.name === name)) throw new TypeError(`not a field of ${query.resource.name}: ${name}`);
}

/** The member a list read carries its key field's stored value in, when asked (no field is named so). */
export const DELTA_KEY_MEMBER = '_deltaKey';

/** The ids (the resource's id field) and keys of a narrowed result: id-only reads, each counted as a document (record-store.ts, DeltaReads.keys). */
export function buildKeysSql(scope: Scope, query: SummaryQuery, narrowing: Narrowing, keyField: string): SqlQuery {
  checkField(query, keyField);
  const where = buildWhere(scope, query, narrowing);
  return { query: `SELECT c.${query.resource.idField} AS id, c.${keyField} AS ${DELTA_KEY_MEMBER} FROM c WHERE ${where.query}`, parameters: where.parameters };
}

/** The store write times of the tenant's records with these ids, whatever the view: for telling a gone record from one that moved. */
export function buildWrittenAtSql(scope: Scope, query: SummaryQuery, ids: readonly string[]): SqlQuery {
  const { idField } = query.resource;
  return {
    query: `SELECT c.${idField} AS id, c._ts AS ts FROM c WHERE c.${TENANT_FIELD} = @tenant AND ARRAY_CONTAINS(@ids, c.${idField})`,
    parameters: [{ name: '@tenant', value: scope.tenant }, { name: '@ids', value: [...ids] }],
  };
}
