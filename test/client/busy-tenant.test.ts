import { spawn } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../dev/project-root.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';
import { LOCK_FILE } from '../../client/src/folder-lock.js';
import { generationsOf, workingFolder } from '../../client/src/generations.js';
import { withDuckDb } from '../support/duckdb.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { runChild, type ChildResult } from '../support/run-child.js';
import { tempDirs } from '../support/temp-dirs.js';

// A tenant whose writes never stop, as a nightly job meets it: a writer adds a record a second to
// the month being pulled, before and during the run. The service runs on the machine's clock, so
// that month's ETag is "moving" (result-etag.ts) and no check can match it. The run still ends
// complete (exit 0) with the month exported at most twice, the folder holds every record written
// before the run started, and the run after the writer stops leaves the folder equal to the store.
// Then the folder lock: taken before anything is written, by one of two runs started together.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

const CLI = join(projectRoot(), 'client', 'bin', 'summary-client.js');
const RANGE = ['--from', '2024-01', '--to', '2024-03'];
const outDir = tempDirs('busy');
const quietly = () => new Promise((resolve) => setTimeout(resolve, (QUIET_SECONDS + 1) * 1000));

let own: OwnTenant;
let template: Doc;
let serial = 0;

function contract(createdDate: string): Doc {
  const id = `CON-BUSY-${String(++serial).padStart(5, '0')}`;
  return { ...template, id, contractId: id, status: 'Published', title: `contract ${id}`, createdDate, updatedDate: createdDate };
}

/** A writer adding a record to March 2024 every second, remembering when each write had landed. */
function startWriter() {
  const written: { id: string; at: number }[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const record = contract(`2024-03-${String(10 + (serial % 15)).padStart(2, '0')}T09:00:00.000Z`);
      await own.write('contracts', [record]);
      written.push({ id: record.contractId as string, at: Date.now() });
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  return { written, stop: async () => { stopped = true; await done; } };
}

function runPull(args: readonly string[], settings = own.settings): Promise<ChildResult> {
  return runChild(process.execPath, [CLI, 'pull', 'contracts', ...args], settings, 120_000);
}

async function storedIds(): Promise<string[]> {
  return (await own.documents('contracts')).filter((doc) => String(doc.createdDate) < '2024-04').map((doc) => String(doc.contractId)).sort();
}

async function folderIds(dir: string, format: 'parquet' | 'jsonl' = 'parquet'): Promise<string[]> {
  if (format === 'jsonl') {
    return readdirSync(dir).filter((name) => name.endsWith('.jsonl')).flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean).map((line) => String((JSON.parse(line) as Doc).contractId))).sort();
  }
  return (await withDuckDb((query) => query(`SELECT contractId FROM read_parquet('${dir}/*.parquet') ORDER BY 1`))).map((row) => String(row.contractId));
}

/** The exports (200s) the service answered since log line `from`. */
function exportsSince(from: number): number {
  return own.service.logs.slice(from).map((line) => JSON.parse(line) as Doc).filter((line) => line.operation === 'contracts.summary' && line.status === 200).length;
}

interface Report {
  complete: boolean;
  watermark: string | null;
  windows: { label: string; status: string; asOf: string | null; rows: number; files: { file: string; rows: number }[] }[];
}

beforeAll(async () => {
  // With export jobs (its own Azurite and workers): the lock's tests run through a job and window by window.
  own = await startOwnTenant(1, { service: { exports: { queueSettings: { maxPollingIntervalMs: 200 } } } });
  template = (await own.documents('contracts'))[0]!;
  await own.remove('contracts', (await own.documents('contracts')).map((doc) => String(doc.id)));
  await own.write('contracts', ['01', '02', '03'].flatMap((month) => [contract(`2024-${month}-02T10:00:00.000Z`), contract(`2024-${month}-03T10:00:00.000Z`)]));
  await quietly();
});

afterAll(async () => {
  await own?.stop();
});

