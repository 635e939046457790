import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { generationsOf } from '../../client/src/generations.js';
import { clientSettings } from '../../dev/client-settings.js';
import { projectRoot } from '../../dev/project-root.js';
import { ApiError } from '../../shared/errors/api-error.js';
import type { RecordStore } from '../../shared/store/record-store.js';
import { identities, stack } from '../support/stack.js';
import { storeRecords } from '../support/store-records.js';
import { withDuckDb } from '../support/duckdb.js';
import { leakedSecrets, runChild, type ChildResult } from '../support/run-child.js';
import { startTestService } from '../support/test-service.js';
import { tempDirs } from '../support/temp-dirs.js';

// The pull client's CLI (client/bin/summary-client.js, what `npx summary-client` runs) as a user runs it:
// a child process with the SUMMARY_* settings `npm start` prints and the local CA trusted, against
// the local stack, read back with DuckDB and compared with the store itself.
const CLI = join(projectRoot(), 'client', 'bin', 'summary-client.js');
const YEAR = ['--from', '2025-01-01', '--to', '2025-12-31'];
const outDir = tempDirs('pull');

/** A port nothing listens on (taken, then given back). */
const closedPort = await (async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  return port;
})();

function settingsFor(target: { baseUrl: string; authUrl: string } = stack): Record<string, string> {
  return clientSettings({ ...target, identities, caFile: stack.caFile });
}

function runPull(args: readonly string[], settings = settingsFor()): Promise<ChildResult> {
  return runChild(process.execPath, [CLI, 'pull', ...args], settings, 120_000);
}

/** The stored ids of contoso's `resource` created in 2025: what a year's pull must hold, once each. */
async function storedIds(resource: string, idField: string): Promise<string[]> {
  const records = await storeRecords(resource, 'contoso');
  return records.filter((record) => String(record.createdDate).startsWith('2025-')).map((record) => String(record[idField])).sort();
}

/** The ids in a folder of Parquet files, read as a reader reads a dataset folder: every `*.parquet` in it. */
async function parquetIds(dir: string, idField: string): Promise<string[]> {
  return withDuckDb(async (query) => {
    const rows = await query(`SELECT ${idField} AS id FROM read_parquet('${dir}/*.parquet', union_by_name = true) ORDER BY id`);
    return rows.map((row) => String(row.id));
  });
}

function manifest(dir: string): { windows: { window: string; status: string; rows: number; files: { file: string; sha256: string }[]; requestIds: string[] }[] } {
  return JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8'));
}

