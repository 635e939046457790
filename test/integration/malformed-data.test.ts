import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { RESOURCES } from '../../shared/model/resources.js';
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
/** A well-formed stored document of each resource, taken before any test writes a malformed one. */
const templates: Record<string, Record<string, unknown>> = {};

beforeAll(async () => {
  own = await startOwnTenant(40, { clients: ['contoso-full', 'contoso-basic'] });
  const at = '2025-05-15T10:00:00.000Z';
  const contract = (templates.contracts = (await own.documents('contracts'))[0]!);
  const invoice = (templates.invoices = (await own.documents('invoices'))[0]!);
  const line = (invoice.lines as Record<string, unknown>[])[0]!;
  const contracts = [
    { contractAmount: 'twelve' }, { contractAmount: 1e308 }, { effectiveDate: 'not-a-date' }, { status: 'Nope' }, { expirationDate: 'soon' },
  ].map((bad, i) => ({ ...contract, ...bad, id: `CT-BAD-${i}`, contractId: `CT-BAD-${i}`, createdDate: at, updatedDate: at }));
  malformed.push(...contracts.map((document) => String(document.id)));
  await own.write('contracts', contracts);
  await own.write('invoices', [{ ...invoice, id: 'IN-BAD-LINES', invoiceId: 'IN-BAD-LINES', createdDate: at, updatedDate: at, lines: [null, { ...line, lineNumber: 'x' }, { ...line, lineNumber: 2 ** 40 }, { ...line, quantity: 1e30 }, line] }]);
});

afterAll(async () => {
  await own?.stop();
});