describe('a nightly pull of a tenant whose writes never stop', () => {
  it('ends complete with the busy month exported at most twice, every earlier write in the folder, and exact once the writer stops', async () => {
    const dir = outDir();
    const first = await runPull([...RANGE, '--via', 'windows', '--out', dir]);
    expect([first.code, first.stderr]).toEqual([0, expect.stringMatching(/^pulled: 2024-01\.\.2024-03$/m)]);

    const writer = startWriter();
    try {
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const startedAt = Date.now();
      const before = own.service.logs.length;
      const busy = await runPull([...RANGE, '--via', 'windows', '--out', dir, '--json']);
      const report = JSON.parse(busy.stdout) as Report;
      expect([busy.code, report.complete]).toEqual([0, true]);
      expect(busy.stderr).toMatch(/^still being written: 2024-03 \(kept as pulled; the next run checks it again\)$/m);
      expect(busy.stderr).toMatch(/^unchanged: 2024-01\.\.2024-02$/m);
      expect(report.windows.map((window) => [window.label, window.status])).toEqual([['2024-01', 'unchanged'], ['2024-02', 'unchanged'], ['2024-03', 'moving']]);
      // Two exports of March: the check (its stored ETag moved) and the one confirmation.
      expect(exportsSince(before)).toBeLessThanOrEqual(2);
      const inFolder = new Set(await folderIds(dir));
      expect(writer.written.filter((write) => write.at < startedAt).filter((write) => !inFolder.has(write.id))).toEqual([]);
      // The watermark is the oldest asOf, and every write before it is in the folder.
      const asOf = report.windows.map((window) => Date.parse(window.asOf!));
      expect(Date.parse(report.watermark!)).toBe(Math.min(...asOf));
      expect(Date.parse(report.watermark!)).toBeLessThanOrEqual(startedAt);
      expect(writer.written.filter((write) => write.at < Date.parse(report.watermark!)).every((write) => inFolder.has(write.id))).toBe(true);
      const manifest = JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as { watermark: string; windows: { window: string; moving?: boolean; asOf: string }[] };
      expect(manifest.watermark).toBe(report.watermark);
      expect(manifest.windows.map((entry) => [entry.window, entry.moving ?? false])).toEqual([['2024-01', false], ['2024-02', false], ['2024-03', true]]);
      // Files and rows as the folder holds them.
      expect(report.windows.find((window) => window.label === '2024-03')!.files.map((file) => file.file)).toEqual(['contracts-2024-03.parquet']);
      expect(report.windows.reduce((total, window) => total + window.rows, 0)).toBe(inFolder.size);
    } finally {
      await writer.stop();
    }

    await quietly();
    const after = await runPull([...RANGE, '--via', 'windows', '--out', dir, '--json']);
    const report = JSON.parse(after.stdout) as Report;
    expect([after.code, report.windows.map((window) => window.status)]).toEqual([0, ['unchanged', 'unchanged', 'pulled']]);
    expect(await folderIds(dir)).toEqual(await storedIds());
  });

  it('through a job too: exit 0 while the writer runs, every write before the job\'s transactionTime in the folder, and exact once it stops', async () => {
    const dir = outDir();
    expect((await runPull([...RANGE, '--via', 'job', '--out', dir])).code).toBe(0);
    const writer = startWriter();
    try {
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const startedAt = Date.now();
      const busy = await runPull([...RANGE, '--via', 'job', '--out', dir, '--json']);
      const report = JSON.parse(busy.stdout) as Report & { job: { transactionTime: string } };
      // March was exported while it was being written: named as the windows path names it, and
      // marked in the folder's manifest, so that the next run checks it again.
      expect([busy.code, report.complete, report.windows.map((window) => window.status)]).toEqual([0, true, ['unchanged', 'unchanged', 'moving']]);
      expect(busy.stderr).toMatch(/^still being written: 2024-03 \(kept as pulled; the next run checks it again\)$/m);
      const manifest = JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as { windows: { window: string; moving?: boolean }[] };
      expect(manifest.windows.map((entry) => [entry.window, entry.moving ?? false])).toEqual([['2024-01', false], ['2024-02', false], ['2024-03', true]]);
      // The watermark is the job's transactionTime: every write before it is in the folder.
      expect(report.watermark).toBe(report.job.transactionTime);
      expect(Date.parse(report.watermark!)).toBeLessThanOrEqual(startedAt);
      const inFolder = new Set(await folderIds(dir));
      expect(writer.written.filter((write) => write.at < Date.parse(report.watermark!)).filter((write) => !inFolder.has(write.id))).toEqual([]);
    } finally {
      await writer.stop();
    }
    await quietly();
    const after = await runPull([...RANGE, '--via', 'job', '--out', dir, '--json']);
    expect([after.code, (JSON.parse(after.stdout) as Report).windows.map((window) => window.status)]).toEqual([0, ['unchanged', 'unchanged', 'pulled']]);
    expect(await folderIds(dir)).toEqual(await storedIds());
  });

  it('waits for the strict answer with --until-quiet, and exits 1 naming the month still being written at its bound', async () => {
    const dir = outDir();
    expect((await runPull([...RANGE, '--out', dir])).code).toBe(0);
    const writer = startWriter();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const strict = await runPull([...RANGE, '--out', dir, '--until-quiet', '8']);
      expect(strict.code).toBe(1);
      expect(strict.stderr).toMatch(/^not complete: /m);
      expect(strict.stderr).toMatch(/^still being written: 2024-03 \(still at the end of --until-quiet; the next run checks it again\)$/m);
    } finally {
      await writer.stop();
    }
    // Quiet now: the strict run pulls the month again once it is past the quiet period, and ends
    // with it confirmed, named as pulled (its files changed in this run).
    const quiet = await runPull([...RANGE, '--out', dir, '--until-quiet', '60', '--json']);
    expect([quiet.code, quiet.stderr]).toEqual([0, expect.stringMatching(/^complete: /m)]);
    expect(quiet.stderr).not.toMatch(/the next run checks/);
    expect((JSON.parse(quiet.stdout) as Report).windows.map((window) => window.status)).toEqual(['unchanged', 'unchanged', 'pulled']);
    expect(await folderIds(dir)).toEqual(await storedIds());
  });
});

