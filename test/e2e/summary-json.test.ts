import { describe, expect, it } from '@jest/globals';
import { call, client, type Envelope, type Problem } from '../support/stack.js';
import { storeRecords } from '../support/store-records.js';

const BASIC_CONTRACT_FIELDS = ['contractId', 'contractWorkspaceID', 'title', 'status', 'effectiveDate', 'expirationDate', 'createdDate', 'updatedDate'];
const ALL_CONTRACT_FIELDS = ['contractId', 'contractWorkspaceID', 'title', 'status', 'supplierId', 'supplierName', 'ownerEmail', 'currency', 'contractAmount', 'effectiveDate', 'expirationDate', 'createdDate', 'updatedDate'];

describe('JSON summaries over HTTP', () => {
  it('answers the envelope of the spec, with meta.requestId equal to X-Request-ID', async () => {
    const response = await call('contracts', { body: { pageSize: 5 } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as Envelope;
    expect(Object.keys(body)).toEqual(['data', 'pagination', 'meta']);
    expect(body.data).toHaveLength(5);
    expect(body.pagination).toMatchObject({ page: 1, pageSize: 5, hasNext: true });
    expect(body.meta.requestId).toBe(response.headers.get('x-request-id'));
    expect(Number.isNaN(Date.parse(body.meta.generatedAt))).toBe(false);
  });

  it('answers with the gateway\'s own request id, echoing a valid caller id in X-Client-Request-ID', async () => {
    const kept = await call('contracts', { headers: { 'x-request-id': 'pipeline-run:42.a_b' } });
    expect(kept.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(kept.headers.get('x-client-request-id')).toBe('pipeline-run:42.a_b');
    expect(((await kept.json()) as Envelope).meta.requestId).toBe(kept.headers.get('x-request-id'));
    const replaced = await call('contracts', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(replaced.headers.get('x-client-request-id')).toBeNull();
  });

  it('answers all fields in the stable order to a full caller, and only the basic ones to a basic caller', async () => {
    const full = (await (await call('contracts', { as: 'contoso-full', body: { pageSize: 3 } })).json()) as Envelope;
    for (const record of full.data) expect(Object.keys(record)).toEqual(ALL_CONTRACT_FIELDS);
    const basic = (await (await call('contracts', { as: 'contoso-basic', body: { pageSize: 3 } })).json()) as Envelope;
    for (const record of basic.data) expect(Object.keys(record)).toEqual(BASIC_CONTRACT_FIELDS);
  });

  it('hides Drafts from callers without Data.Read.Drafts, and totals agree with the store', async () => {
    const all = await storeRecords('contracts', 'contoso');
    const basic = (await (await call('contracts', { as: 'contoso-basic', body: { pageSize: 1 } })).json()) as Envelope;
    const drafts = (await (await call('contracts', { as: 'contoso-drafts', body: { pageSize: 1 } })).json()) as Envelope;
    const draftCount = all.filter((record) => record.status === 'Draft').length;
    expect(draftCount).toBeGreaterThan(0);
    expect(basic.pagination.totalRecords).toBe(all.length - draftCount);
    expect(drafts.pagination.totalRecords).toBe(all.length);
  });

  it('isolates tenants: contoso and fabrikam see disjoint records of their own tenant', async () => {
    const contoso = (await (await call('invoices', { as: 'contoso-full', body: { pageSize: 1000 } })).json()) as Envelope;
    const fabrikam = (await (await call('invoices', { as: 'fabrikam-full', body: { pageSize: 1000 } })).json()) as Envelope;
    const contosoIds = new Set((await storeRecords('invoices', 'contoso')).map((record) => record.invoiceId));
    const fabrikamIds = new Set((await storeRecords('invoices', 'fabrikam')).map((record) => record.invoiceId));
    expect(contoso.data.length).toBeGreaterThan(0);
    for (const record of contoso.data) expect(contosoIds.has(record.invoiceId)).toBe(true);
    for (const record of fabrikam.data) expect(fabrikamIds.has(record.invoiceId)).toBe(true);
    const overlap = contoso.data.filter((record) => fabrikam.data.some((other) => other.invoiceId === record.invoiceId));
    expect(overlap).toEqual([]);
  });

  it('never returns tenantId, even when asked for it', async () => {
    const response = await call('contracts', { body: { tenantId: 'fabrikam' } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Problem).code).toBe('UNKNOWN_FILTER');
    const ok = (await (await call('contracts')).json()) as Envelope;
    for (const record of ok.data) expect(record).not.toHaveProperty('tenantId');
  });

  it('answers invoices with their visible lines ordered by lineNumber', async () => {
    const basic = (await (await call('invoices', { as: 'contoso-basic', body: { pageSize: 20 } })).json()) as Envelope;
    for (const record of basic.data) {
      const lines = record.lines as Record<string, unknown>[];
      expect(lines.length).toBeGreaterThanOrEqual(1);
      expect(lines.map((line) => line.lineNumber)).toEqual(lines.map((_, index) => index + 1));
      for (const line of lines) expect(Object.keys(line)).toEqual(['lineNumber', 'description', 'commodityCode', 'quantity', 'unitOfMeasure']);
      expect(record).not.toHaveProperty('totalAmount');
    }
    const financial = (await (await call('invoices', { as: 'contoso-financials', body: { pageSize: 5 } })).json()) as Envelope;
    for (const record of financial.data) {
      for (const line of record.lines as Record<string, unknown>[]) expect(line).toHaveProperty('unitPrice');
    }
  });

  it('filters invoices by status, contract, supplier and invoice date, matching the store', async () => {
    const all = await storeRecords('invoices', 'contoso'); // contoso-full sees Drafts too
    const sample = all.find((record) => record.contractId !== null && record.invoiceDate >= '2025-03-01')!;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const cases: [Record<string, unknown>, (record: Record<string, any>) => boolean][] = [
      [{ status: 'Paid' }, (record) => record.status === 'Paid'],
      [{ contractId: sample.contractId }, (record) => record.contractId === sample.contractId],
      [{ supplierId: sample.supplierId }, (record) => record.supplierId === sample.supplierId],
      [{ invoiceDateFrom: '2025-03-01', invoiceDateTo: '2025-03-31' }, (record) => record.invoiceDate >= '2025-03-01' && record.invoiceDate <= '2025-03-31'],
    ];
    for (const [filters, predicate] of cases) {
      const body = (await (await call('invoices', { body: { ...filters, pageSize: 1000 } })).json()) as Envelope;
      const expected = all.filter(predicate).map((record) => record.invoiceId).sort();
      expect(expected.length).toBeGreaterThan(0);
      expect(body.data.map((record) => record.invoiceId).sort()).toEqual(expected);
    }
  });

  it('treats filter values carrying SQL as plain values', async () => {
    const response = await call('invoices', { body: { contractId: "x' OR 1=1 --", supplierId: 'IS_DEFINED(c.id)' } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as Envelope).pagination.totalRecords).toBe(0);
  });

  it('orders by any visible sortable field, both directions, ties broken by id', async () => {
    for (const order of ['asc', 'desc'] as const) {
      const body = (await (await call('contracts', { body: { orderBy: 'status', order, pageSize: 200 } })).json()) as Envelope;
      const keys = body.data.map((record) => [record.status as string, record.contractId as string] as const);
      const sorted = [...keys].sort((a, b) => (a[0] === b[0] ? a[1].localeCompare(b[1]) : a[0] < b[0] ? -1 : 1));
      if (order === 'desc') sorted.reverse();
      expect(keys).toEqual(sorted);
    }
  });

  it('answers a page past the end with an empty page and a warning', async () => {
    const response = await call('contracts', { body: { page: 9999, pageSize: 100 } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Envelope;
    expect(body.data).toEqual([]);
    expect(body.pagination.hasNext).toBe(false);
    expect(body.meta.warning).toBeTruthy();
  });

  it('uses the client registry, not the token, for the tenant', async () => {
    expect(client('fabrikam-full').dataTenant).toBe('fabrikam');
    const body = (await (await call('contracts', { as: 'fabrikam-full', body: { pageSize: 5 } })).json()) as Envelope;
    const fabrikamIds = new Set((await storeRecords('contracts', 'fabrikam')).map((record) => record.contractId));
    for (const record of body.data) expect(fabrikamIds.has(record.contractId)).toBe(true);
  });
});