async function call(resource: string, body: unknown, accept: string, client = 'contoso-full'): Promise<Response> {
  const token = await own.service.idp!.signToken(accessClaims(own.service, client));
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
    const answer = await call('invoices', { ...MONTH, pageSize: 1000 }, 'application/json');
    const json = (await answer.json()) as Envelope;
    expect([answer.status, JSON.stringify(json).slice(0, 300)]).toEqual([200, expect.any(String)]);
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

/** Values of every wrong shape a writer may store where the query or the cleaner reads. */
const WRONG = fc.oneof(
  fc.constantFrom<unknown>(null, true, 0, -1, 1e308, -0, 123.456789, 0.123456789, '', 'not-a-date', 'March 15, 2025 10:00', '2025-03-15T10:00:00', '\ud800 lone', 'draft', 'Draft', '\u001b[2J', [], {}, [null], ['x'], { a: 1 }),
  fc.string(), fc.double(), fc.integer(), fc.array(fc.anything(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.anything(), { maxKeys: 3 }),
);

describe('the store\'s queries and the cleaner, over every malformed shape', () => {
  it('answer a malformed invoice of the red team (lines: "not-an-array") with 200 in every format, counting it', async () => {
    const invoice = templates.invoices!;
    await own.write('invoices', [{ ...invoice, id: 'IN-RED-LINES', invoiceId: 'IN-RED-LINES', createdDate: '2025-07-12T10:00:00.000Z', updatedDate: '2025-07-12T10:00:00.000Z', lines: 'not-an-array' }]);
    const july = { createdFrom: '2025-07-01', createdTo: '2025-07-31', pageSize: 1000 };
    for (const client of ['contoso-full', 'contoso-basic']) {
      const json = await call('invoices', july, 'application/json', client);
      expect([client, json.status]).toEqual([client, 200]);
      const zip = await call('invoices', { createdFrom: july.createdFrom, createdTo: july.createdTo }, 'application/zip', client);
      expect([client, zip.status]).toEqual([client, 200]);
    }
  });

  it('never fail a request, and JSON and Parquet leave out, null and count the same (property)', async () => {
    let run = 0;
    await fc.assert(fc.asyncProperty(
      fc.constantFrom(...RESOURCES.map((resource) => resource.name)),
      fc.array(fc.tuple(fc.nat(), WRONG), { minLength: 1, maxLength: 4 }),
      fc.option(WRONG, { nil: undefined }),
      async (name, changes, lines) => {
        const resource = RESOURCES.find((candidate) => candidate.name === name)!;
        const day = new Date(Date.UTC(2031, 0, 1) + run++ * 86_400_000).toISOString().slice(0, 10);
        const template = templates[name]!;
        const document: Record<string, unknown> = { ...template, id: `BAD-${day}`, [resource.idField]: `BAD-${day}`, createdDate: `${day}T10:00:00.000Z` };
        // Every field but the two the test finds it by may be of a wrong shape; the lines too.
        const mutable = resource.fields.filter((field) => field.name !== 'createdDate' && field.name !== resource.idField);
        for (const [index, value] of changes) document[mutable[index % mutable.length]!.name] = value;
        if (resource.lines && lines !== undefined) document[resource.lines.member] = lines;
        if (resource.draftReferences) document[resource.draftReferences.statusProperty] = changes[0]![1];
        await own.write(name, [document]);
        const filters = { createdFrom: day, createdTo: day };
        for (const client of ['contoso-full', 'contoso-basic']) {
          const json = await call(name, { ...filters, pageSize: 1000 }, 'application/json', client);
          expect([client, json.status]).toEqual([client, 200]);
          const page = (await json.json()) as Envelope;
          const exported = await call(name, filters, 'application/vnd.apache.parquet', client);
          expect([client, exported.status]).toEqual([client, 200]);
          const bytes = new Uint8Array(await exported.arrayBuffer());
          const files = resource.lines ? unzip(bytes) : { [`${name}.parquet`]: bytes };
          const table = await readParquet(files[Object.keys(files).find((file) => !file.includes('_tables'))!]!);
          expect(table.rows.map((row) => row[resource.idField])).toEqual(page.data.map((record) => record[resource.idField]));
          const counts = table.metadata['summary.malformedData'];
          const said = counts === undefined ? undefined : (JSON.parse(counts) as { recordsLeftOut: number; linesLeftOut: number; nulled: number });
          expect(page.meta.warning === undefined).toBe(said === undefined);
          if (said) {
            if (said.recordsLeftOut > 0) expect(page.meta.warning).toContain(`${said.recordsLeftOut} record${said.recordsLeftOut === 1 ? '' : 's'} left out`);
            if (said.linesLeftOut > 0) expect(page.meta.warning).toContain(`${said.linesLeftOut} line${said.linesLeftOut === 1 ? '' : 's'} left out`);
            if (said.nulled > 0) expect(page.meta.warning).toContain(`${said.nulled} malformed value`);
          }
        }
      },
    ), { numRuns: 20, seed: 20261127, endOnFailure: true });
  }, 180_000);

  it('answer one stored value alike in JSON and Parquet: extra decimal digits, a time without offset, a lone surrogate are malformed in both', async () => {
    const contract = templates.contracts!;
    const at = '2025-08-15T10:00:00.000Z';
    const cases: Record<string, Record<string, unknown>> = {
      'CT-DIGITS': { contractAmount: 123.456789 },
      'CT-NO-OFFSET': { updatedDate: 'March 15, 2025 10:00' },
      'CT-LOCAL': { updatedDate: '2025-03-15T10:00:00' },
      'CT-SURROGATE': { title: 'broken \ud800 title' },
      'CT-FINE': { contractAmount: 123.45, updatedDate: '2025-03-15T10:00:00+02:00', title: 'fine \u{1F600}' },
    };
    await own.write('contracts', Object.entries(cases).map(([id, values]) => ({ ...contract, ...values, id, contractId: id, createdDate: at })));
    const august = { createdFrom: '2025-08-01', createdTo: '2025-08-31' };
    const page = (await (await call('contracts', { ...august, pageSize: 1000 }, 'application/json')).json()) as Envelope;
    const table = await readParquet(new Uint8Array(await (await call('contracts', august, 'application/vnd.apache.parquet')).arrayBuffer()));
    const json = Object.fromEntries(page.data.map((record) => [record.contractId, record]));
    const parquet = Object.fromEntries(table.rows.map((row) => [row.contractId, row]));
    expect(Object.keys(json).sort()).toEqual(Object.keys(parquet).sort());
    // Required fields malformed: the record is left out of both.
    for (const id of ['CT-DIGITS', 'CT-NO-OFFSET', 'CT-LOCAL', 'CT-SURROGATE']) expect([id, json[id], parquet[id]]).toEqual([id, undefined, undefined]);
    expect(json['CT-FINE']).toMatchObject({ contractAmount: 123.45, updatedDate: '2025-03-15T10:00:00+02:00', title: 'fine \u{1F600}' });
    expect(parquet['CT-FINE']!.title).toBe('fine \u{1F600}');
    expect(new Date(parquet['CT-FINE']!.updatedDate as string | Date).toISOString()).toBe('2025-03-15T08:00:00.000Z');
    expect(page.meta.warning).toMatch(/4 records left out/);
    expect(table.metadata['summary.malformedData']).toBe('{"recordsLeftOut":4,"linesLeftOut":0,"nulled":0}');
  });
});
