import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { call, type Envelope, type Problem } from '../support/stack.js';
import { storeRecords } from '../support/store-records.js';
import { readParquet, unzip } from '../support/parquet.js';
import { withParquetFile } from '../support/duckdb.js';
import { readWithArrow } from '../support/parquet-wasm.js';

const PARQUET = 'application/vnd.apache.parquet';
const MARCH = { createdFrom: '2025-03-01', createdTo: '2025-03-31' };
const inMarch = (record: Record<string, string>) => record.createdDate! >= '2025-03-01' && record.createdDate! < '2025-04-01';

async function exportOf(resource: 'contracts' | 'invoices', as: string, body: Record<string, unknown>): Promise<Uint8Array> {
  const response = await call(resource, { as, body, headers: { accept: PARQUET } });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

async function allPages(resource: 'contracts' | 'invoices', as: string, body: Record<string, unknown>): Promise<Envelope['data']> {
  const data: Envelope['data'] = [];
  for (let page = 1; ; page++) {
    const envelope = (await (await call(resource, { as, body: { ...body, page, pageSize: 40 } })).json()) as Envelope;
    data.push(...envelope.data);
    if (!envelope.pagination.hasNext) return data;
  }
}

/** JSON's value of a field, as the Parquet reader gives it back. */
function jsonToRead(value: unknown, type: string | undefined, converted: string | undefined): unknown {
  if (value === null) return null;
  if (converted === 'DATE') return new Date(`${String(value)}T00:00:00Z`).getTime();
  if (converted === 'TIMESTAMP_MILLIS') return Date.parse(String(value));
  if (converted === 'DECIMAL') return Math.round(Number(value) * 100) / 100;
  void type;
  return value;
}

/** JSON's value of a field, as Arrow gives it back through `String()`: decimals unscaled, dates and timestamps in epoch milliseconds. */
function jsonToArrow(value: unknown, type: string): string | null {
  if (value === null) return null;
  const decimal = /^Decimal\[\d+e\+(\d+)\]$/.exec(type);
  if (decimal) return String(Math.round(Number(value) * 10 ** Number(decimal[1])));
  if (type.startsWith('Date32')) return String(Date.parse(`${String(value)}T00:00:00Z`));
  if (type.startsWith('Timestamp')) return String(Date.parse(String(value)));
  return String(value);
}

function readToComparable(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Math.round(value * 10_000) / 10_000;
  return value;
}

describe('Parquet export of contracts', () => {
  it('answers one Parquet file with its headers', async () => {
    const response = await call('contracts', { body: MARCH, headers: { accept: PARQUET, 'x-request-id': 'export-1' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(PARQUET);
    const requestId = response.headers.get('x-request-id')!;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get('x-client-request-id')).toBe('export-1');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="contracts-${requestId}.parquet"`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(Buffer.from(bytes.subarray(0, 4)).toString()).toBe('PAR1');
    const file = await readParquet(bytes);
    expect(file.metadata['summary.requestId']).toBe(requestId);
    expect(file.metadata['summary.resource']).toBe('contracts');
    expect(JSON.parse(file.metadata['summary.filters']!)).toEqual(MARCH);
    expect(Number.isNaN(Date.parse(file.metadata['summary.generatedAt']!))).toBe(false);
  });

  it('has the JSON schema of the same caller: columns, order, types and nullability', async () => {
    for (const as of ['contoso-basic', 'contoso-full']) {
      const json = (await (await call('contracts', { as, body: { ...MARCH, pageSize: 1 } })).json()) as Envelope;
      const file = await readParquet(await exportOf('contracts', as, MARCH));
      expect(file.columns).toEqual(Object.keys(json.data[0]!));
    }
    const file = await readParquet(await exportOf('contracts', 'contoso-full', MARCH));
    const byName = Object.fromEntries(file.schema.map((element) => [element.name, element]));
    expect(byName.title).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' });
    expect(byName.effectiveDate).toMatchObject({ type: 'INT32', converted_type: 'DATE' });
    expect(byName.expirationDate).toMatchObject({ converted_type: 'DATE', repetition_type: 'OPTIONAL' });
    expect(byName.createdDate).toMatchObject({ type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' } });
    expect(byName.contractAmount).toMatchObject({ type: 'INT64', converted_type: 'DECIMAL', precision: 18, scale: 2 });
  });

  it('agrees with a direct store query, read back by DuckDB: rows, exact decimal sum, nulls', async () => {
    const expected = (await storeRecords('contracts', 'contoso')).filter(inMarch);
    const cents = expected.reduce((sum, record) => sum + Math.round(record.contractAmount * 100), 0);
    const nulls = expected.filter((record) => record.expirationDate === null).length;
    expect(nulls).toBeGreaterThan(0);
    const bytes = await exportOf('contracts', 'contoso-full', MARCH);
    const [row] = await withParquetFile(bytes, (query) => query('SELECT count(*)::INTEGER AS n, sum(contractAmount)::VARCHAR AS total, count(*) FILTER (WHERE expirationDate IS NULL)::INTEGER AS nulls, typeof(any_value(contractAmount)) AS t, typeof(any_value(createdDate)) AS ts FROM $file'));
    expect(row).toEqual({ n: expected.length, total: (cents / 100).toFixed(2), nulls, t: 'DECIMAL(18,2)', ts: 'TIMESTAMP WITH TIME ZONE' });
  });

  it('equals the concatenated JSON pages value for value, for several roles and filters', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['contoso-basic', MARCH],
      ['contoso-full', { updatedFrom: '2026-01-10', updatedTo: '2026-02-10', orderBy: 'contractAmount', order: 'desc' }],
      ['contoso-suppliers', { ...MARCH, orderBy: 'supplierName' }],
      ['fabrikam-full', { createdFrom: '2025-07-31', createdTo: '2025-08-31', orderBy: 'expirationDate' }],
    ];
    for (const [as, filters] of cases) {
      const pages = await allPages('contracts', as, filters);
      const file = await readParquet(await exportOf('contracts', as, filters));
      expect(file.numRows).toBe(pages.length);
      expect(pages.length).toBeGreaterThan(0);
      const types = Object.fromEntries(file.schema.map((element) => [element.name, element]));
      const fromJson = pages.map((record) => Object.fromEntries(Object.entries(record).map(([key, value]) => [key, jsonToRead(value, types[key]?.type, types[key]?.converted_type)])));
      const fromParquet = file.rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, readToComparable(value)])));
      expect(fromParquet).toEqual(fromJson);
    }
  });

  it('reads the same in a third reader, parquet-wasm (Arrow): columns, types, nullability, every value', async () => {
    const pages = await allPages('contracts', 'contoso-full', MARCH);
    const file = readWithArrow(await exportOf('contracts', 'contoso-full', MARCH));
    expect(file.numRows).toBe(pages.length);
    expect(file.columns.map((column) => column.name)).toEqual(Object.keys(pages[0]!));
    const byName = Object.fromEntries(file.columns.map((column) => [column.name, column]));
    expect(byName.contractAmount).toEqual({ name: 'contractAmount', type: 'Decimal[18e+2]', nullable: false });
    expect(byName.expirationDate).toEqual({ name: 'expirationDate', type: 'Date32<DAY>', nullable: true });
    expect(byName.createdDate).toEqual({ name: 'createdDate', type: 'Timestamp<MILLISECOND, UTC>', nullable: false });
    for (const { name, type } of file.columns) {
      expect([name, file.values[name]]).toEqual([name, pages.map((record) => jsonToArrow(record[name], type))]);
    }
    const invoices = unzip(await exportOf('invoices', 'contoso-full', MARCH));
    for (const entry of ['invoices.parquet', 'invoice_tables.parquet']) {
      const arrow = readWithArrow(invoices[entry]!);
      const hyparquet = await readParquet(invoices[entry]!);
      expect(arrow.numRows).toBe(hyparquet.numRows);
      expect(arrow.columns.map((column) => column.name)).toEqual(hyparquet.columns);
    }
  });

  it('gives a basic caller no non-basic column and no Drafts; Drafts only with the role', async () => {
    const basic = await readParquet(await exportOf('contracts', 'contoso-basic', MARCH));
    for (const column of ['supplierId', 'supplierName', 'ownerEmail', 'currency', 'contractAmount']) expect(basic.columns).not.toContain(column);
    expect(basic.rows.some((row) => row.status === 'Draft')).toBe(false);
    const drafts = await readParquet(await exportOf('contracts', 'contoso-drafts', MARCH));
    const expectedDrafts = (await storeRecords('contracts', 'contoso')).filter((record) => inMarch(record) && record.status === 'Draft').length;
    expect(expectedDrafts).toBeGreaterThan(0);
    expect(drafts.rows.filter((row) => row.status === 'Draft')).toHaveLength(expectedDrafts);
  });

  it('answers an empty result as a valid file with the full schema and zero rows', async () => {
    const bytes = await exportOf('contracts', 'contoso-full', { contractWorkspaceID: 'CW0000000000' });
    const file = await readParquet(bytes);
    expect(file.numRows).toBe(0);
    expect(file.columns).toHaveLength(13);
    const [row] = await withParquetFile(bytes, (query) => query('SELECT count(*)::INTEGER AS n FROM $file'));
    expect(row).toEqual({ n: 0 });
  });

  it.each([
    [{ body: { page: 1 } }, 'page'],
    [{ body: { pageSize: 10, ...MARCH } }, 'pageSize'],
    [{ query: 'page=2' }, 'page'],
    [{ query: 'pageSize=abc' }, 'pageSize'],
  ])('refuses pagination with Parquet (%p)', async (options, member) => {
    const response = await call('contracts', { ...options, headers: { accept: PARQUET } });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as Problem;
    expect(problem.code).toBe('PAGINATION_NOT_ALLOWED');
    expect(problem.errors?.[0]?.member).toBe(member);
  });

  it.each<['contracts' | 'invoices', string]>([['contracts', PARQUET], ['invoices', 'application/zip'], ['invoices', PARQUET]])('names the media type that was sent when %s refuse pagination with %s', async (resource, accept) => {
    const response = await call(resource, { body: { page: 1 }, headers: { accept: `${accept};q=0.9, text/html;q=0.1` } });
    const problem = (await response.json()) as Problem;
    expect([response.status, problem.code]).toEqual([400, 'PAGINATION_NOT_ALLOWED']);
    expect(problem.errors?.[0]?.message).toBe(`page cannot be sent with Accept: ${accept}: an export is the whole result. Leave page out, or ask for JSON.`);
  });

  it('writes version-1 data pages and a created_by that Java readers parse, in both resources', async () => {
    const contracts = await readParquet(await exportOf('contracts', 'contoso-full', MARCH));
    const invoices = unzip(await exportOf('invoices', 'contoso-full', MARCH));
    for (const file of [contracts, await readParquet(invoices['invoices.parquet']!), await readParquet(invoices['invoice_tables.parquet']!)]) {
      expect(file.numRows).toBeGreaterThan(0);
      expect(file.pageTypes).toContain('DATA_PAGE');
      expect(file.pageTypes.filter((type) => type !== 'DATA_PAGE' && type !== 'DICTIONARY_PAGE')).toEqual([]);
      // parquet-mr's VersionParser form: `<application> version <semver> (build <id>)`.
      expect(file.createdBy).toMatch(/^summary-data-service version \d+\.\d+\.\d+ \(build [0-9a-z]+\)$/);
    }
  });

  it('negotiates Parquet by q-value', async () => {
    const response = await call('contracts', { body: MARCH, headers: { accept: 'application/json;q=0.1, application/vnd.apache.parquet;q=0.9' } });
    expect(response.headers.get('content-type')).toBe(PARQUET);
  });
});

describe('Parquet export of invoices', () => {
  it('answers a zip of invoices.parquet and invoice_tables.parquet that passes an archive check', async () => {
    const response = await call('invoices', { body: MARCH, headers: { accept: PARQUET, 'x-request-id': 'inv-1' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="invoices-${response.headers.get('x-request-id')!}.zip"`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(Object.keys(unzip(bytes)).sort()).toEqual(['invoice_tables.parquet', 'invoices.parquet']);
    const dir = mkdtempSync(join(tmpdir(), 'zip-'));
    try {
      writeFileSync(join(dir, 'a.zip'), bytes);
      // Python's zipfile checks every entry's CRC (an `unzip -t` equivalent present on every machine here).
      const bad = execFileSync('python3', ['-c', 'import sys,zipfile; print(zipfile.ZipFile(sys.argv[1]).testzip())', join(dir, 'a.zip')]).toString().trim();
      expect(bad).toBe('None');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('holds one row per invoice and one per line, matching the store and the JSON pages', async () => {
    for (const as of ['contoso-basic', 'contoso-full', 'contoso-financials']) {
      const entries = unzip(await exportOf('invoices', as, MARCH));
      const headers = await readParquet(entries['invoices.parquet']!);
      const lines = await readParquet(entries['invoice_tables.parquet']!);
      const pages = await allPages('invoices', as, MARCH);
      expect(headers.columns).toEqual(Object.keys(pages[0]!).filter((key) => key !== 'lines'));
      expect(lines.columns).toEqual(['invoiceId', ...Object.keys((pages[0]!.lines as Record<string, unknown>[])[0]!)]);
      expect(headers.rows.map((row) => row.invoiceId)).toEqual(pages.map((record) => record.invoiceId));
      const jsonLines = pages.flatMap((record) => (record.lines as Record<string, unknown>[]).map((line): Record<string, unknown> => ({ invoiceId: record.invoiceId, ...line })));
      expect(lines.numRows).toBe(jsonLines.length);
      expect(lines.rows.map((row) => [row.invoiceId, row.lineNumber, row.description])).toEqual(jsonLines.map((line) => [line.invoiceId, line.lineNumber, line.description]));
    }
  });

  it('has exact decimal sums of lines and headers against the store (DuckDB)', async () => {
    const expected = (await storeRecords('invoices', 'contoso')).filter(inMarch);
    const totalCents = expected.reduce((sum, record) => sum + Math.round(record.totalAmount * 100), 0);
    const lineCents = expected.flatMap((record) => record.lines).reduce((sum: number, line: { netAmount: number }) => sum + Math.round(line.netAmount * 100), 0);
    const entries = unzip(await exportOf('invoices', 'contoso-full', MARCH));
    const [headers] = await withParquetFile(entries['invoices.parquet']!, (query) => query('SELECT count(*)::INTEGER AS n, sum(totalAmount)::VARCHAR AS total, count(*) FILTER (WHERE contractId IS NULL)::INTEGER AS nulls FROM $file'));
    const [lines] = await withParquetFile(entries['invoice_tables.parquet']!, (query) => query('SELECT count(*)::INTEGER AS n, sum(netAmount)::VARCHAR AS net, typeof(any_value(lineNumber)) AS t, typeof(any_value(quantity)) AS q FROM $file'));
    expect(headers).toEqual({ n: expected.length, total: (totalCents / 100).toFixed(2), nulls: expected.filter((record) => record.contractId === null).length });
    expect(lines).toEqual({ n: expected.flatMap((record) => record.lines).length, net: (lineCents / 100).toFixed(2), t: 'INTEGER', q: 'DECIMAL(18,4)' });
  });

  it('gives a basic caller no financial or supplier columns in either file', async () => {
    const entries = unzip(await exportOf('invoices', 'contoso-basic', MARCH));
    const headers = await readParquet(entries['invoices.parquet']!);
    const lines = await readParquet(entries['invoice_tables.parquet']!);
    for (const column of ['netAmount', 'taxAmount', 'totalAmount', 'currency', 'supplierId', 'supplierName', 'purchaseOrderId']) expect(headers.columns).not.toContain(column);
    expect(lines.columns).toEqual(['invoiceId', 'lineNumber', 'description', 'commodityCode', 'quantity', 'unitOfMeasure']);
    expect(headers.rows.some((row) => row.status === 'Draft')).toBe(false);
  });

  it('answers an empty result as a zip of two typed, empty files', async () => {
    const entries = unzip(await exportOf('invoices', 'contoso-full', { contractId: 'no-such-contract' }));
    expect((await readParquet(entries['invoices.parquet']!)).numRows).toBe(0);
    const lines = await readParquet(entries['invoice_tables.parquet']!);
    expect(lines.numRows).toBe(0);
    expect(lines.columns).toHaveLength(9);
  });
});

describe('the export under its own media type', () => {
  it('answers Accept: application/zip with the invoices zip, and refuses it for contracts (one Parquet file)', async () => {
    const invoices = await call('invoices', { body: MARCH, headers: { accept: 'application/zip' } });
    expect([invoices.status, invoices.headers.get('content-type')]).toEqual([200, 'application/zip']);
    expect(Object.keys(unzip(new Uint8Array(await invoices.arrayBuffer()))).sort()).toEqual(['invoice_tables.parquet', 'invoices.parquet']);
    const contracts = await call('contracts', { body: MARCH, headers: { accept: 'application/zip' } });
    expect(contracts.status).toBe(406);
  });
});
