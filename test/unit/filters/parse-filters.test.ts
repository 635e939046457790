import { describe, expect, it } from '@jest/globals';
import { parseFilters } from '../../../shared/filters/parse-filters.js';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { ApiError } from '../../../shared/errors/api-error.js';
import type { FilterValue } from '../../../shared/model/summary-query.js';
import { resourceNamed } from '../../../shared/model/resources.js';
import { viewed } from '../../support/filter-input.js';

type Resource = 'contracts' | 'invoices';

/** The filters a query carries, by the field each reads: a value, or a `{ from, to }` range. */
function byField(filters: readonly FilterValue[]): Record<string, unknown> {
  return Object.fromEntries(filters.map((filter) => [filter.field.name, filter.kind === 'equals' ? filter.value : { from: filter.from, to: filter.to }]));
}

const allowlist = buildAllowlist(DATAPOINTS);
const FULL = ['Data.Read', 'Data.Read.Financials', 'Data.Read.Suppliers', 'Data.Read.Drafts'];

function parse(body: unknown, options: { query?: string; resource?: Resource; roles?: string[]; maxPageSize?: number } = {}) {
  return parseFilters({
    body,
    query: new URLSearchParams(options.query ?? ''),
    ...viewed(allowlist.view(resourceNamed(options.resource ?? 'contracts'), options.roles ?? FULL)),
    maxPageSize: options.maxPageSize ?? 1000,
  });
}