describe('summary-client pull', () => {
  it('pulls a year of contracts as Parquet, one file per month, every stored record exactly once', async () => {
    const dir = outDir();
    const result = await runPull(['contracts', ...YEAR, '--out', dir]);
    expect(result.stderr).toMatch(/^complete: 12 windows \(12 pulled, 0 unchanged\)/m);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(readdirSync(dir).sort()).toEqual(['_manifest.json', ...Array.from({ length: 12 }, (_, month) => `contracts-2025-${String(month + 1).padStart(2, '0')}.parquet`)]);
    const expected = await storedIds('contracts', 'contractId');
    expect(expected.length).toBeGreaterThan(100);
    expect(await parquetIds(dir, 'contractId')).toEqual(expected);
    const windows = manifest(dir).windows;
    expect(windows.map((entry) => entry.status)).toEqual(Array(12).fill('done'));
    expect(windows.reduce((total, entry) => total + entry.rows, 0)).toBe(expected.length);
    expect(windows.every((entry) => entry.requestIds.length === 1 && entry.requestIds[0] !== '')).toBe(true);
    expect(leakedSecrets(result.stdout + result.stderr + readFileSync(join(dir, '_manifest.json'), 'utf8'), settingsFor())).toEqual([]);
  });

  it('pulls the same year as JSON Lines by walking every page, the same records', async () => {
    const dir = outDir();
    const result = await runPull(['contracts', ...YEAR, '--format', 'jsonl', '--page-size', '37', '--out', dir]);
    expect(result.code).toBe(0);
    const ids = readdirSync(dir).filter((name) => name.endsWith('.jsonl'))
      .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean).map((line) => String((JSON.parse(line) as { contractId: string }).contractId)));
    expect(ids.sort()).toEqual(await storedIds('contracts', 'contractId'));
  });

  it('pulls invoices as their two tables taken out of each zip, one folder per table', async () => {
    const dir = outDir();
    const result = await runPull(['invoices', '--from', '2025-01-01', '--to', '2025-06-30', '--out', dir]);
    expect(result.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['_manifest.json', 'invoice_tables', 'invoices']);
    const months = ['01', '02', '03', '04', '05', '06'];
    expect(readdirSync(join(dir, 'invoices')).sort()).toEqual(months.map((month) => `invoices-2025-${month}.parquet`));
    expect(readdirSync(join(dir, 'invoice_tables')).sort()).toEqual(months.map((month) => `invoice_tables-2025-${month}.parquet`));
    const records = (await storeRecords('invoices', 'contoso')).filter((record) => String(record.createdDate) < '2025-07');
    expect(await parquetIds(join(dir, 'invoices'), 'invoiceId')).toEqual(records.map((record) => String(record.invoiceId)).sort());
    const lines = await withDuckDb((query) => query(`SELECT count(*) AS lines, count(lineNumber) AS numbered FROM read_parquet('${dir}/invoice_tables/*.parquet')`));
    const stored = records.reduce((total, record) => total + (record.lines as unknown[]).length, 0);
    expect(lines.map((row) => [Number(row.lines), Number(row.numbered)])).toEqual([[stored, stored]]);
  });

  it('resumes a run stopped midway to the same files, pulling only what was missing', async () => {
    const complete = outDir();
    expect((await runPull(['contracts', ...YEAR, '--out', complete])).code).toBe(0);

    const dir = outDir();
    const child = spawn(process.execPath, [CLI, 'pull', 'contracts', ...YEAR, '--out', dir], { env: { PATH: process.env.PATH ?? '', ...settingsFor() }, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Stopped as soon as a few windows are in the manifest (or it finished first: then nothing to resume).
    while (child.exitCode === null && !(existsSync(join(dir, '_manifest.json')) && manifest(dir).windows.length >= 3)) await new Promise((resolve) => setTimeout(resolve, 5));
    child.kill('SIGKILL');
    await exited;
    // The windows listed (stopped between listing a window and renaming its file into place, the
    // finished file is still hidden: the next run renames it).
    const before = manifest(dir).windows.filter((entry) => entry.files.every((file) => existsSync(join(dir, file.file)) || existsSync(join(dir, `.${file.file}.partial`)))).length;

    const resumed = await runPull(['contracts', ...YEAR, '--out', dir]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`^complete: 12 windows \\(${12 - before} pulled, ${before} unchanged\\)`, 'm'));
    const files = (folder: string) => Object.fromEntries(manifest(folder).windows.map((entry) => [entry.window, entry.files.map((file) => file.file)]));
    expect(files(dir)).toEqual(files(complete));
    expect(readdirSync(dir).filter((name) => name.endsWith('.partial'))).toEqual([]);
    expect(await parquetIds(dir, 'contractId')).toEqual(await storedIds('contracts', 'contractId'));

    const again = await runPull(['contracts', ...YEAR, '--out', dir]);
    expect(again.stderr).toMatch(/^complete: 12 windows \(0 pulled, 12 unchanged\)/m);
  });

  it('gets its token from SUMMARY_TOKEN_URL as well as from the authority host and tenant', async () => {
    const { SUMMARY_AUTHORITY_HOST: host, SUMMARY_TENANT_ID: tenant, ...rest } = settingsFor();
    const result = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-01-31', '--out', outDir()], { ...rest, SUMMARY_TOKEN_URL: `${host}/${tenant}/oauth2/v2.0/token` });
    expect(result.stderr).toMatch(/^complete: 1 window \(1 pulled, 0 unchanged\)/m);
    expect(result.code).toBe(0);
  });

  it('refuses a folder that holds a pull of something else, changing nothing', async () => {
    const dir = outDir();
    expect((await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-01-31', '--out', dir])).code).toBe(0);
    const before = readFileSync(join(dir, '_manifest.json'), 'utf8');
    const other = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-01-31', '--format', 'jsonl', '--out', dir]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/holds a pull of contracts as parquet by created from https:\/\/127\.0\.0\.1:\d+\/api as c0000001-[\w-]+, not of contracts as jsonl by created from .*: use another --out/);
    expect(readFileSync(join(dir, '_manifest.json'), 'utf8')).toBe(before);
    writeFileSync(join(dir, '_manifest.json'), '{"version": 2, "windo');
    const broken = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-01-31', '--out', dir]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/_manifest\.json cannot be read .*: pull into another --out/);
  });

  it('lists the calendar-month windows of --dry-run without asking the service or needing settings', async () => {
    const result = await runChild(process.execPath, [CLI, 'pull', 'contracts', '--from', '2024-01-31', '--to', '2024-03-02', '--dry-run'], {});
    expect(result).toEqual({ code: 0, stdout: '2024-01-31_2024-01-31\t2024-01-31\t2024-01-31\tpull\n2024-02\t2024-02-01\t2024-02-29\tpull\n2024-03-01_2024-03-02\t2024-03-01\t2024-03-02\tpull\n', stderr: '' });
  });

  it('says in --dry-run which windows a run would check by their ETags and which it would pull, changing nothing', async () => {
    const dir = outDir();
    expect((await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir])).code).toBe(0);
    const before = readFileSync(join(dir, '_manifest.json'), 'utf8');
    const nextYear = `${new Date().getUTCFullYear() + 1}-01`;
    const result = await runChild(process.execPath, [CLI, 'pull', 'contracts', '--from', '2025-01-01', '--to', `${nextYear}-31`, '--dry-run', '--out', dir], {});
    expect(result.code).toBe(0);
    const states = Object.fromEntries(result.stdout.trim().split('\n').map((line) => [line.split('\t')[0], line.split('\t')[3]]));
    expect(states).toMatchObject({ '2025-01': 'check', '2025-02': 'check', '2025-03': 'pull', [nextYear]: 'pull' });
    expect(readFileSync(join(dir, '_manifest.json'), 'utf8')).toBe(before);
  });

  it('names the missing settings and exits 2, printing no secret', async () => {
    const { SUMMARY_API_KEY: _dropped, ...rest } = settingsFor();
    const result = await runPull(['contracts', ...YEAR, '--out', outDir()], rest);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/set SUMMARY_API_KEY/);
    expect(leakedSecrets(result.stdout + result.stderr, settingsFor())).toEqual([]);
  });

  it('stops at once with exit 2 when no token can be had, saying why, printing no secret and leaving nothing', async () => {
    const dir = outDir();
    const wrong = { ...settingsFor(), SUMMARY_CLIENT_SECRET: 'dev-only-wrong-secret' };
    const started = Date.now();
    const result = await runPull(['contracts', ...YEAR, '--out', dir], wrong);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^summary-client: no access token: the authority refused the client \(invalid_client: \S[^)]*\): check SUMMARY_CLIENT_ID, SUMMARY_CLIENT_SECRET/m);
    // The authority's code and description, as the loader prints them: no frame of empty fields.
    expect(result.stderr).not.toMatch(/Not Available|Error\(s\)|Correlation ID/);
    expect(Date.now() - started).toBeLessThan(15_000); // not retried window after window
    expect(result.stderr).not.toContain('dev-only-wrong-secret');
    expect(leakedSecrets(result.stdout + result.stderr, settingsFor())).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it.each([
    ['an untrusted authority certificate', (settings: Record<string, string>) => omit(settings, 'SUMMARY_CA_FILE'), /the certificate of the authority https:\/\/127\.0\.0\.1:\d+ is not trusted here \(\w+\): set SUMMARY_CA_FILE/],
    ['an unreachable authority', (settings: Record<string, string>) => ({ ...settings, SUMMARY_AUTHORITY_HOST: `https://127.0.0.1:${closedPort}` }), /the authority https:\/\/127\.0\.0\.1:\d+ cannot be reached \(.*ECONNREFUSED\): check SUMMARY_AUTHORITY_HOST/],
    ['a tenant the authority does not know', (settings: Record<string, string>) => ({ ...settings, SUMMARY_TENANT_ID: '99999999-9999-4999-8999-999999999999' }), /does not know the tenant 99999999-9999-4999-8999-999999999999: check SUMMARY_TENANT_ID/],
    ['a CA file that is not one', (settings: Record<string, string>) => ({ ...settings, SUMMARY_CA_FILE: join(projectRoot(), 'README.md') }), /SUMMARY_CA_FILE .*README\.md holds no PEM certificate/],
  ])('tells %s apart when no token comes (exit 2)', async (_case, change, message) => {
    const result = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-01-31', '--out', outDir()], change(settingsFor()));
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });

  it('prints its version, and usage with exit 2 when given nothing to do', async () => {
    const version = JSON.parse(readFileSync(join(projectRoot(), 'client', 'package.json'), 'utf8')).version as string;
    expect(await runChild(process.execPath, [CLI, '--version'], {})).toEqual({ code: 0, stdout: `summary-client ${version}\n`, stderr: '' });
    const nothing = await runChild(process.execPath, [CLI], {});
    expect({ code: nothing.code, stdout: nothing.stdout }).toEqual({ code: 2, stdout: '' });
    expect(nothing.stderr).toMatch(/^summary-client: what to do\? summary-client pull <contracts\|invoices> …\nusage: /);
    const parquetPages = await runChild(process.execPath, [CLI, 'pull', 'contracts', '--from', '2025-01-01', '--to', '2025-01-31', '--page-size', '10', '--out', outDir()], {});
    expect(parquetPages.code).toBe(2);
    expect(parquetPages.stderr).toMatch(/^summary-client: --page-size is for --format jsonl/);
  });

  it('writes no file for a window without records in JSON Lines (an empty .jsonl trips readers)', async () => {
    const dir = outDir();
    const result = await runPull(['contracts', '--from', '2023-01-01', '--to', '2023-02-28', '--format', 'jsonl', '--out', dir]);
    expect(result.stderr).toMatch(/^complete: 2 windows \(2 pulled, 0 unchanged\), 0 rows, 0 B in 0 files/m);
    expect(result.code).toBe(0);
    expect(readdirSync(dir)).toEqual(['_manifest.json']);
  });

  it('pulls into the same folder once the settings are corrected after a failed sign-in', async () => {
    const dir = join(outDir(), 'contracts');
    const otherClient = { ...settingsFor(), SUMMARY_CLIENT_ID: identities.clients.find((candidate) => candidate.name === 'contoso-basic')!.clientId };
    const failed = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir], otherClient);
    expect(failed.code).toBe(2);
    expect(existsSync(dir)).toBe(false);
    const corrected = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir]);
    expect(corrected.stderr).toMatch(/^complete: 2 windows \(2 pulled, 0 unchanged\)/m);
    expect(corrected.code).toBe(0);
  });

  it('keeps the parts of months that ranges sliding along pull into one folder, once each, and refuses a range that would overlap one in part', async () => {
    const dir = outDir();
    const runPull = (args: readonly string[]) => runChild(process.execPath, [CLI, 'pull', ...args, '--via', 'windows'], settingsFor(), 120_000);
    expect((await runPull(['contracts', '--from', '2025-03-15', '--to', '2025-04-15', '--out', dir])).code).toBe(0);
    expect((await runPull(['contracts', '--from', '2025-04-16', '--to', '2025-05-31', '--out', dir])).code).toBe(0);
    expect(readdirSync(dir).filter((name) => name.endsWith('.parquet')).sort()).toEqual(['contracts-2025-03-15_2025-03-31.parquet', 'contracts-2025-04-01_2025-04-15.parquet', 'contracts-2025-04-16_2025-04-30.parquet', 'contracts-2025-05.parquet']);
    const records = await storeRecords('contracts', 'contoso');
    const expected = records.filter((record) => String(record.createdDate) >= '2025-03-15' && String(record.createdDate) < '2025-06').map((record) => String(record.contractId)).sort();
    expect(await parquetIds(dir, 'contractId')).toEqual(expected);
    const before = readFileSync(join(dir, '_manifest.json'), 'utf8');
    const straddling = await runPull(['contracts', '--from', '2025-04-01', '--to', '2025-04-20', '--out', dir]);
    expect(straddling.code).toBe(2);
    expect(straddling.stderr).toMatch(/holds 2025-04-16\.\.2025-04-30, which 2025-04-01\.\.2025-04-20 overlaps only in part/);
    expect(readFileSync(join(dir, '_manifest.json'), 'utf8')).toBe(before);
    // The whole month: its two parts tile it, so each is checked by its ETag; so are the windows the
    // folder holds outside the range (March's part, May).
    const month = await runPull(['contracts', '--from', '2025-04-01', '--to', '2025-04-30', '--out', dir]);
    expect(month.stderr).toMatch(/^complete: 3 windows \(0 pulled, 3 unchanged\)/m);
    // The same windows and files; only the times they were found current moved on.
    const listing = (text: string) => JSON.parse(text, (key, value: unknown) => (key === 'asOf' || key === 'watermark' ? undefined : value)) as unknown;
    expect(listing(readFileSync(join(dir, '_manifest.json'), 'utf8'))).toEqual(listing(before));
    expect(Date.parse(JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')).watermark)).toBeGreaterThanOrEqual(Date.parse(JSON.parse(before).watermark));
    expect(await parquetIds(dir, 'contractId')).toEqual(expected);
  });

  it('through a job, exports whole a month the folder holds in parts, and replaces the parts with it', async () => {
    const dir = outDir();
    expect((await runPull(['contracts', '--from', '2025-03-15', '--to', '2025-04-15', '--out', dir, '--via', 'job'])).code).toBe(0);
    expect((await runPull(['contracts', '--from', '2025-04-16', '--to', '2025-05-31', '--out', dir, '--via', 'job'])).code).toBe(0);
    const month = await runPull(['contracts', '--from', '2025-04-01', '--to', '2025-04-30', '--out', dir, '--via', 'job', '--json']);
    expect(month.code).toBe(0);
    // The job's April is the whole month (its parts sent no ETag for it); March's part and May, outside the range, are checked window by window.
    expect(month.stderr).toMatch(/^complete: 3 windows \(1 pulled, 2 unchanged\)/m);
    expect(readdirSync(dir).filter((name) => name.endsWith('.parquet')).sort()).toEqual(['contracts-2025-03-15_2025-03-31.parquet', 'contracts-2025-04.parquet', 'contracts-2025-05.parquet']);
    const document = JSON.parse(month.stdout) as { via: string; job: { id: string; transactionTime: string }; watermark: string };
    expect(document.via).toBe('job');
    expect(manifest(dir)).toMatchObject({ job: document.job });
    const records = await storeRecords('contracts', 'contoso');
    expect(await parquetIds(dir, 'contractId')).toEqual(records.filter((record) => String(record.createdDate) >= '2025-03-15' && String(record.createdDate) < '2025-06').map((record) => String(record.contractId)).sort());
  });

  it('removes a data file the manifest does not list (a run stopped before recording it), so that nothing loads twice', async () => {
    const dir = outDir();
    expect((await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir])).code).toBe(0);
    writeFileSync(join(dir, 'contracts-2025-02-01_2025-02-14.parquet'), readFileSync(join(dir, 'contracts-2025-02.parquet')));
    const result = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/removed 1 file\(s\) named as this pull's that its manifest does not list \(.*\): contracts-2025-02-01_2025-02-14\.parquet/);
    expect(readdirSync(dir).sort()).toEqual(['_manifest.json', 'contracts-2025-01.parquet', 'contracts-2025-02.parquet']);
  });

  it('ends exact when its manifest was deleted: files of the old layout are removed before it says so, not a run later', async () => {
    const dir = outDir();
    // Half of February, then the manifest lost: the part's file stays with nothing listing it.
    expect((await runPull(['contracts', '--from', '2025-02-01', '--to', '2025-02-14', '--out', dir])).code).toBe(0);
    rmSync(join(dir, '_manifest.json'));
    const result = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir]);
    expect(result.stderr).toMatch(/removed 1 file\(s\) named as this pull's .*: contracts-2025-02-01_2025-02-14\.parquet/);
    expect(result.stderr).toMatch(/^complete: 2 windows/m);
    expect(result.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['_manifest.json', 'contracts-2025-01.parquet', 'contracts-2025-02.parquet']);
    // Every record of the two months once: the part's rows are not there a second time.
    const records = await storeRecords('contracts', 'contoso');
    const expected = records.filter((record) => String(record.createdDate) >= '2025-01' && String(record.createdDate) < '2025-03').map((record) => String(record.contractId)).sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(await parquetIds(dir, 'contractId')).toEqual(expected);
  });

  it('exits 2 naming a file it did not write that readers would load with the folder, and never removes it', async () => {
    const dir = outDir();
    expect((await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir])).code).toBe(0);
    const copy = join(dir, 'contracts-2025-02 (copy).parquet');
    writeFileSync(copy, readFileSync(join(dir, 'contracts-2025-02.parquet')));
    // pyarrow and pandas open any visible file; DuckDB's and polars' globs any *.parquet, `_` or not.
    writeFileSync(join(dir, 'README.txt'), 'mine');
    writeFileSync(join(dir, '_old.parquet'), readFileSync(join(dir, 'contracts-2025-01.parquet')));
    // What every reader skips (a hidden or `_` name of another extension) is no concern of the folder's.
    writeFileSync(join(dir, '_notes.txt'), 'mine');
    const result = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^not complete: 2 windows \(0 pulled, 2 unchanged\)/m);
    expect(result.stderr).toMatch(/not a dataset as it is: .* holds 3 files this pull did not write, which readers of the folder load with its own: README\.txt, _old\.parquet, contracts-2025-02 \(copy\)\.parquet \(move them out/);
    expect(existsSync(copy)).toBe(true);
    for (const file of [copy, join(dir, 'README.txt'), join(dir, '_old.parquet')]) rmSync(file);
    const again = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir]);
    expect([again.code, again.stderr]).toEqual([0, expect.stringMatching(/^complete: 2 windows \(0 pulled, 2 unchanged\)/m)]);
  });

  it('finishes a window whose manifest entry was saved but whose file was not renamed into place yet (stopped in between)', async () => {
    const dir = outDir();
    expect((await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir])).code).toBe(0);
    const pulled = readFileSync(join(dir, 'contracts-2025-02.parquet'));
    // As a stop between listing and renaming leaves it: the finished file still hidden, an older one in place.
    renameSync(join(dir, 'contracts-2025-02.parquet'), join(dir, '.contracts-2025-02.parquet.partial'));
    writeFileSync(join(dir, 'contracts-2025-02.parquet'), readFileSync(join(dir, 'contracts-2025-01.parquet')));
    const result = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir]);
    expect(result.stderr).toMatch(/^finished what a run stopped before renaming: contracts-2025-02\.parquet$/m);
    expect(result.stderr).toMatch(/^complete: 2 windows \(0 pulled, 2 unchanged\)/m);
    expect(result.code).toBe(0);
    expect(readFileSync(join(dir, 'contracts-2025-02.parquet'))).toEqual(pulled);
    expect(readdirSync(dir).sort()).toEqual(['_manifest.json', 'contracts-2025-01.parquet', 'contracts-2025-02.parquet']);
  });

  it('refuses a folder another pull is writing into (its lock), and takes over the lock of a pull that is gone', async () => {
    const dir = outDir();
    writeFileSync(join(dir, '.summary-client.lock'), `${process.pid}\n`);
    const refused = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-01-31', '--out', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`another summary-client pull \\(process ${process.pid}\\) is writing into`));
    // A pid no process has: the lock of a run that was killed.
    writeFileSync(join(dir, '.summary-client.lock'), '2147483646\n');
    const taken = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-01-31', '--out', dir]);
    expect(taken.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['_manifest.json', 'contracts-2025-01.parquet']);
  });

  it.each(['windows', 'job'])('stops when the service cannot be reached, rather than trying every window (via %s)', async (via) => {
    const dir = outDir();
    const port = closedPort;
    const result = await runPull(['contracts', ...YEAR, '--out', dir, '--max-retry-wait', '0', '--via', via], { ...settingsFor(), SUMMARY_BASE_URL: `http://127.0.0.1:${port}/api` });
    expect(result.code).toBe(1);
    if (via === 'windows') {
      expect(result.stderr.match(/^2025-01: network: fetch failed: ECONNREFUSED, retrying/gm)).toHaveLength(5);
      expect(result.stderr).toMatch(/^2025-01 failed: fetch failed: ECONNREFUSED/m);
      expect(result.stderr).toMatch(/^stopped: the service could not be reached .*; the windows after it were not tried/m);
    } else {
      expect(result.stderr.match(/^export job: network: fetch failed: ECONNREFUSED, retrying/gm)).toHaveLength(5);
      expect(result.stderr).toMatch(/^stopped: the service could not be reached \(fetch failed: ECONNREFUSED\); no window was tried/m);
    }
    // Nothing answered, so nothing was written: the folder is as it was.
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops at the first window with exit 2 when the service refuses the filters, saying what to change and leaving nothing', async () => {
    const dir = outDir();
    const result = await runPull(['invoices', ...YEAR, '--filter', 'status=Nope', '--out', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^summary-client: the service refuses this pull \(400 INVALID_FILTER: .*\(request [\w-]+\)\), whatever the window: fix the --filter value/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops with exit 2 at a base URL without the operations (404), naming the setting', async () => {
    const result = await runPull(['contracts', ...YEAR, '--out', outDir()], { ...settingsFor(), SUMMARY_BASE_URL: `${stack.baseUrl}/wrong` });
    expect(result.code).toBe(2);
    // The job's kick-off (404: no export jobs there) and then the summary operation (404).
    expect(result.stderr).toMatch(/^window by window: the service offers no export jobs/);
    expect(result.stderr).toMatch(/^summary-client: the service refuses this pull \(404 NOT_FOUND.*check SUMMARY_BASE_URL/m);
  });
});

describe('a pull folder, a link to its generation (client/src/generations.ts)', () => {
  const JANUARY = ['contracts', '--from', '2025-01-01', '--to', '2025-01-31'];
  const generations = (dir: string) => readdirSync(generationsOf(dir)).filter((name) => name.startsWith('gen-')).sort();

  it('takes an older client\'s folder over: it becomes a link to a generation holding its files, the folder before kept one run', async () => {
    const dir = outDir();
    expect((await runPull([...JANUARY, '--out', dir])).code).toBe(0);
    // A folder in place, as summary-client made them before generations.
    const older = join(outDir(), 'older');
    cpSync(realpathSync(dir), older, { recursive: true });
    const before = readFileSync(join(older, 'contracts-2025-01.parquet'));
    const result = await runPull([...JANUARY, '--out', older]);
    expect([result.code, result.stderr]).toEqual([0, expect.stringMatching(/^complete: 1 window \(0 pulled, 1 unchanged\)/m)]);
    expect(result.stderr).toMatch(new RegExp(`^${older.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is now a link into `, 'm'));
    expect(lstatSync(older).isSymbolicLink()).toBe(true);
    expect(readdirSync(older).sort()).toEqual(['_manifest.json', 'contracts-2025-01.parquet']);
    expect(readFileSync(join(older, 'contracts-2025-01.parquet')).equals(before)).toBe(true);
    // The folder as it was (without the lock the run took in it) is the generation before.
    expect(generations(older)).toEqual(['gen-1', 'gen-2']);
    expect(readdirSync(join(generationsOf(older), 'gen-1')).sort()).toEqual(['_manifest.json', 'contracts-2025-01.parquet']);
    // Run after run, the generation readers see and the one before are all that is kept.
    expect((await runPull([...JANUARY, '--out', older])).code).toBe(0);
    expect((await runPull([...JANUARY, '--out', older])).code).toBe(0);
    expect(generations(older)).toEqual(['gen-3', 'gen-4']);
    expect(realpathSync(older)).toBe(join(realpathSync(generationsOf(older)), 'gen-4'));
    // A run refused at its start shows nothing new and leaves no generation.
    expect((await runPull([...JANUARY, '--out', older], { ...settingsFor(), SUMMARY_CLIENT_SECRET: 'wrong-secret' })).code).toBe(2);
    expect(generations(older)).toEqual(['gen-3', 'gen-4']);
    expect(realpathSync(older)).toBe(join(realpathSync(generationsOf(older)), 'gen-4'));
  });

  it('refuses an --out inside another folder\'s generations (a copied link, its real path, a link to its link): exit 2, that folder untouched', async () => {
    const dir = outDir();
    expect((await runPull([...JANUARY, '--out', dir])).code).toBe(0);
    const shown = realpathSync(dir);
    const copied = join(dirname(dir), `${basename(dir)}-copied`);
    symlinkSync(readlinkSync(dir), copied);
    const mine = join(outDir(), 'mine');
    symlinkSync(dir, mine);
    try {
      for (const out of [copied, shown, mine, join(dir, 'new', 'sub')]) {
        const result = await runPull([...JANUARY, '--out', out]);
        expect([out, result.code]).toEqual([out, 2]);
        expect(result.stderr).toContain(`inside the generations of the pull folder ${dir}: a run here would change that folder behind its lock. Pull into ${dir} itself`);
      }
      expect(realpathSync(dir)).toBe(shown);
      expect(existsSync(generationsOf(copied))).toBe(false);
      expect(readdirSync(generationsOf(dir)).sort()).toEqual(['gen-1', 'gen-2']);
      expect(readdirSync(dir).sort()).toEqual(['_manifest.json', 'contracts-2025-01.parquet']);
    } finally {
      rmSync(copied, { force: true });
    }
    // A folder of the user's that is only named like generations is no pull's.
    const named = join(outDir(), '.acme.summary-client', 'data', 'c');
    expect((await runPull([...JANUARY, '--out', named])).code).toBe(0);
    expect(lstatSync(named).isSymbolicLink()).toBe(true);
  });

  it('never goes on in a generation a killed run left half made or half removed, and keeps the folder\'s modes', async () => {
    const dir = outDir();
    chmodSync(dir, 0o750);
    expect((await runPull([...JANUARY, '--out', dir])).code).toBe(0);
    const home = generationsOf(dir);
    expect([statSync(home).mode & 0o777, statSync(realpathSync(dir)).mode & 0o777]).toEqual([0o750, 0o750]);
    // As a run killed while it linked a generation (its manifest not yet in), or removed one, leaves them.
    mkdirSync(join(home, '.making-7'));
    mkdirSync(join(home, '.removing-1'));
    writeFileSync(join(home, '.removing-1', 'contracts-2025-01.parquet'), 'half removed');
    symlinkSync('gen-9', join(home, '.link-1'));
    const result = await runPull([...JANUARY, '--out', dir, '--via', 'windows']);
    expect([result.code, result.stderr]).toEqual([0, expect.not.stringMatching(/going on from a run stopped/)]);
    expect(readdirSync(home).sort()).toEqual(['gen-2', 'gen-3']);
    expect(readdirSync(dir).sort()).toEqual(['_manifest.json', 'contracts-2025-01.parquet']);
  });

  it('works in place through a link of the user\'s to a folder elsewhere: the link stays, the files are where it points', async () => {
    const target = outDir();
    const link = join(outDir(), 'mine');
    symlinkSync(target, link);
    const result = await runPull([...JANUARY, '--out', link]);
    expect(result.code).toBe(0);
    expect(readlinkSync(link)).toBe(target);
    expect(readdirSync(target).sort()).toEqual(['_manifest.json', 'contracts-2025-01.parquet']);
    expect(existsSync(generationsOf(link))).toBe(false);
  });
});

describe('summary-client pull against a service of its own', () => {
  it('halves a month whose export is too large down to what fits, to the same records', async () => {
    const own = await startTestService({ settings: { PARQUET_MAX_BYTES: '4500' } });
    try {
      const dir = outDir();
      const result = await runPull(['contracts', ...YEAR, '--out', dir], settingsFor({ baseUrl: own.baseUrl, authUrl: own.idp!.url }));
      expect(result.stderr).toMatch(/is too large for one export: pulling/);
      expect(result.code).toBe(0);
      expect(readdirSync(dir).some((name) => /^contracts-2025-\d\d-\d\d_2025-\d\d-\d\d\.parquet$/.test(name))).toBe(true);
      expect(await parquetIds(dir, 'contractId')).toEqual(await storedIds('contracts', 'contractId'));
    } finally {
      await own.stop();
    }
  });

  it('retries store faults (503 STORE_UNAVAILABLE) and busy exports (503 EXPORTS_BUSY) to the same records', async () => {
    let failures = 2;
    const hold = { held: false, release: () => {} };
    const faulty = (real: RecordStore): RecordStore => ({
      ...real,
      async *stream(scope, query, meter) {
        if (JSON.stringify(query.filters).includes('2024-06-01')) {
          await new Promise<void>((resolve) => {
            hold.release = resolve;
            hold.held = true;
          });
        } else if (failures-- > 0) {
          throw new ApiError('STORE_UNAVAILABLE', 'injected', { headers: { 'Retry-After': '1' } });
        }
        yield* real.stream(scope, query, meter);
      },
    });
    const own = await startTestService({ store: faulty });
    try {
      // contoso-full's own export holds its one export slot while the pull starts.
      const holding = fetch(`${own.baseUrl}/v1/contracts/summary`, {
        method: 'POST',
        headers: { ...(await ownHeaders(own.idp!.url, own.baseUrl)), accept: 'application/vnd.apache.parquet' },
        body: JSON.stringify({ createdFrom: '2024-06-01', createdTo: '2024-06-30' }),
      });
      while (!hold.held) await new Promise((resolve) => setTimeout(resolve, 10));
      // The slot is freed once the pull has been told EXPORTS_BUSY (its log line), not after a
      // time: a client slow to start on a loaded machine found the slot already free.
      const busyAnswered = (async () => {
        while (!own.logs.some((line) => line.includes('"code":"EXPORTS_BUSY"'))) await new Promise((resolve) => setTimeout(resolve, 20));
        hold.release();
      })();
      const dir = outDir();
      // EXPORTS_BUSY asks for 10 s: a bound of 12 lets the client wait it out (a shorter one would end the retries).
      const result = await runPull(['contracts', ...YEAR, '--out', dir, '--max-retry-wait', '12'], settingsFor({ baseUrl: own.baseUrl, authUrl: own.idp!.url }));
      await busyAnswered;
      expect(result.stderr).toMatch(/503 EXPORTS_BUSY, retrying in/);
      expect(result.stderr).toMatch(/503 STORE_UNAVAILABLE, retrying in/);
      expect(result.code).toBe(0);
      expect(await parquetIds(dir, 'contractId')).toEqual(await storedIds('contracts', 'contractId'));
      expect((await holding).status).toBe(200);
    } finally {
      hold.release();
      await own.stop();
    }
  });
});

function omit(settings: Record<string, string>, name: string): Record<string, string> {
  const { [name]: _dropped, ...rest } = settings;
  return rest;
}

/** The three credentials of contoso-full for a service of a test's own. */
async function ownHeaders(authUrl: string, baseUrl: string): Promise<Record<string, string>> {
  const settings = clientSettings({ baseUrl, authUrl, identities });
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: settings.SUMMARY_CLIENT_ID!, client_secret: settings.SUMMARY_CLIENT_SECRET!, scope: settings.SUMMARY_SCOPE! });
  const token = ((await (await fetch(`${authUrl}/${identities.tenantId}/oauth2/v2.0/token`, { method: 'POST', body: form })).json()) as { access_token: string }).access_token;
  return { authorization: `Bearer ${token}`, 'ocp-apim-subscription-key': settings.SUMMARY_SUBSCRIPTION_KEY!, 'x-api-key': settings.SUMMARY_API_KEY!, 'content-type': 'application/json' };
}
