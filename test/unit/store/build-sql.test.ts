import { describe, expect, it } from '@jest/globals';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { parseFilters } from '../../../shared/filters/parse-filters.js';
import type { FilterDefinition, ResourceDefinition } from '../../../shared/model/resource-definition.js';
import { valuesOf, type FieldSpec } from '../../../shared/model/fields.js';
import { RESOURCES } from '../../../shared/model/resources.js';
import { createRequire } from 'node:module';

const valuesOfField = (field: FieldSpec | undefined) => (field ? valuesOf(field) : undefined);
import type { SummaryQuery } from '../../../shared/model/summary-query.js';
import { buildKeysSql, buildVersionSql, buildListSql, buildWhere, buildWrittenAtSql, type SqlQuery } from '../../../shared/store/build-sql.js';
import { viewed } from '../../support/filter-input.js';

const allowlist = buildAllowlist(DATAPOINTS);
const ALL_ROLES = Object.keys(DATAPOINTS);
const named = RESOURCES.map((resource) => [resource.name, resource] as const);

// A value no filter rule rejects and no SQL text would contain by accident.
const MARKER = 'CW0000424242';

function query(resource: ResourceDefinition, body: Record<string, unknown>, roles: readonly string[] = ALL_ROLES): { scope: { tenant: string; view: ReturnType<typeof allowlist.view> }; query: SummaryQuery } {
  const view = allowlist.view(resource, roles);
  return { scope: { tenant: 'contoso', view }, query: parseFilters({ body, query: new URLSearchParams(), ...viewed(view), maxPageSize: 1000 }) };
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

/** The query engine of the embedded store (dev/cosmos-server.ts, a CommonJS module): the built SQL run as it runs there. */
const cosmosQuery = (createRequire(import.meta.url)('@zeit/cosmosdb-query') as { default: (text: string) => { exec(items: object[], options: { parameters: SqlQuery['parameters'] }): unknown } }).default;

/** Runs built SQL over `documents` in the embedded store's engine, with the built parameters. */
function run(text: string, sql: Pick<SqlQuery, 'parameters'>, documents: readonly object[]): unknown[] {
  return (cosmosQuery(text).exec([...documents], { parameters: sql.parameters }) as { result: unknown[] }).result;
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

  it.each(named)('hides %s Drafts unless the view shows them, failing closed on a status it does not know', (_name, resource) => {
    const drafts = resource.drafts!;
    const shownValue = valuesOfField(resource.fields.find((field) => field.name === drafts.field))!.find((value) => value !== drafts.value)!;
    const statuses: Record<string, unknown> = { shown: shownValue, draft: drafts.value, lower: drafts.value.toLowerCase(), spaced: ` ${drafts.value}`, number: 42, none: null, object: { value: shownValue } };
    const documents = [...Object.entries(statuses).map(([id, status]) => ({ id, tenantId: 'contoso', [drafts.field]: status })), { id: 'missing', tenantId: 'contoso' }];
    const ids = (roles: readonly string[]) => {
      const where = buildWhere(query(resource, {}, roles).scope, query(resource, {}, roles).query);
      return (run(`SELECT VALUE c.id FROM c WHERE ${where.query}`, where, documents) as string[]).sort();
    };
    expect(ids(['Data.Read'])).toEqual(['shown']);
    expect(ids(ALL_ROLES)).toEqual(documents.map((document) => document.id).sort());
  });

  it.each([['2025-03-01', '2025-03-31'], ['9999-12-01', '9999-12-31'], ['2024-02-29', '2024-02-29']])('takes every instant of %s..%s and none of the days around it, the last representable day included', (from, to) => {
    const [, contracts] = named[0]!;
    const built = query(contracts, { createdFrom: from, createdTo: to });
    const where = buildWhere(built.scope, built.query);
    const day = (text: string, offset: number) => new Date(Date.parse(`${text}T00:00:00.000Z`) + offset * 86_400_000).toISOString().slice(0, 10);
    const inside = [`${from}T00:00:00.000Z`, `${to}T10:00:00.000Z`, `${to}T23:59:59.999Z`];
    const outside = [`${day(from, -1)}T23:59:59.999Z`, ...(to.startsWith('9999-12-31') ? [] : [`${day(to, 1)}T00:00:00.000Z`])];
    const documents = [...inside, ...outside].map((createdDate, index) => ({ id: String(index), tenantId: 'contoso', status: 'Published', createdDate }));
    const found = (run(`SELECT VALUE c.createdDate FROM c WHERE ${where.query}`, where, documents) as string[]).sort();
    expect(found).toEqual([...inside].sort());
  });

  it.each([['createdDate', 'contracts'], ['invoiceDate', 'invoices']])('puts every text of %s in exactly one calendar month, and a range over two months matches what both do', (field, name) => {
    const resource = named.find(([candidate]) => candidate === name)![1];
    const filter = resource.filters.find((candidate) => candidate.kind === 'dayRange' && candidate.field === field)! as { from: string; to: string };
    const range = (from: string, to: string) => query(resource, { [filter.from]: from, [filter.to]: to });
    // Texts a store may hold at a month's edge: instants, a bare date, offset forms at midnight, hour 24.
    const texts = ['2025-01-31T23:59:59.999Z', '2025-02-01', '2025-02-01T00:00:00.000Z', '2025-02-28', '2025-02-28T23:59:59.999Z', '2025-02-28T24:00:00Z', '2025-03-01', '2025-03-01T00:00:00+01:00', '2025-03-01T00:00-05:00', '2025-03-01T00:00:00.000Z', '2025-03-31T23:59:59.999Z', '2025-04-01T00:00:00.000Z'];
    const documents = texts.map((text, index) => ({ id: String(index), tenantId: 'contoso', status: 'Published', [field]: text }));
    const found = (built: ReturnType<typeof range>) => {
      const where = buildWhere(built.scope, built.query);
      return (run(`SELECT VALUE c.id FROM c WHERE ${where.query}`, where, documents) as string[]).sort();
    };
    const february = found(range('2025-02-01', '2025-02-28'));
    const march = found(range('2025-03-01', '2025-03-31'));
    expect(february.map((id) => texts[Number(id)]).sort()).toEqual(['2025-02-01', '2025-02-01T00:00:00.000Z', '2025-02-28', '2025-02-28T23:59:59.999Z', '2025-02-28T24:00:00Z'].sort());
    expect(march.map((id) => texts[Number(id)]).sort()).toEqual(['2025-03-01', '2025-03-01T00:00:00+01:00', '2025-03-01T00:00-05:00', '2025-03-01T00:00:00.000Z', '2025-03-31T23:59:59.999Z'].sort());
    // What two neighbouring months match together is what one range over both days matches (check-windows.ts).
    const both = query(resource, { [filter.from]: '2025-02-01', [filter.to]: '2025-02-28' });
    const joint = { ...both, query: { ...both.query, filters: both.query.filters.map((value) => (value.kind === 'dayRange' ? { ...value, to: '2025-03-31' } : value)) } };
    expect(found(joint)).toEqual([...february, ...march].sort());
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
    expect(selected.startsWith(`${expected}, (IS_ARRAY(c.lines) ? `)).toBe(true);
    for (const field of built.scope.view.lineFields) expect(selected).toContain(`${field.name}: l.${field.name}`);
    expect(sql.query).not.toContain('netAmount');
    expect(sql.query.endsWith('ORDER BY c.invoiceDate DESC, c.id DESC')).toBe(true);
  });

  it('shows a reference only for a contract status known not to be Draft: draft, Draft, unknown or missing hide it', () => {
    const invoices = named.find(([name]) => name === 'invoices')![1];
    const references = invoices.draftReferences!;
    const statuses: Record<string, unknown> = { published: 'Published', closed: 'Closed', draft: 'Draft', lower: 'draft', unknown: 'Archived', number: 7, none: null };
    const documents = [...Object.entries(statuses), ['missing', undefined] as const].map(([id, status]) => ({ id, tenantId: 'contoso', status: 'Approved', contractId: `CON-${id}`, contractWorkspaceID: 'CW0001', createdDate: '2025-03-01T00:00:00.000Z', ...(status === undefined ? {} : { [references.statusProperty]: status }) }));
    const shown = (roles: readonly string[]) => {
      const built = query(invoices, {}, roles);
      const rows = run(buildListSql(built.scope, built.query).query, buildListSql(built.scope, built.query), documents) as Record<string, unknown>[];
      return rows.filter((row) => row.contractId !== null).map((row) => row.contractId).sort();
    };
    expect(shown(['Data.Read'])).toEqual(['CON-closed', 'CON-published']);
    expect(shown(['Data.Read', 'Data.Read.Drafts'])).toHaveLength(documents.length);
    // A filter on the reference matches only references the caller may see.
    for (const id of ['draft', 'lower', 'unknown', 'missing', 'published']) {
      const built = query(invoices, { contractId: `CON-${id}` }, ['Data.Read']);
      const where = buildWhere(built.scope, built.query);
      expect([id, run(`SELECT VALUE c.id FROM c WHERE ${where.query}`, where, documents)]).toEqual([id, id === 'published' ? ['published'] : []]);
      expect(buildVersionSql(built.scope, built.query).records.parameters).toEqual(where.parameters);
    }
  });

  it('never fails on the shape of stored lines: what is no array or no object comes back as stored, for the cleaner', () => {
    const invoices = named.find(([name]) => name === 'invoices')![1];
    const line = { lineNumber: 1, description: 'd', quantity: 1, unitPrice: 2 };
    const shapes: Record<string, unknown> = { good: [line], text: 'not-an-array', object: { a: 1 }, number: 3, none: null, mixed: [null, 'x', 3, [line], line] };
    const documents = [...Object.entries(shapes).map(([id, lines]) => ({ id, invoiceId: id, tenantId: 'contoso', createdDate: '2025-03-01T00:00:00.000Z', lines })), { id: 'missing', invoiceId: 'missing', tenantId: 'contoso', createdDate: '2025-03-01T00:00:00.000Z' }];
    const built = query(invoices, {}, ALL_ROLES);
    const sql = buildListSql(built.scope, built.query);
    const rows = run(sql.query, sql, documents) as Record<string, unknown>[];
    const byId = (id: string) => rows.find((row) => row.invoiceId === id)!;
    expect(rows).toHaveLength(documents.length);
    expect(byId('good').lines).toEqual([expect.objectContaining({ lineNumber: 1, unitPrice: 2 })]);
    for (const id of ['text', 'object', 'number', 'none']) expect([id, byId(id).lines]).toEqual([id, shapes[id]]);
    expect(byId('missing').lines).toBeUndefined();
    expect((byId('mixed').lines as unknown[]).slice(0, 4)).toEqual([null, 'x', 3, [line]]);
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
    for (const form of [version.both, version.records, version.latestWrite]) expect(form.parameters).toEqual(list.parameters);
    expect(version.both.query).toBe(`SELECT COUNT(1) AS records, MAX(c._ts) AS latestWrite FROM c WHERE ${where}`);
    // The two VALUE aggregates, for where the SDK refuses the one query.
    expect(version.records.query).toBe(`SELECT VALUE COUNT(1) FROM c WHERE ${where}`);
    expect(version.latestWrite.query).toBe(`SELECT VALUE MAX(c._ts) FROM c WHERE ${where}`);
  });
});