function failure(body: unknown, options: Parameters<typeof parse>[1] = {}): ApiError {
  try {
    parse(body, options);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('parseFilters', () => {
  it('applies the defaults to an empty body', () => {
    const query = parse(undefined);
    expect(query).toMatchObject({ orderBy: 'createdDate', order: 'asc', page: 1, pageSize: 25, filters: {} });
  });

  it('accepts a full contracts body', () => {
    const query = parse({ contractWorkspaceID: 'CW0001', createdFrom: '2025-01-01', createdTo: '2025-01-31', orderBy: 'title', order: 'desc', page: 3, pageSize: 50 });
    expect(byField(query.filters)).toEqual({ contractWorkspaceID: 'CW0001', createdDate: { from: '2025-01-01', to: '2025-01-31' } });
    expect(query).toMatchObject({ orderBy: 'title', order: 'desc', page: 3, pageSize: 50 });
  });

  it('reads the same names from the query string, and the body wins', () => {
    const query = parse({ pageSize: 10 }, { query: 'pageSize=99&page=2&order=desc' });
    expect(query).toMatchObject({ pageSize: 10, page: 2, order: 'desc' });
  });

  it('ignores the code query parameter that carries a function key', () => {
    expect(parse(undefined, { query: 'code=abc' }).given).toEqual({});
  });

  it.each([
    [[], 'INVALID_BODY'],
    ['text', 'INVALID_BODY'],
    [null, 'INVALID_BODY'],
    [42, 'INVALID_BODY'],
  ])('refuses a body that is not an object (%p)', (body, code) => {
    expect(failure(body).code).toBe(code);
  });

  it('names the right-cased filter when the case is wrong', () => {
    const error = failure({ createdfrom: '2025-01-01' });
    expect(error.code).toBe('UNKNOWN_FILTER');
    expect(error.errors[0]).toMatchObject({ member: 'createdfrom', code: 'UNKNOWN_FILTER' });
    expect(error.errors[0]?.message).toContain('createdFrom');
  });

  it('refuses members that are not filters, including prototype keys and tenantId', () => {
    for (const body of [JSON.parse('{"__proto__":{"x":1}}'), { constructor: 'x' }, { tenantId: 'fabrikam' }]) {
      expect(failure(body).code).toBe('UNKNOWN_FILTER');
    }
  });

  it('refuses invoice filters on contracts', () => {
    expect(failure({ status: 'Paid' }).code).toBe('UNKNOWN_FILTER');
    expect(byField(parse({ status: 'Paid' }, { resource: 'invoices' }).filters).status).toBe('Paid');
  });

  it.each(['CW123', 'CW12345678901', 'cw1234', 'XW1234', ' CW1234', 'CW1234 '])('refuses the workspace id %p', (value) => {
    expect(failure({ contractWorkspaceID: value }).code).toBe('INVALID_FILTER');
  });

  it.each(['2025-02-29', '2025-13-01', '2025-00-10', '2025-1-01', '2025-01-01T00:00:00Z', '٢٠٢٥-٠١-٠١', ' 2025-01-01', 20250101])('refuses the date %p', (value) => {
    expect(failure({ createdFrom: value, createdTo: '2025-01-31' }).code).toBe('INVALID_DATE');
  });

  it('accepts a leap day', () => {
    expect(byField(parse({ createdFrom: '2024-02-29', createdTo: '2024-03-29' }).filters).createdDate).toEqual({ from: '2024-02-29', to: '2024-03-29' });
  });

  it('needs both ends of a range', () => {
    const error = failure({ updatedFrom: '2025-01-01' });
    expect(error.code).toBe('DATE_RANGE_INCOMPLETE');
    expect(error.errors[0]?.member).toBe('updatedTo');
    expect(failure({ invoiceDateTo: '2025-01-01' }, { resource: 'invoices' }).code).toBe('DATE_RANGE_INCOMPLETE');
  });

  it('refuses a reversed range and accepts a single day', () => {
    expect(failure({ createdFrom: '2025-02-02', createdTo: '2025-02-01' }).code).toBe('DATE_RANGE_REVERSED');
    expect(byField(parse({ createdFrom: '2025-02-02', createdTo: '2025-02-02' }).filters).createdDate).toEqual({ from: '2025-02-02', to: '2025-02-02' });
  });

  it.each([
    ['2025-01-15', '2025-02-15', true],
    ['2025-01-15', '2025-02-16', false],
    ['2025-01-31', '2025-02-28', true],
    ['2025-01-31', '2025-03-01', false],
    ['2024-01-31', '2024-02-29', true],
    ['2024-01-31', '2024-03-01', false],
    ['2025-12-31', '2026-01-31', true],
    ['2025-12-31', '2026-02-01', false],
    ['2025-03-31', '2025-04-30', true],
    ['2025-03-31', '2025-05-01', false],
  ])('from %s to %s is within one month: %p', (from, to, allowed) => {
    if (allowed) expect(byField(parse({ createdFrom: from, createdTo: to }).filters).createdDate).toEqual({ from, to });
    else expect(failure({ createdFrom: from, createdTo: to }).code).toBe('DATE_RANGE_TOO_LONG');
  });

  it('refuses a range from year 99 to 2000 as too long', () => {
    expect(failure({ createdFrom: '0099-12-31', createdTo: '2000-01-15' }).code).toBe('DATE_RANGE_TOO_LONG');
  });

  it('lists the sortable fields the caller can see when orderBy is wrong', () => {
    const error = failure({ orderBy: 'contractAmount' }, { roles: ['Data.Read'] });
    expect(error.code).toBe('INVALID_ORDER_BY');
    expect(error.errors[0]?.message).toContain('effectiveDate');
    expect(error.errors[0]?.message).not.toContain('contractAmount');
    expect(parse({ orderBy: 'contractAmount' }).orderBy).toBe('contractAmount');
  });

  it('refuses an orderBy carrying SQL', () => {
    expect(failure({ orderBy: 'title; DROP' }).code).toBe('INVALID_ORDER_BY');
  });

  it('refuses an order other than asc or desc', () => {
    expect(failure({ order: 'ASC' }).code).toBe('INVALID_FILTER');
  });

  it.each([0, -1, 1.5, '2', true, null, Number.MAX_SAFE_INTEGER + 2])('refuses the page %p in the body', (page) => {
    expect(failure({ page }).code).toBe('INVALID_FILTER');
  });

  it.each(['0', '-1', '1.5', 'abc', '01', ''])('refuses the page %p in the query string', (page) => {
    expect(failure(undefined, { query: `page=${page}` }).code).toBe('INVALID_FILTER');
  });

  it('refuses a filter given twice in the query string', () => {
    expect(failure(undefined, { query: 'page=1&page=2' }).code).toBe('INVALID_FILTER');
  });

  it('refuses a page size over the maximum', () => {
    expect(failure({ pageSize: 1001 }).code).toBe('PAGE_SIZE_TOO_LARGE');
    expect(parse({ pageSize: 1000 }).pageSize).toBe(1000);
    expect(failure({ pageSize: 11 }, { maxPageSize: 10 }).code).toBe('PAGE_SIZE_TOO_LARGE');
  });

  it('refuses a filter on a field the caller cannot see', () => {
    expect(failure({ supplierId: 'S1' }, { resource: 'invoices', roles: ['Data.Read'] }).code).toBe('INVALID_FILTER');
    expect(byField(parse({ supplierId: 'S1' }, { resource: 'invoices' }).filters).supplierId).toBe('S1');
  });

  it('lists at most 20 problems, so junk members cannot inflate the answer', () => {
    const body = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`x${i}`, i]));
    const error = failure(body);
    expect(error.errors).toHaveLength(20);
    expect(error.errors[19]?.message).toMatch(/4981 more problems/);
    expect(JSON.stringify(error.errors).length).toBeLessThan(20_000);
  });

  it('collects every problem, and the first decides the code', () => {
    const error = failure({ createdFrom: 'x', createdTo: '2025-01-01', pageSize: 0, nope: 1 });
    expect(error.status).toBe(400);
    expect(error.errors.map((e) => e.member).sort()).toEqual(['createdFrom', 'nope', 'pageSize']);
    expect(error.code).toBe(error.errors[0]?.code);
  });
});