/** A proxy in front of the service that holds every request `delayMs` first: runs that overlap for sure. */
async function slowProxy(target: string, delayMs: number): Promise<{ baseUrl: string; requests: () => number; stop: () => Promise<void> }> {
  const upstream = new URL(target);
  let requests = 0;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    requests++;
    setTimeout(() => {
      const forward = httpRequest({ host: upstream.hostname, port: upstream.port, path: request.url, method: request.method, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      forward.on('error', () => request.socket.destroy());
      request.pipe(forward);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname}`,
    requests: () => requests,
    stop: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('the folder lock, taken before anything is written', () => {
  it.each<['parquet' | 'jsonl', 'job' | 'windows']>([['parquet', 'job'], ['parquet', 'windows'], ['jsonl', 'windows']])('lets one of two runs started together into a new folder pull (%s, via %s), and the other exit 2 having touched nothing', async (format, via) => {
    const proxy = await slowProxy(own.service.baseUrl, 300);
    try {
      const dir = join(outDir(), 'new');
      const settings = { ...own.settings, SUMMARY_BASE_URL: proxy.baseUrl };
      const runs = await Promise.all([0, 1].map(() => runPull([...RANGE, '--format', format, '--via', via, '--out', dir], settings)));
      expect(runs.map((run) => run.code).sort()).toEqual([0, 2]);
      const loser = runs.find((run) => run.code === 2)!;
      expect(loser.stderr).toMatch(/another summary-client pull \(process \d+\) is writing into /);
      expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);
      expect(await folderIds(dir, format)).toEqual(await storedIds());
      // The winner's next run finds every window unchanged: the loser wrote nothing of its own.
      const next = await runPull([...RANGE, '--format', format, '--via', via, '--out', dir, '--json'], settings);
      expect(next.stderr).toMatch(/^complete: 3 windows \(0 pulled, 3 unchanged\)/m);
      expect((JSON.parse(next.stdout) as { via: string }).via).toBe(via);
    } finally {
      await proxy.stop();
    }
  });

  it('refuses a second run started while the first waits to confirm a window, and the first ends as if alone', async () => {
    const dir = join(outDir(), 'new');
    const first = spawn(process.execPath, [CLI, 'pull', 'contracts', '--from', '2024-03', '--to', '2024-03', '--out', dir, '--until-quiet', '60'], { env: { PATH: process.env.PATH ?? '', ...own.settings }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    first.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number>((resolve) => first.once('exit', (code) => resolve(code ?? -1)));
    // The window is pulled, hidden, and its confirmation waits out the quiet period.
    // (Hidden from readers: in the generation the run works in, client/src/generations.ts.)
    const staged = () => existsSync(workingFolder(dir)) && readdirSync(workingFolder(dir)).some((name) => name.endsWith('.partial'));
    while (first.exitCode === null && !staged()) await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await runPull(['--from', '2024-03', '--to', '2024-03', '--out', dir]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/another summary-client pull \(process \d+\) is writing into /);
    expect(staged()).toBe(true);
    expect(existsSync(dir)).toBe(false);
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/^complete: 1 window \(1 pulled, 0 unchanged\)/m);
    expect(readdirSync(dir).sort()).toEqual(['_manifest.json', 'contracts-2024-03.parquet']);
  });

  it('never takes over a lock another host holds: exit 2 naming the lock file and how to remove it, the folder unchanged', async () => {
    const dir = outDir();
    expect((await runPull([...RANGE, '--out', dir])).code).toBe(0);
    const lock = join(generationsOf(dir), LOCK_FILE);
    writeFileSync(lock, '4242 0c5e7f4e-0000-4000-8000-000000000000 host=nightly-agent-2\n');
    const manifestAt = statSync(join(dir, '_manifest.json')).mtimeMs;
    const result = await runPull([...RANGE, '--out', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is locked by a summary-client pull on host nightly-agent-2 (process 4242)');
    expect(result.stderr).toContain(`remove ${lock} and run again`);
    expect(statSync(join(dir, '_manifest.json')).mtimeMs).toBe(manifestAt);
    expect(readFileSync(lock, 'utf8')).toContain('host=nightly-agent-2');
  });

  it('leaves no folder it made when the run is refused at its start', async () => {
    const dir = join(outDir(), 'never');
    const result = await runPull([...RANGE, '--out', dir], { ...own.settings, SUMMARY_CLIENT_SECRET: 'wrong-secret' });
    expect(result.code).toBe(2);
    expect(existsSync(dir)).toBe(false);
  });
});
