import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import type { FieldSpec } from '../../../shared/model/fields.js';
import { RESOURCES } from '../../../shared/model/resources.js';
import type { StoredRecord, View } from '../../../shared/model/view.js';
import { exportParquet } from '../../../shared/output/export-parquet.js';
import { cleaningWarning, cleanRecord, newCleaningReport, planCleaning } from '../../../shared/output/record-cleaner.js';

/** One answer's cleaning: its report, and cleanRecord over the view's plan. */
function cleanerOf(view: View) {
  const plan = planCleaning(view);
  const report = newCleaningReport();
  return { report, clean: (record: StoredRecord) => cleanRecord(plan, record, report) };
}
import { MALFORMED, readingOf, readValue } from '../../../shared/output/parquet/value-reading.js';
import { generateTenantDocuments } from '../../../dev/seed-data.js';
import { readParquet, unzip } from '../../support/parquet.js';

const allowlist = buildAllowlist(DATAPOINTS);
const viewOf = (name: string): View => allowlist.view(RESOURCES.find((resource) => resource.name === name)!, Object.keys(DATAPOINTS));
const contracts = viewOf('contracts');
const invoices = viewOf('invoices');
const [contract, invoice] = (() => {
  const documents = generateTenantDocuments('cleaning', 3);
  return [documents.contracts![0]! as StoredRecord, documents.invoices![0]! as StoredRecord];
})();

/** Whether a value as answered is one its field may hold: of its type, or null where the field allows it. */
function answered(field: FieldSpec, value: unknown): boolean {
  return value === null || value === undefined ? field.nullable : readValue(readingOf(field), value) !== MALFORMED;
}

/** What a JSON page answers of a cleaned record: exactly the view's fields in order (missing: null), then the lines the same way. */
function asProjected(cleaned: StoredRecord | undefined, view: View): StoredRecord | undefined {
  if (cleaned === undefined) return undefined;
  const fieldsOf = (source: StoredRecord, fields: readonly FieldSpec[]) => Object.fromEntries(fields.map((field) => [field.name, source[field.name] ?? null]));
  const member = view.resource.lines?.member;
  return member === undefined ? fieldsOf(cleaned, view.fields) : { ...fieldsOf(cleaned, view.fields), [member]: (cleaned[member] as StoredRecord[]).map((line) => fieldsOf(line, view.lineFields)) };
}

describe('the record cleaner', () => {
  it('answers a well-formed record as it is stored, field for field, in a new object', () => {
    const cleaner = cleanerOf(invoices);
    const cleaned = cleaner.clean(invoice);
    expect(cleaned).toEqual(asProjected(invoice, invoices));
    expect(cleaned).not.toBe(invoice);
    expect(cleaningWarning(cleaner.report)).toBeUndefined();
  });

  it('leaves out a record whose required value is malformed or missing, naming record and field, never the value', () => {
    const cleaner = cleanerOf(contracts);
    for (const bad of [{ contractAmount: 'abc' }, { contractAmount: 1e308 }, { effectiveDate: 'not-a-date' }, { status: 'Nope' }, { createdDate: '2025-02-30T00:00:00.000Z' }, { title: null }, { title: 42 }]) {
      expect([bad, cleaner.clean({ ...contract, ...bad })]).toEqual([bad, undefined]);
    }
    expect(cleaner.report.recordsLeftOut).toBe(7);
    expect(cleaner.report.problems.map((problem) => problem.field)).toEqual(['contractAmount', 'contractAmount', 'effectiveDate', 'status', 'createdDate', 'title', 'title']);
    expect(cleaner.report.problems[0]!.record).toBe(contract.contractId);
    expect(JSON.stringify(cleaner.report)).not.toContain('abc');
    expect(cleaningWarning(cleaner.report)).toBe("Stored data did not match its fields: 7 records left out (a required value was missing or malformed). The counts of pagination are the store's.");
  });

  it('answers a malformed nullable value as null and keeps the record', () => {
    const cleaner = cleanerOf(contracts);
    const cleaned = cleaner.clean({ ...contract, expirationDate: 'soon' });
    expect(cleaned).toEqual(asProjected({ ...contract, expirationDate: null }, contracts));
    expect(cleaner.report).toMatchObject({ nulled: 1, recordsLeftOut: 0, problems: [{ record: contract.contractId, field: 'expirationDate' }] });
  });

  it('leaves out the lines that are not objects or hold a malformed required value, keeping the invoice', () => {
    const lines = invoice.lines as StoredRecord[];
    const cleaner = cleanerOf(invoices);
    const cleaned = cleaner.clean({ ...invoice, lines: [null, { ...lines[0]!, lineNumber: 'x' }, { ...lines[0]!, lineNumber: 2 ** 40 }, { ...lines[0]!, quantity: 1e30 }, lines[0]] });
    expect(cleaned?.lines).toEqual([lines[0]]);
    expect(cleaner.report).toMatchObject({ linesLeftOut: 4, recordsLeftOut: 0 });
    expect(cleaner.report.problems.map((problem) => problem.field)).toEqual(['lines[0]', 'lines[1].lineNumber', 'lines[2].lineNumber', 'lines[3].quantity']);
    expect(cleanerOf(invoices).clean({ ...invoice, lines: 'none' })?.lines).toEqual([]);
  });

  it('never lets a value outside its field through, and never throws, whatever is stored (property)', async () => {
    const garbage = fc.oneof(fc.constant(null), fc.constant(undefined), fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(1e308), fc.constant('2025-02-30'), fc.array(fc.anything(), { maxLength: 2 }), fc.object({ maxDepth: 1 }));
    const record = (base: StoredRecord, fields: readonly FieldSpec[]) => fc.record(Object.fromEntries(fields.map((field) => [field.name, fc.oneof(fc.constant(base[field.name]), garbage)])));
    const line = record((invoice.lines as StoredRecord[])[0]!, invoices.lineFields);
    const invoiceRecords = fc.array(fc.tuple(record(invoice, invoices.fields), fc.oneof(fc.array(fc.oneof(line, garbage), { maxLength: 4 }), garbage)).map(([fields, lines]) => ({ ...fields, lines })), { maxLength: 8 });
    await fc.assert(fc.asyncProperty(invoiceRecords, async (stored) => {
      const cleaner = cleanerOf(invoices);
      const cleaned = stored.map((candidate) => cleaner.clean(candidate));
      const kept = cleaned.filter((candidate): candidate is StoredRecord => candidate !== undefined);
      // Exactly the view's fields, lines included: what a JSON page answers and a Parquet row holds.
      for (const record of kept) expect(record).toEqual(asProjected(record, invoices));
      for (const kept1 of kept) {
        for (const field of invoices.fields) expect([field.name, answered(field, kept1[field.name])]).toEqual([field.name, true]);
        for (const kept2 of kept1.lines as StoredRecord[]) for (const field of invoices.lineFields) expect([field.name, answered(field, kept2[field.name])]).toEqual([field.name, true]);
      }
      expect(kept.length + cleaner.report.recordsLeftOut).toBe(stored.length);
      // The Parquet export of the same records neither throws nor holds anything else.
      async function* pages() { yield stored; }
      const result = await exportParquet(pages(), planCleaning(invoices), { maxBytes: 1 << 26, metadata: [], generatedAt: new Date(0), rowGroupSize: 4 });
      expect(result.records).toBe(kept.length);
      const files = unzip(result.body);
      expect((await readParquet(files['invoices.parquet']!)).numRows).toBe(kept.length);
    }), { numRuns: 60 });
  });

  it('writes the counts into the Parquet footer when it cleaned anything, and nothing when it did not', async () => {
    async function* pages(records: StoredRecord[]) { yield records; }
    const dirty = await exportParquet(pages([contract, { ...contract, contractAmount: 'abc' }, { ...contract, expirationDate: 7 }]), planCleaning(contracts), { maxBytes: 1 << 26, metadata: [], generatedAt: new Date(0) });
    expect((await readParquet(dirty.body)).metadata['summary.malformedData']).toBe('{"recordsLeftOut":1,"linesLeftOut":0,"nulled":1}');
    expect(dirty.records).toBe(2);
    const clean = await exportParquet(pages([contract]), planCleaning(contracts), { maxBytes: 1 << 26, metadata: [], generatedAt: new Date(0) });
    expect((await readParquet(clean.body)).metadata).not.toHaveProperty('summary.malformedData');
  });
});

