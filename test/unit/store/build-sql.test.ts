import { describe, expect, it } from '@jest/globals';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { parseFilters } from '../../../shared/filters/parse-filters.js';
import type { FilterDefinition, ResourceDefinition } from '../../../shared/model/resource-definition.js';
import { valuesOf, type FieldSpec } from '../../../shared/model/fields.js';
import { RESOURCES } from '../../../shared/model/resources.js';

const valuesOfField = (field: FieldSpec | undefined) => (field ? valuesOf(field) : undefined);
import type { SummaryQuery } from '../../../shared/model/summary-query.js';
import { buildVersionSql, buildListSql, buildWhere, type SqlQuery } from '../../../shared/store/build-sql.js';

const allowlist = buildAllowlist(DATAPOINTS);
const ALL_ROLES = Object.keys(DATAPOINTS);
const named = RESOURCES.map((resource) => [resource.name, resource] as const);

// A value no filter rule rejects and no SQL text would contain by accident.
const MARKER = 'CW0000424242';

function query(resource: ResourceDefinition, body: Record<string, unknown>, roles: readonly string[] = ALL_ROLES): { scope: { tenant: string; view: ReturnType<typeof allowlist.view> }; query: SummaryQuery } {
  const view = allowlist.view(resource, roles);
  return { scope: { tenant: 'contoso', view }, query: parseFilters({ body, query: new URLSearchParams(), view, maxPageSize: 1000 }) };
}

/** A valid body setting exactly this filter (a rule-conforming value for an equals filter). */
function bodyFor(resource: ResourceDefinition, filter: FilterDefinition): Record<string, unknown> {
  switch (filter.kind) {
    case 'dayRange':
      return { [filter.from]: '2025-03-01', [filter.to]: '2025-03-31' };
    case 'equals': {
      const candidates = [MARKER, ...(valuesOfField(resource.fields.find((field) => field.name === filter.field)) ?? [])].reverse();
      const value = candidates.find((candidate) => filter.rule.schema.body.safeParse(candidate).success);
      if (value === undefined) throw new Error(`no test value for ${filter.member}`);
      return { [filter.member]: value };
    }
  }
}

/** String literals in the SQL text: there must be none, every value is a parameter. */
function literals(sql: SqlQuery): string[] {
  return sql.query.match(/'[^']*'|"[^"]*"/g) ?? [];
}

describe('buildWhere', () => {
  it.each(named)('always scopes %s to the tenant, as a parameter, whatever the filters and roles', (_name, resource) => {
    for (const roles of [['Data.Read'], ALL_ROLES]) {
      for (const body of [{}, ...resource.filters.map((filter) => bodyFor(resource, filter))]) {
        let built;
        try {
          built = query(resource, body, roles);
        } catch {
          continue; // a filter the roles may not use: refused before any SQL exists
        }
        const where = buildWhere(built.scope, built.query);
        expect(where.query.startsWith('c.tenantId = @tenant')).toBe(true);
        expect(where.parameters).toContainEqual({ name: '@tenant', value: 'contoso' });
      }
    }
  });

  it.each(named)('changes the SQL for every filter %s declares, and binds its values as parameters only', (_name, resource) => {
    const base = buildWhere(query(resource, {}).scope, query(resource, {}).query);
    for (const filter of resource.filters) {
      const built = query(resource, bodyFor(resource, filter));
      const where = buildWhere(built.scope, built.query);
      expect([filter.field, where.query]).not.toEqual([filter.field, base.query]);
      expect(where.query).toContain(`c.${filter.field} `);
      expect(where.parameters.length).toBeGreaterThan(base.parameters.length);
      for (const value of Object.values(bodyFor(resource, filter))) expect(where.query).not.toContain(String(value));
      expect(literals(where)).toEqual([]);
      for (const parameter of where.parameters) expect(where.query).toContain(parameter.name);
    }
  });

  it.each(named)('hides %s Drafts unless the view shows them', (_name, resource) => {
    const drafts = resource.drafts!;
    const hidden = buildWhere(query(resource, {}, ['Data.Read']).scope, query(resource, {}, ['Data.Read']).query);
    expect(hidden.query).toContain(`c.${drafts.field} != @draft`);
    expect(hidden.parameters).toContainEqual({ name: '@draft', value: drafts.value });
    const shown = buildWhere(query(resource, {}).scope, query(resource, {}).query);
    expect(shown.query).not.toContain(drafts.field);
  });

  it('never splices a value into the text, however hostile', () => {
    const [, contracts] = named[0]!;
    const hostile = "x' OR 1=1 --";
    const built = query(contracts, {});
    const where = buildWhere({ ...built.scope, tenant: hostile }, built.query);
    expect(where.query).not.toContain(hostile);
    expect(where.parameters).toContainEqual({ name: '@tenant', value: hostile });
  });
});

