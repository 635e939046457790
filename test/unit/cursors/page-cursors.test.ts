import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { BASE_ROLE, DATAPOINTS } from '../../../shared/access/datapoints.js';
import { parseFilters } from '../../../shared/filters/parse-filters.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { INVOICES } from '../../../shared/model/invoices.js';
import type { SummaryQuery } from '../../../shared/model/summary-query.js';
import type { Scope, View } from '../../../shared/model/view.js';
import { pageCursorKey } from '../../../shared/cursors/page-cursors.js';
import { viewed } from '../../support/filter-input.js';

const ALL_ROLES = Object.keys(DATAPOINTS);
const allowlist = buildAllowlist(DATAPOINTS);

function queryOf(view: View, body: Record<string, unknown>): SummaryQuery {
  return parseFilters({ body, query: new URLSearchParams(), ...viewed(view), maxPageSize: 1000 });
}

/** The key as it was first derived: a SHA-256 over JSON of the whole list (cursors stored before survive). */
function keyAsDerived(scope: Scope, clientId: string, query: SummaryQuery, page: number): string {
  const { view } = scope;
  return createHash('sha256').update(JSON.stringify([
    scope.tenant, clientId, view.resource.name, view.fields.map((field) => field.name), view.lineFields.map((field) => field.name), view.drafts,
    query.filters.map((filter) => (filter.kind === 'equals' ? [filter.kind, filter.field.name, filter.value] : [filter.kind, filter.field.name, filter.from, filter.to])),
    query.orderBy, query.order, query.pageSize, page,
  ])).digest('hex');
}

describe('page cursor keys', () => {
  it('are the SHA-256 of the walk as JSON, whatever the view, filters and page', () => {
    for (const [resource, roles] of [[CONTRACTS, ALL_ROLES], [CONTRACTS, [BASE_ROLE]], [INVOICES, ALL_ROLES]] as const) {
      const view = allowlist.view(resource, roles);
      for (const body of [{}, { createdFrom: '2025-03-01', createdTo: '2025-03-31', pageSize: 50 }, { order: 'asc' }]) {
        const scope = { tenant: 'tenant "quoted" \u00e9', view };
        const query = queryOf(view, body);
        for (const page of [1, 2, 977]) expect(pageCursorKey(scope, 'client-1', query, page)).toBe(keyAsDerived(scope, 'client-1', query, page));
      }
    }
  });

  it('give a fixed walk a fixed key, so cursors stored by an earlier deploy are found', () => {
    const view = allowlist.view(CONTRACTS, ALL_ROLES);
    const query = queryOf(view, { createdFrom: '2025-03-01', createdTo: '2025-03-31', pageSize: 50 });
    expect(pageCursorKey({ tenant: 'contoso', view }, 'client-1', query, 2)).toBe('cb53ed8682536d99c461525db1ab394814924f55006a5b60f2be9119ff903ee0');
  });

  it('differ by tenant, client, role set, filters and page', () => {
    const full = allowlist.view(CONTRACTS, ALL_ROLES);
    const base = allowlist.view(CONTRACTS, [BASE_ROLE]);
    const query = queryOf(full, { createdFrom: '2025-03-01', createdTo: '2025-03-31' });
    const keys = [
      pageCursorKey({ tenant: 'a', view: full }, 'c', query, 2),
      pageCursorKey({ tenant: 'b', view: full }, 'c', query, 2),
      pageCursorKey({ tenant: 'a', view: full }, 'd', query, 2),
      pageCursorKey({ tenant: 'a', view: base }, 'c', queryOf(base, { createdFrom: '2025-03-01', createdTo: '2025-03-31' }), 2),
      pageCursorKey({ tenant: 'a', view: full }, 'c', queryOf(full, { createdFrom: '2025-03-02', createdTo: '2025-03-31' }), 2),
      pageCursorKey({ tenant: 'a', view: full }, 'c', query, 3),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });
});
