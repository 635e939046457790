import { readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pull, readSettings, summaryApi, type PullOptions } from '../../client/src/index.js';
import { projectRoot } from '../../dev/project-root.js';
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
  own = await startOwnTenant(40);
}, 60_000);

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

function manifest(dir: string): { version: number; windows: { window: string; status: string; from: string; to: string; files: { file: string }[]; finishedAt: string }[] } {
  return JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8'));
}

describe('a nightly pull', () => {
  it('ends with exactly the stored records run after run, a record created after the first run included', async () => {
    const dir = outDir();
    const args = ['contracts', '--from', '2025-01-01', '--to', today, '--out', dir];
    const first = await runPull(args);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(new RegExp(`^open: (.*, )?${thisMonth}-01_${today} \\(not settled yet: the next run pulls`, 'm'));
    expect(await folderIds(dir)).toEqual(await storedIds());

    const created = await createContract('LATE');
    const second = await runPull(args);
    expect(second.code).toBe(0);
    // Settled months are not asked again; the open ones are.
    const [, now, done] = /^pulled: \d+ windows \((\d+) now, (\d+) already done\)/m.exec(second.stderr) ?? [];
    expect(Number(now)).toBeGreaterThanOrEqual(1);
    expect(Number(now)).toBeLessThanOrEqual(2);
    expect(Number(done)).toBeGreaterThan(10);
    const ids = await folderIds(dir);
    expect(ids).toContain(created);
    expect(ids).toEqual(await storedIds());
    // The open month is one file, named by the month while it grows, replaced in place run after run.
    expect(readdirSync(dir).filter((name) => name.startsWith(`contracts-${thisMonth}`))).toEqual([`contracts-${thisMonth}.parquet`]);
  });

  it('records a window done once it has settled, and from then on skips it', async () => {
    const dir = outDir();
    const settings = readSettings(own.settings);
    const api = summaryApi(settings);
    const options: PullOptions = { dataset: 'contracts', from: `${thisMonth}-01`, to: today, by: 'created', format: 'parquet', filters: {}, out: dir, source: { service: settings.baseUrl, client: settings.client } };
    const label = `${thisMonth}-01_${today}`;
    const first = await pull(api, options);
    expect({ open: first.open, status: manifest(dir).windows.map((entry) => entry.status) }).toEqual({ open: [label], status: ['open'] });
    const again = await pull(api, options);
    expect({ pulled: again.pulled, resumed: again.resumed }).toEqual({ pulled: 1, resumed: 0 });

    // Two days on, the window's last day is a whole day behind: settled.
    const later = () => Date.now() + 2 * DAY_MS;
    const settled = await pull(api, { ...options, now: later });
    expect({ open: settled.open, status: manifest(dir).windows.map((entry) => entry.status) }).toEqual({ open: [], status: ['done'] });
    const skipped = await pull(api, { ...options, now: later });
    expect({ pulled: skipped.pulled, resumed: skipped.resumed, rows: skipped.rows }).toEqual({ pulled: 0, resumed: 1, rows: settled.rows });
    // A longer settle margin keeps it open longer.
    const margin = await pull(api, { ...options, now: later, settleDays: 3 });
    expect(margin.open).toEqual([label]);
  });

  it('gives an incremental feed --by updated whose merge in docs/consuming.md keeps the latest row per id', async () => {
    const dir = outDir();
    const args = ['contracts', '--by', 'updated', '--from', '2025-01-01', '--to', today, '--out', dir];
    expect((await runPull(args)).code).toBe(0);
    const changed = (await own.documents('contracts')).find((document) => String(document.updatedDate) < '2026-01')!;
    await own.write('contracts', [{ ...changed, title: 'Renamed by the writer', updatedDate: new Date().toISOString() }]);
    expect((await runPull(args)).code).toBe(0);

    // The old row stays in its settled month, the new one is in this month's file: twice in the folder.
    expect((await folderIds(dir)).filter((id) => id === changed.contractId)).toHaveLength(2);
    const merged = await withDuckDb((query) => query(changeCaptureSql('duckdb').replaceAll("'pulls/contracts-by-updated/", `'${dir}/`)));
    expect(merged.map((row) => String(row.contractId)).sort()).toEqual(await storedIds());
    expect(merged.find((row) => row.contractId === changed.contractId)?.title).toBe('Renamed by the writer');
  });
});

describe('a folder of summary-client 0.1', () => {
  it('is taken over: a window it recorded done before it settled is pulled again, so the records that landed late come', async () => {
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
    expect(result.stderr).toMatch(new RegExp(`^pulled: ${legacy.windows.length} windows? \\(${legacy.windows.length} now, 0 already done\\)`, 'm'));
    expect(readdirSync(dir)).toContain('_manifest.json');
    expect(readdirSync(dir)).not.toContain('manifest.json');
    expect(await folderIds(dir)).toContain(late);
    // Pulled after it settled: done from now on.
    expect(manifest(dir).windows.map((entry) => entry.status)).toEqual(legacy.windows.map(() => 'done'));
  });

  it('is taken over: invoices move into one folder per table, settled windows stay done', async () => {
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
    expect(dry.stdout.trim().split('\n').map((line) => line.split('\t')[3])).toEqual(['done', 'done']);
    expect(readdirSync(dir)).toContain('manifest.json');
    expect(readdirSync(dir)).toContain('invoices-2025-01.parquet');

    const result = await runPull(args);
    expect(result.stderr).toMatch(/^pulled: 2 windows \(0 now, 2 already done\)/m);
    expect(result.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['_manifest.json', 'invoice_tables', 'invoices']);
    expect(manifest(dir).windows).toEqual(current.windows);
    const stored = (await own.documents('invoices')).filter((document) => String(document.createdDate) < '2025-03').map((document) => String(document.invoiceId)).sort();
    expect(await folderIds(join(dir, 'invoices'), 'invoiceId')).toEqual(stored);
  });
});

/** A code block of docs/consuming.md's "Change capture" section, by language. */
function changeCaptureSql(language: 'duckdb'): string {
  const doc = readFileSync(join(root, 'docs', 'consuming.md'), 'utf8');
  const start = doc.indexOf('## Change capture');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const block = new RegExp(`\`\`\`${language === 'duckdb' ? 'sql' : language}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1];
  if (start < 0 || !block) throw new Error(`docs/consuming.md has no ${language} block under ## Change capture`);
  return block;
}
