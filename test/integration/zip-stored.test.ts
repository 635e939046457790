import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { zipOverhead, zipStored } from '../../shared/output/zip-stored.js';
import { tempDirs } from '../support/temp-dirs.js';

const tempDir = tempDirs('zip');

describe('zipStored', () => {
  const a = [Uint8Array.of(1, 2, 3), new Uint8Array(70_000).fill(7), Uint8Array.of(9)];
  const b = [Uint8Array.from({ length: 1000 }, (_, i) => i % 251)];
  const entries = { 'invoices.parquet': a, 'Übersicht.parquet': b, 'empty.parquet': [] };
  const zip = zipStored(entries, new Date('2026-03-04T05:06:08Z'));

  it('stores each entry as its parts joined, which another unzipper reads back', () => {
    const files = unzipSync(zip);
    expect(Object.keys(files).sort()).toEqual(['empty.parquet', 'invoices.parquet', 'Übersicht.parquet']);
    expect(Buffer.compare(files['invoices.parquet']!, Buffer.concat(a))).toBe(0);
    expect(Buffer.compare(files['Übersicht.parquet']!, Buffer.concat(b))).toBe(0);
    expect(files['empty.parquet']!.byteLength).toBe(0);
  });

  it('adds exactly zipOverhead bytes around the entries', () => {
    const content = [...a, ...b].reduce((sum, part) => sum + part.byteLength, 0);
    expect(zip.byteLength).toBe(content + zipOverhead(Object.keys(entries)));
  });

  it("passes Python's zipfile check: every CRC, UTF-8 names, the date in UTC", () => {
    const path = join(tempDir(), 'a.zip');
    writeFileSync(path, zip);
    const script = 'import sys,zipfile,json; z=zipfile.ZipFile(sys.argv[1]); print(json.dumps({"bad": z.testzip(), "names": z.namelist(), "date": z.infolist()[0].date_time, "stored": all(i.compress_type == 0 for i in z.infolist())}))';
    const report = JSON.parse(execFileSync('python3', ['-c', script, path]).toString()) as { bad: null; names: string[]; date: number[]; stored: boolean };
    expect(report).toEqual({ bad: null, names: ['invoices.parquet', 'Übersicht.parquet', 'empty.parquet'], date: [2026, 3, 4, 5, 6, 8], stored: true });
  });
});
