import { readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isComplete, pull, readSettings, summaryApi, type PullOptions } from '../../client/src/index.js';
import { projectRoot } from '../../dev/project-root.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';
import { withDuckDb } from '../support/duckdb.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { runChild, type ChildResult } from '../support/run-child.js';
import { tempDirs } from '../support/temp-dirs.js';

// What integration engineers run every night, against a data tenant of this file's own (so records
// can be created and changed as the system that writes them does): the CLI as a child process, and
// the library in this process where the clock must move.
const root = projectRoot();
const CLI = join(root, 'client', 'bin', 'summary-client.js');
const outDir = tempDirs('scheduled');
const DAY_MS = 86_400_000;
const today = new Date().toISOString().slice(0, 10);
const thisMonth = today.slice(0, 7);
let own: OwnTenant;

beforeAll(async () => {
  // The service's clock past the quiet period: a pull right after a write is confirmed at once.
  own = await startOwnTenant(40, { service: { clock: () => Date.now() + (QUIET_SECONDS + 3) * 1000 } });
});

afterAll(async () => {
  await own?.stop();
});

function runPull(args: readonly string[]): Promise<ChildResult> {
  return runChild(process.execPath, [CLI, 'pull', ...args], own.settings, 120_000);
}

/** The ids of a folder of Parquet files, read as one dataset (every `*.parquet` in it). */
async function folderIds(dir: string, idField = 'contractId'): Promise<string[]> {
  return withDuckDb(async (query) => (await query(`SELECT ${idField} AS id FROM read_parquet('${dir}/*.parquet') ORDER BY id`)).map((row) => String(row.id)));
}

async function storedIds(resource = 'contracts', idField = 'contractId'): Promise<string[]> {
  return (await own.documents(resource)).map((document) => String(document[idField])).sort();
}

/** A contract the data's writer creates now (a copy of a stored one under a new id). */
async function createContract(suffix: string): Promise<string> {
  const template = (await own.documents('contracts'))[0]!;
  const id = `${String(template.contractId)}-${suffix}`;
  const now = new Date().toISOString();
  await own.write('contracts', [{ ...template, id, contractId: id, createdDate: now, updatedDate: now }]);
  return id;
}

function manifest(dir: string): { version: number; windows: { window: string; status: string; etag?: string; from: string; to: string; files: { file: string }[]; finishedAt: string }[] } {
  return JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8'));
}