describe('buildListSql and buildVersionSql', () => {
  it('select only the view\'s fields (and visible lines), ordered with the id as tie-breaker', () => {
    const invoices = named.find(([name]) => name === 'invoices')![1];
    const built = query(invoices, { orderBy: 'invoiceDate', order: 'desc' }, ['Data.Read', 'Data.Read.Drafts']);
    const sql = buildListSql(built.scope, built.query);
    const selected = sql.query.slice('SELECT '.length, sql.query.indexOf(' FROM c WHERE'));
    const expected = built.scope.view.fields.map((field) => `c.${field.name}`).join(', ');
    expect(selected).toBe(`${expected}, ARRAY(SELECT ${built.scope.view.lineFields.map((field) => `l.${field.name}`).join(', ')} FROM l IN c.lines) AS lines`);
    expect(sql.query).not.toContain('netAmount');
    expect(sql.query.endsWith('ORDER BY c.invoiceDate DESC, c.id DESC')).toBe(true);
  });

  it('null a reference to a Draft for a caller without Drafts, failing closed on a missing status', () => {
    const invoices = named.find(([name]) => name === 'invoices')![1];
    const references = invoices.draftReferences!;
    const built = query(invoices, {}, ['Data.Read']);
    const sql = buildListSql(built.scope, built.query);
    for (const field of references.fields) {
      expect(sql.query).toContain(`((IS_STRING(c.${references.statusProperty}) AND c.${references.statusProperty} != @hiddenStatus) ? c.${field} : null) AS ${field}`);
    }
    expect(sql.parameters).toContainEqual({ name: '@hiddenStatus', value: references.value });
    const withDrafts = query(invoices, {}, ['Data.Read', 'Data.Read.Drafts']);
    expect(buildListSql(withDrafts.scope, withDrafts.query).query).not.toContain(references.statusProperty);
  });

  it('let a filter on a reference match only references the caller may see', () => {
    const invoices = named.find(([name]) => name === 'invoices')![1];
    const built = query(invoices, { contractId: 'CON-CONTOSO-000001' }, ['Data.Read']);
    const where = buildWhere(built.scope, built.query);
    expect(where.query).toContain('c.contractId = @f0_0 AND (IS_STRING(c.contractStatus) AND c.contractStatus != @hiddenStatus)');
    expect(where.parameters).toContainEqual({ name: '@hiddenStatus', value: 'Draft' });
    const count = buildVersionSql(built.scope, built.query).records;
    expect(count.parameters).toEqual(where.parameters);
  });

  it('refuses an orderBy that is not sortable', () => {
    const [, contracts] = named[0]!;
    const built = query(contracts, {});
    expect(() => buildListSql(built.scope, { ...built.query, orderBy: 'title; DROP' })).toThrow(TypeError);
  });

  it('takes the version under the same filters and parameters as the list', () => {
    const [, contracts] = named[0]!;
    const built = query(contracts, { createdFrom: '2025-03-01', createdTo: '2025-03-31', contractWorkspaceID: MARKER });
    const version = buildVersionSql(built.scope, built.query);
    const list = buildListSql(built.scope, built.query);
    const where = buildWhere(built.scope, built.query).query;
    expect(version.records.parameters).toEqual(list.parameters);
    expect(version.latestWrite.parameters).toEqual(list.parameters);
    // VALUE aggregates only: the SDK refuses any other aggregate across partitions.
    expect(version.records.query).toBe(`SELECT VALUE COUNT(1) FROM c WHERE ${where}`);
    expect(version.latestWrite.query).toBe(`SELECT VALUE MAX(c._ts) FROM c WHERE ${where}`);
  });
});
