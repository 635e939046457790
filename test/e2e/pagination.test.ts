import { describe, expect, it } from '@jest/globals';
import { call, type Envelope } from '../support/stack.js';
import { storeRecords } from '../support/store-records.js';

// Walking every page of a month yields each record exactly once, in order, and totalRecords
// matches a direct count of the store.
type Case = ['contracts' | 'invoices', string, Record<string, string>, (record: Record<string, string>) => boolean];

describe('pagination', () => {
  it.each<Case>([
    ['contracts', 'contractId', { createdFrom: '2025-05-01', createdTo: '2025-05-31' }, (r: Record<string, string>) => r.createdDate! >= '2025-05-01' && r.createdDate! < '2025-06-01'],
    ['invoices', 'invoiceId', { updatedFrom: '2026-02-10', updatedTo: '2026-03-10' }, (r: Record<string, string>) => r.updatedDate! >= '2026-02-10' && r.updatedDate! < '2026-03-11'],
  ])('walks every page of %s once', async (resource, idField, filters, inRange) => {
    const expected = (await storeRecords(resource, 'contoso')).filter((record) => record.status !== 'Draft' && inRange(record));
    expect(expected.length).toBeGreaterThan(20);
    const seen: string[] = [];
    let page = 1;
    let total = -1;
    for (;;) {
      const body = (await (await call(resource, { as: 'contoso-basic', body: { ...filters, pageSize: 7, page, orderBy: 'updatedDate', order: 'desc' } })).json()) as Envelope;
      total = body.pagination.totalRecords;
      seen.push(...body.data.map((record) => record[idField] as string));
      expect(body.pagination.totalPages).toBe(Math.ceil(total / 7));
      if (!body.pagination.hasNext) break;
      page += 1;
    }
    expect(total).toBe(expected.length);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual(expected.map((record) => record[idField]).sort());
    const order = expected
      .sort((a, b) => (a.updatedDate === b.updatedDate ? (a.id < b.id ? 1 : -1) : a.updatedDate < b.updatedDate ? 1 : -1))
      .map((record) => record[idField]);
    expect(seen).toEqual(order);
  });
});
