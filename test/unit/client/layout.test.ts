import { describe, expect, it } from '@jest/globals';
import { dataFile, dataFilePattern, legacyFilePattern, partialFile, strayPattern } from '../../../client/src/layout.js';

describe('the folder layout of a pull', () => {
  it('puts contracts at the top, each invoice table in a folder of its own, JSON Lines at the top', () => {
    expect(dataFile('contracts', 'contracts', '2025-03', 'parquet')).toBe('contracts-2025-03.parquet');
    expect(dataFile('invoices', 'invoices', '2025-03', 'parquet')).toBe('invoices/invoices-2025-03.parquet');
    expect(dataFile('invoices', 'invoice_tables', '2025-03-01_2025-03-16', 'parquet')).toBe('invoice_tables/invoice_tables-2025-03-01_2025-03-16.parquet');
    expect(dataFile('invoices', 'invoices', '2025-03', 'jsonl')).toBe('invoices-2025-03.jsonl');
  });

  it('hides a file while it is written: a dot in front, .partial behind, in the same folder', () => {
    expect(partialFile('contracts-2025-03.parquet')).toBe('.contracts-2025-03.parquet.partial');
    expect(partialFile('invoices/invoices-2025-03.parquet')).toBe('invoices/.invoices-2025-03.parquet.partial');
  });

  it('lets a manifest name only the files the client writes for that pull: nothing outside --out, nothing else', () => {
    const invoices = dataFilePattern('invoices', 'parquet');
    expect(['invoices/invoices-2025-03.parquet', 'invoice_tables/invoice_tables-2025-03-01_2025-03-16.parquet'].map((name) => invoices.test(name))).toEqual([true, true]);
    for (const name of ['../victim.txt', '/etc/passwd', 'invoices-2025-03.parquet', 'invoices/../invoices-2025-03.parquet', 'invoices/invoices-2025-03.parquet/../../x', 'invoices/invoice_tables-2025-03.parquet', '_manifest.json', 'invoices/invoices-2025-3.parquet']) {
      expect({ name, listed: invoices.test(name) }).toEqual({ name, listed: false });
    }
    expect(dataFilePattern('contracts', 'jsonl').test('contracts-2025-03.jsonl')).toBe(true);
    expect(dataFilePattern('contracts', 'jsonl').test('contracts-2025-03.parquet')).toBe(false);
  });

  it('knows the stray files of a stopped run per folder, and the names of summary-client 0.1', () => {
    expect(['.contracts-2025-03.parquet.partial', 'contracts-2025-03.parquet', 'contracts-2025-03.parquet.partial', 'notes.parquet', '_manifest.json'].map((name) => strayPattern('contracts', 'parquet', '').test(name))).toEqual([true, true, true, false, false]);
    expect(strayPattern('invoices', 'parquet', 'invoice_tables/').test('.invoice_tables-2025-03.parquet.partial')).toBe(true);
    expect(strayPattern('invoices', 'parquet', 'invoice_tables/').test('invoices-2025-03.parquet')).toBe(false);
    expect(legacyFilePattern('invoices', 'parquet').test('invoice_tables-2025-03.parquet')).toBe(true);
  });
});