describe('the delta feed\'s narrowing', () => {
  const CONTRACTS = RESOURCES.find((resource) => resource.name === 'contracts');
  const documents = [
    { tenantId: 'contoso', id: 'a', contractId: 'a', status: 'Published', createdDate: '2025-03-01T00:00:00.000Z', _ts: 100 },
    { tenantId: 'contoso', id: 'b', contractId: 'b', status: 'Published', createdDate: '2025-03-15T00:00:00.000Z', _ts: 200 },
    { tenantId: 'contoso', id: 'c', contractId: 'c', status: 'Published', createdDate: 20250320, _ts: 300 },
    { tenantId: 'contoso', id: 'd', contractId: 'd', status: 'Draft', createdDate: '2025-03-20T00:00:00.000Z', _ts: 400 },
    { tenantId: 'fabrikam', id: 'e', contractId: 'e', status: 'Published', createdDate: '2025-03-02T00:00:00.000Z', _ts: 500 },
    { tenantId: 'contoso', id: 'f', contractId: 6, status: 'Published', createdDate: 20250303, _ts: 600 },
  ];
  const ids = (rows: unknown[]) => (rows as { id: string }[]).map((row) => row.id).sort();

  it('keeps the view\'s filters and binds every value: a key range holds texts only, in [from, before); writtenSince is at or after', () => {
    const { scope, query: parsed } = query(CONTRACTS!, {}, ['Data.Read']);
    const keys = (narrowing: Parameters<typeof buildKeysSql>[2]) => {
      const sql = buildKeysSql(scope, parsed, narrowing, 'createdDate');
      expect(literals(sql)).toEqual([]);
      return ids(run(sql.query, sql, documents));
    };
    expect(keys({})).toEqual([6, 'a', 'b', 'c']);
    // A record is known by its id field's text: one whose id is not a text is in no delta read.
    expect(keys({ textIds: true })).toEqual(['a', 'b', 'c']);
    expect(keys({ key: { field: 'createdDate' } })).toEqual(['a', 'b']);
    expect(keys({ key: { field: 'createdDate', from: '2025-03-01T00:00:00.000Z', before: '2025-03-15T00:00:00.000Z' } })).toEqual(['a']);
    expect(keys({ key: { field: 'createdDate', from: '2025-03-15T00:00:00.000Z' } })).toEqual(['b']);
    expect(keys({ writtenSince: 200 })).toEqual([6, 'b', 'c']);
    expect(keys({ ids: ['b', 'c', 'z'] })).toEqual(['b', 'c']);
    // Several ranges at once: any of them, texts only.
    expect(keys({ keyRanges: { field: 'createdDate', ranges: [{ before: '2025-03-02' }, { from: '2025-03-15', before: '2025-03-16' }] } })).toEqual(['a', 'b']);
    expect(keys({ keyRanges: { field: 'createdDate', ranges: [{}] } })).toEqual(['a', 'b']);
    expect(keys({ keyRanges: { field: 'createdDate', ranges: [] } })).toEqual([]);
    expect(keys({ ids: ['d'] })).toEqual([]);
    expect(() => buildKeysSql(scope, parsed, { key: { field: 'createdDate) OR (1=1' } }, 'createdDate')).toThrow(TypeError);
  });

  it('asks the store write times of ids in the tenant, whatever the view', () => {
    const { scope, query: parsed } = query(CONTRACTS!, {}, ['Data.Read']);
    const sql = buildWrittenAtSql(scope, parsed, ['d', 'e', 'a']);
    expect(run(sql.query, sql, documents)).toEqual([{ id: 'a', ts: 100 }, { id: 'd', ts: 400 }]);
    expect(run(sql.query, sql, documents.filter((document) => document.id !== 'd'))).toEqual([{ id: 'a', ts: 100 }]);
  });
});
