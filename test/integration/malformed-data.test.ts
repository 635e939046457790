import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Envelope } from '../support/stack.js';
import { accessClaims, callService } from '../support/test-service.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { readParquet, unzip } from '../support/parquet.js';

// Documents another system wrote badly, in a tenant of this file's own, read through the real
// store and pipeline: an export never fails for the data of one record, and JSON and Parquet say
// the same about it.
let own: OwnTenant;
const MONTH = { createdFrom: '2025-05-01', createdTo: '2025-05-31' };
const malformed: string[] = [];

beforeAll(async () => {
  own = await startOwnTenant(40);
  const at = '2025-05-15T10:00:00.000Z';
  const contract = (await own.documents('contracts'))[0]!;
  const invoice = (await own.documents('invoices'))[0]!;
  const line = (invoice.lines as Record<string, unknown>[])[0]!;
  const contracts = [
    { contractAmount: 'twelve' }, { contractAmount: 1e308 }, { effectiveDate: 'not-a-date' }, { status: 'Nope' }, { expirationDate: 'soon' },
  ].map((bad, i) => ({ ...contract, ...bad, id: `CT-BAD-${i}`, contractId: `CT-BAD-${i}`, createdDate: at, updatedDate: at }));
  malformed.push(...contracts.map((document) => String(document.id)));
  await own.write('contracts', contracts);
  await own.write('invoices', [{ ...invoice, id: 'IN-BAD-LINES', invoiceId: 'IN-BAD-LINES', createdDate: at, updatedDate: at, lines: [null, { ...line, lineNumber: 'x' }, { ...line, lineNumber: 2 ** 40 }, { ...line, quantity: 1e30 }, line] }]);
}, 60_000);

afterAll(async () => {
  await own?.stop();
});

async function call(resource: string, body: unknown, accept: string): Promise<Response> {
  const token = await own.service.idp!.signToken(accessClaims(own.service, 'contoso-full'));
  return callService(own.service, resource, { headers: { authorization: `Bearer ${token}`, 'x-api-key': own.service.identities.apiKeys[0]!, accept }, body: JSON.stringify(body) });
}

describe('malformed stored values', () => {
  it('leave their records out of a JSON page (or null a nullable value), which says so; the totals stay the store\'s', async () => {
    const stored = (await own.documents('contracts')).filter((document) => String(document.createdDate).startsWith('2025-05'));
    const response = await call('contracts', { ...MONTH, pageSize: 1000 }, 'application/json');
    expect(response.status).toBe(200);
    const page = (await response.json()) as Envelope;
    expect(page.pagination.totalRecords).toBe(stored.length);
    expect(page.data).toHaveLength(stored.length - 4);
    expect(page.data.find((record) => record.contractId === 'CT-BAD-4')?.expirationDate).toBeNull();
    expect(page.data.some((record) => ['CT-BAD-0', 'CT-BAD-1', 'CT-BAD-2', 'CT-BAD-3'].includes(String(record.contractId)))).toBe(false);
    expect(page.meta.warning).toMatch(/^Stored data did not match its fields: 4 records left out \(a required value was missing or malformed\); 1 malformed value answered as null\./);
  });

  it('never fail a Parquet export, which holds the same records and counts them in its footer', async () => {
    const response = await call('contracts', MONTH, 'application/vnd.apache.parquet');
    expect(response.status).toBe(200);
    const file = await readParquet(new Uint8Array(await response.arrayBuffer()));
    const ids = file.rows.map((row) => row.contractId);
    expect(ids).toContain('CT-BAD-4');
    expect(ids.filter((id) => ['CT-BAD-0', 'CT-BAD-1', 'CT-BAD-2', 'CT-BAD-3'].includes(String(id)))).toEqual([]);
    expect(file.metadata['summary.malformedData']).toBe('{"recordsLeftOut":4,"linesLeftOut":0,"nulled":1}');
  });

  it('leave the bad lines of an invoice out, in JSON and in the lines table alike', async () => {
    const json = (await (await call('invoices', { ...MONTH, pageSize: 1000 }, 'application/json')).json()) as Envelope;
    const invoice = json.data.find((record) => record.invoiceId === 'IN-BAD-LINES')!;
    expect(invoice.lines).toHaveLength(1);
    expect(json.meta.warning).toMatch(/4 lines left out/);
    const zip = await call('invoices', MONTH, 'application/zip');
    expect(zip.status).toBe(200);
    const files = unzip(new Uint8Array(await zip.arrayBuffer()));
    const lines = (await readParquet(files['invoice_tables.parquet']!)).rows.filter((row) => row.invoiceId === 'IN-BAD-LINES');
    expect(lines).toHaveLength(1);
  });

  it('name record and field in the log line, never the value', () => {
    const lines = own.service.logs.filter((line) => line.includes('"malformed"'));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const entry = JSON.parse(lines[0]!) as { malformed: { recordsLeftOut: number; where: { record: string; field: string }[] } };
    expect(entry.malformed.recordsLeftOut).toBe(4);
    expect(entry.malformed.where).toEqual(expect.arrayContaining([{ record: 'CT-BAD-0', field: 'contractAmount' }, { record: 'CT-BAD-4', field: 'expirationDate' }]));
    for (const line of lines) expect(line).not.toMatch(/twelve|1e\+308|not-a-date|Nope|soon/);
  });
});
