import { describe, expect, it } from '@jest/globals';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { writeWindowFiles } from '../../../shared/exports/window-files.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { INVOICES } from '../../../shared/model/invoices.js';
import type { ResourceDefinition } from '../../../shared/model/resource-definition.js';
import type { StoredRecord } from '../../../shared/model/view.js';
import { exportParquet } from '../../../shared/output/export-parquet.js';
import { planCleaning } from '../../../shared/output/record-cleaner.js';
import { generateContracts, generateInvoices } from '../../../dev/seed-data.js';
import { readParquet, unzip } from '../../support/parquet.js';

const allowlist = buildAllowlist(DATAPOINTS);
const contracts = generateContracts('contoso', 3000) as unknown as StoredRecord[];
const invoices = generateInvoices('contoso', 1500, contracts as never) as unknown as StoredRecord[];

async function* pages(records: readonly StoredRecord[]): AsyncIterable<readonly StoredRecord[]> {
  for (let start = 0; start < records.length; start += 250) yield records.slice(start, start + 250);
}

/** A window's files, written into memory, as the worker writes them into blobs. */
async function windowFiles(resource: ResourceDefinition, records: readonly StoredRecord[], partBytes: number) {
  const written = new Map<string, Uint8Array>();
  const plan = planCleaning(allowlist.view(resource, Object.keys(DATAPOINTS)));
  const result = await writeWindowFiles(pages(records), plan, {
    prefix: 'job/2025-01/', partBytes, rowGroupSize: 200, signal: new AbortController().signal, metadata: [{ key: 'summary.requestId', value: 'r' }],
    write: async (blob, chunks) => void written.set(blob, Buffer.concat(chunks)),
  });
  const sync = await exportParquet(pages(records), plan, { maxBytes: 1 << 30, metadata: [], generatedAt: new Date(), rowGroupSize: 200 });
  return { result, written, sync: sync.body };
}

describe('a window\'s files', () => {
  it('go on in a next file past the part size, and together hold the synchronous export\'s rows and schema', async () => {
    const { result, written, sync } = await windowFiles(CONTRACTS, contracts, 40_000);
    expect(result.files.length).toBeGreaterThan(2);
    expect(result.files.map((file) => file.blob)).toEqual(result.files.map((_, index) => `job/2025-01/contracts-${String(index).padStart(3, '0')}.parquet`));
    const expected = await readParquet(sync);
    const parts = await Promise.all(result.files.map(async (file) => readParquet(written.get(file.blob)!)));
    for (const [index, part] of parts.entries()) {
      expect(part.schema).toEqual(expected.schema);
      expect(part.numRows).toBe(result.files[index]!.records);
      expect(written.get(result.files[index]!.blob)!.byteLength).toBe(result.files[index]!.bytes);
      // A part closes once it has passed the size, by at most a row group.
      if (index < parts.length - 1) expect(result.files[index]!.bytes).toBeGreaterThanOrEqual(40_000);
    }
    expect(parts.flatMap((part) => part.rows)).toEqual(expected.rows);
    expect(result.records).toBe(contracts.length);
  });

  it('of invoices are the zip\'s two tables, each in its own files', async () => {
    const { result, written, sync } = await windowFiles(INVOICES, invoices, 60_000);
    const tables = unzip(sync);
    for (const table of ['invoices', 'invoice_tables']) {
      const files = result.files.filter((file) => file.table === table);
      expect(files.length).toBeGreaterThan(1);
      const rows = (await Promise.all(files.map(async (file) => (await readParquet(written.get(file.blob)!)).rows))).flat();
      expect(rows).toEqual((await readParquet(tables[`${table}.parquet`]!)).rows);
    }
  });

  it('are one empty file per table for a window of nothing', async () => {
    const { result, written } = await windowFiles(INVOICES, [], 40_000);
    expect(result.files.map((file) => [file.blob, file.records])).toEqual([['job/2025-01/invoices-000.parquet', 0], ['job/2025-01/invoice_tables-000.parquet', 0]]);
    expect((await readParquet(written.get('job/2025-01/invoices-000.parquet')!)).numRows).toBe(0);
  });
});