const ROLES = Object.keys(DATAPOINTS);
const names = (fields: readonly { name: string }[]) => fields.map((field) => field.name);

describe('the projection of a JSON page', () => {
  it('keeps exactly the view\'s fields in the view\'s order, whatever else the record carries', () => {
    fc.assert(fc.property(
      fc.subarray(ROLES),
      fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue(), { maxKeys: 12 }),
      fc.constantFrom(contract, invoice),
      (roles, extra, stored) => {
        const resource = stored === invoice ? invoices.resource : contracts.resource;
        const view = allowlist.view(resource, roles);
        const lines = ((stored.lines ?? []) as StoredRecord[]).map((line) => ({ secret: 's', ...line }));
        const record = { ...extra, ...stored, tenantId: 'contoso', id: 'doc-1', ...(resource.lines ? { lines } : {}) };
        const projected = cleanerOf(view).clean(record)!;
        expect(Object.keys(projected)).toEqual([...names(view.fields), ...(resource.lines ? [resource.lines.member] : [])]);
        for (const field of view.fields) expect(projected[field.name]).toBe(stored[field.name] ?? null);
        for (const line of (projected.lines ?? []) as StoredRecord[]) expect(Object.keys(line)).toEqual(names(view.lineFields));
      },
    ), { numRuns: 200 });
  });

  it('answers a missing nullable field as null, a missing lines array as an empty one, and a new object every time', () => {
    const cleaner = cleanerOf(invoices);
    const nullable = invoices.fields.find((field) => field.nullable)!;
    const { [nullable.name]: _left, lines: _lines, ...rest } = invoice;
    const projected = cleaner.clean(rest)!;
    expect([projected[nullable.name], projected.lines]).toEqual([null, []]);
    expect(cleaner.clean(invoice)).not.toBe(invoice);
    expect(cleaner.report).toMatchObject({ nulled: 0, recordsLeftOut: 0, linesLeftOut: 0 });
  });

  it('does not answer properties a record\'s prototype carries outside the view', () => {
    const view = allowlist.view(contracts.resource, ['Data.Read']);
    const exact = Object.fromEntries(view.fields.map((field) => [field.name, contract[field.name]]));
    const sneaky = Object.assign(Object.create({ ownerEmail: 'hidden@example.com' }) as Record<string, unknown>, exact);
    expect(view.fields.map((field) => field.name)).not.toContain('ownerEmail');
    expect(JSON.parse(JSON.stringify(cleanerOf(view).clean(sneaky)))).toEqual(exact);
  });
});
