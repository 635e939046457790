import { describe, expect, it } from '@jest/globals';
import { planCleaning } from '../../../shared/output/record-cleaner.js';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { INVOICES } from '../../../shared/model/invoices.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { exportParquet } from '../../../shared/output/export-parquet.js';
import { OutputLimitExceeded } from '../../../shared/output/output-limit-exceeded.js';
import { readParquet, unzip } from '../../support/parquet.js';

const allowlist = buildAllowlist(DATAPOINTS);
const FULL = Object.keys(DATAPOINTS);
const options = { metadata: [{ key: 'summary.requestId', value: 'r1' }], generatedAt: new Date('2026-01-01T00:00:00Z') };

function contract(i: number): Record<string, unknown> {
  return {
    contractId: `C${i}`, contractWorkspaceID: 'CW1234', title: `Contract number ${i} with a fairly long title ${i * 7919}`, status: 'Published',
    supplierId: `S${i % 97}`, supplierName: `Supplier ${i % 97}`, ownerEmail: `owner${i}@example.test`, currency: 'EUR',
    contractAmount: (i * 1234567) % 100000000 / 100, effectiveDate: '2025-01-01', expirationDate: i % 3 ? null : '2027-01-01',
    createdDate: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(), updatedDate: '2025-06-01T00:00:00.000Z',
  };
}

/** A record source, in pages of 100 as the store streams them, that counts the records pulled from it. */
function source(count: number, make: (i: number) => Record<string, unknown>) {
  const pulled = { n: 0 };
  async function* records() {
    for (let start = 0; start < count; start += 100) {
      const page = Array.from({ length: Math.min(100, count - start) }, (_, i) => make(start + i));
      pulled.n += page.length;
      yield page;
    }
  }
  return { records: records(), pulled };
}

describe('exportParquet', () => {
  it('stops pulling records once the limit is passed, within one row group', async () => {
    const { records, pulled } = source(200_000, contract);
    await expect(exportParquet(records, planCleaning(allowlist.view(CONTRACTS, FULL)), { ...options, maxBytes: 64 * 1024, rowGroupSize: 1000 })).rejects.toBeInstanceOf(OutputLimitExceeded);
    expect(pulled.n).toBeLessThan(10_000);
  });

  it('writes every row when the result fits, in order', async () => {
    const { records } = source(2500, contract);
    const result = await exportParquet(records, planCleaning(allowlist.view(CONTRACTS, FULL)), { ...options, maxBytes: 10 * 1024 * 1024, rowGroupSize: 1000 });
    const file = await readParquet(result.body);
    expect(result.records).toBe(2500);
    expect(file.numRows).toBe(2500);
    expect(file.rows.map((row) => row.contractId)).toEqual(Array.from({ length: 2500 }, (_, i) => `C${i}`));
    expect(file.rows[3]!.expirationDate).toEqual(new Date('2027-01-01T00:00:00Z'));
    expect(file.rows[4]!.expirationDate).toBeNull();
  });

  it('counts the whole zip against the limit for invoices', async () => {
    const invoice = (i: number) => ({
      invoiceId: `I${i}`, invoiceNumber: `N${i}`, contractId: null, contractWorkspaceID: null, status: 'Paid', invoiceDate: '2025-02-01', dueDate: '2025-03-01',
      createdDate: '2025-02-01T00:00:00.000Z', updatedDate: '2025-02-01T00:00:00.000Z',
      lines: [1, 2, 3].map((lineNumber) => ({ lineNumber, description: `Line ${lineNumber} of ${i}`, commodityCode: '43211503', quantity: 1.5, unitOfMeasure: 'EA' })),
    });
    const { records, pulled } = source(100_000, invoice);
    await expect(exportParquet(records, planCleaning(allowlist.view(INVOICES, ['Data.Read'])), { ...options, maxBytes: 32 * 1024, rowGroupSize: 500 })).rejects.toBeInstanceOf(OutputLimitExceeded);
    expect(pulled.n).toBeLessThan(5_000);

    const small = source(10, invoice);
    const zip = await exportParquet(small.records, planCleaning(allowlist.view(INVOICES, ['Data.Read'])), { ...options, maxBytes: 1024 * 1024 });
    const lines = await readParquet(unzip(zip.body)['invoice_tables.parquet']!);
    expect(lines.numRows).toBe(30);
    // hyparquet reads DECIMAL back as a float; exact decimals are checked with DuckDB elsewhere.
    expect(lines.rows[4]).toEqual({ invoiceId: 'I1', lineNumber: 2, description: 'Line 2 of 1', commodityCode: '43211503', quantity: expect.closeTo(1.5, 9), unitOfMeasure: 'EA' });
  });
});