describe('a nightly pull', () => {
  it('ends with exactly the stored records run after run, a record created after the first run included', async () => {
    const dir = outDir();
    const args = ['contracts', '--from', '2025-01', '--to', thisMonth, '--out', dir];
    const first = await runPull(args);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/^complete: /m);
    expect(await folderIds(dir)).toEqual(await storedIds());

    const created = await createContract('LATE');
    const second = await runPull(args);
    expect(second.code).toBe(0);
    // Every month is checked by its ETag; only this month changed.
    const [, windows, pulled, unchanged] = /^complete: (\d+) windows \((\d+) pulled, (\d+) unchanged\)/m.exec(second.stderr) ?? [];
    expect(Number(pulled)).toBe(1);
    expect(Number(unchanged)).toBe(Number(windows) - 1);
    const ids = await folderIds(dir);
    expect(ids).toContain(created);
    expect(ids).toEqual(await storedIds());
    expect(readdirSync(dir).filter((name) => name.startsWith(`contracts-${thisMonth}`))).toEqual([`contracts-${thisMonth}.parquet`]);
  });

  it('names a window that grows (a range ending today) by its month, so each night replaces one file in place', async () => {
    const dir = outDir();
    const settings = readSettings(own.settings);
    const api = summaryApi(settings);
    const options: PullOptions = { dataset: 'contracts', from: `${thisMonth}-01`, to: today, by: 'created', format: 'parquet', filters: {}, out: dir, source: { service: settings.baseUrl, client: settings.client } };
    expect(isComplete(await pull(api, options))).toBe(true);
    const tomorrow = new Date(Date.parse(today) + DAY_MS).toISOString().slice(0, 10);
    // On a month's last day the range is the whole month, labelled so (windows.ts, windowLabel).
    const label = tomorrow.startsWith(thisMonth) ? `${thisMonth}-01_${today}` : thisMonth;
    expect(manifest(dir).windows.map((entry) => [entry.window, entry.files.map((file) => file.file)])).toEqual([[label, [`contracts-${thisMonth}.parquet`]]]);
    // The next night asks for one more day: another result, pulled, into the same file.
    const last = tomorrow.startsWith(thisMonth) ? tomorrow : today;
    if (last === tomorrow) {
      const next = await pull(api, { ...options, to: tomorrow, now: () => Date.now() + DAY_MS });
      expect({ pulled: next.pulled, exact: isComplete(next) }).toEqual({ pulled: 1, exact: true });
      expect(readdirSync(dir).filter((name) => name.endsWith('.parquet'))).toEqual([`contracts-${thisMonth}.parquet`]);
    }
    // Days later the same range is checked, unchanged: its file stays as it is.
    const later = await pull(api, { ...options, to: last, now: () => Date.now() + 4 * DAY_MS });
    expect({ unchanged: later.unchanged, exact: isComplete(later) }).toEqual({ unchanged: 1, exact: true });
    expect(readdirSync(dir).filter((name) => name.endsWith('.parquet'))).toEqual([`contracts-${thisMonth}.parquet`]);
  });

  it('keeps a folder --by updated exact: a record updated again leaves its old month, no merge step anywhere', async () => {
    const dir = outDir();
    const args = ['contracts', '--by', 'updated', '--from', '2025-01', '--to', thisMonth, '--out', dir];
    expect((await runPull(args)).code).toBe(0);
    const changed = (await own.documents('contracts')).find((document) => String(document.updatedDate) < '2026-01')!;
    await own.write('contracts', [{ ...changed, title: 'Renamed by the writer', updatedDate: new Date().toISOString() }]);
    const second = await runPull(args);
    expect(second.code).toBe(0);
    // Its old month and this month were pulled again, nothing else.
    expect(second.stderr).toMatch(/^complete: \d+ windows \(2 pulled, \d+ unchanged\)/m);
    expect(await folderIds(dir)).toEqual(await storedIds());
    const titles = await withDuckDb((query) => query(`SELECT title FROM read_parquet('${dir}/*.parquet') WHERE contractId = '${String(changed.contractId)}'`));
    expect(titles.map((row) => row.title)).toEqual(['Renamed by the writer']);
  });

  it('accepts --settle, which is no longer needed, and says so', async () => {
    const result = await runPull(['contracts', '--from', '2025-01', '--to', '2025-01', '--settle', '3', '--out', outDir()]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^summary-client: --settle is no longer needed and is ignored: every window is checked on every run$/m);
  });
});

describe('a folder of an older summary-client', () => {
  it('of 0.1 is taken over and pulled again whole once, so the records that landed late come', async () => {
    // A window that has settled by now (its last day three days ago), which 0.1 pulled and
    // recorded done on its last day, before a late writer landed a record dated that day.
    const last = new Date(Date.now() - 3 * DAY_MS).toISOString().slice(0, 10);
    const first = new Date(Date.now() - 6 * DAY_MS).toISOString().slice(0, 10);
    const dir = outDir();
    const args = ['contracts', '--from', first, '--to', last, '--out', dir];
    expect((await runPull(args)).code).toBe(0);
    const pulled = manifest(dir);
    expect(pulled.windows.every((entry) => entry.status === 'done')).toBe(true);
    const legacy = { ...pulled, version: 1, windows: pulled.windows.map((entry) => ({ ...entry, finishedAt: `${entry.to}T12:00:00.000Z` })) };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(legacy));
    rmSync(join(dir, '_manifest.json'));
    const template = (await own.documents('contracts'))[0]!;
    const late = `${String(template.contractId)}-LATE-WRITER`;
    await own.write('contracts', [{ ...template, id: late, contractId: late, createdDate: `${last}T10:00:00.000Z`, updatedDate: `${last}T10:00:00.000Z` }]);

    const result = await runPull(args);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^a folder of an older summary-client, without ETags: pulling every window again once/m);
    expect(result.stderr).toMatch(new RegExp(`^complete: ${legacy.windows.length} windows? \\(${legacy.windows.length} pulled, 0 unchanged\\)`, 'm'));
    expect(readdirSync(dir)).toContain('_manifest.json');
    expect(readdirSync(dir)).not.toContain('manifest.json');
    expect(await folderIds(dir)).toContain(late);
    expect(manifest(dir).windows.every((entry) => entry.status === 'done' && typeof entry.etag === 'string')).toBe(true);
    expect((await runPull(args)).stderr).toMatch(new RegExp(`^complete: ${legacy.windows.length} windows? \\(0 pulled, ${legacy.windows.length} unchanged\\)`, 'm'));
  });

  it('of 0.1 is taken over: invoices move into one folder per table, and are pulled again once', async () => {
    const dir = outDir();
    const args = ['invoices', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir];
    expect((await runPull(args)).code).toBe(0);
    const current = manifest(dir);
    // 0.1's layout: both tables side by side at the top, the manifest naming them there.
    for (const table of ['invoices', 'invoice_tables']) {
      for (const name of readdirSync(join(dir, table))) renameSync(join(dir, table, name), join(dir, name));
      rmSync(join(dir, table), { recursive: true });
    }
    const legacy = { ...current, version: 1, windows: current.windows.map((entry) => ({ ...entry, files: entry.files.map((file) => ({ ...file, file: file.file.split('/').at(-1) })) })) };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(legacy));
    rmSync(join(dir, '_manifest.json'));

    // A dry run reads it as taken over and moves nothing.
    const dry = await runChild(process.execPath, [CLI, 'pull', ...args, '--dry-run'], own.settings);
    expect(dry.stdout.trim().split('\n').map((line) => line.split('\t')[3])).toEqual(['pull', 'pull']);
    expect(readdirSync(dir)).toContain('manifest.json');
    expect(readdirSync(dir)).toContain('invoices-2025-01.parquet');

    const result = await runPull(args);
    expect(result.stderr).toMatch(/^complete: 2 windows \(2 pulled, 0 unchanged\)/m);
    expect(result.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['_manifest.json', 'invoice_tables', 'invoices']);
    const files = (windows: { files: { file: string; rows?: number }[] }[]) => windows.map((entry) => entry.files.map((file) => [file.file, file.rows]));
    expect(files(manifest(dir).windows)).toEqual(files(current.windows));
    const stored = (await own.documents('invoices')).filter((document) => String(document.createdDate) < '2025-03').map((document) => String(document.invoiceId)).sort();
    expect(await folderIds(join(dir, 'invoices'), 'invoiceId')).toEqual(stored);
  });

  it('with a version 2 manifest (no ETags) is pulled again whole once, then checked', async () => {
    const dir = outDir();
    const args = ['contracts', '--from', '2025-01', '--to', '2025-03', '--out', dir];
    expect((await runPull(args)).code).toBe(0);
    const current = manifest(dir) as { version: number; schema?: string; windows: Record<string, unknown>[] };
    const older = { version: 2, request: (current as unknown as { request: unknown }).request, windows: current.windows.map(({ etag: _etag, ...entry }) => entry) };
    writeFileSync(join(dir, '_manifest.json'), JSON.stringify(older));
    expect((await runChild(process.execPath, [CLI, 'pull', ...args, '--dry-run'], own.settings)).stdout.split('\n').filter(Boolean).map((line) => line.split('\t')[3])).toEqual(['pull', 'pull', 'pull']);
    const rewritten = await runPull(args);
    expect(rewritten.stderr).toMatch(/^complete: 3 windows \(3 pulled, 0 unchanged\)/m);
    expect(manifest(dir).version).toBe(3);
    expect((await runPull(args)).stderr).toMatch(/^complete: 3 windows \(0 pulled, 3 unchanged\)/m);
    expect(await folderIds(dir)).toEqual((await own.documents('contracts')).filter((doc) => String(doc.createdDate) < '2025-04').map((doc) => String(doc.contractId)).sort());
  });
});
