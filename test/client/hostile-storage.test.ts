import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { workingFolder } from '../../client/src/generations.js';
import { clientSettings } from '../../dev/client-settings.js';
import { issueServerCertificate, loadOrCreateLocalCa, type ServerCertificate } from '../../dev/local-ca.js';
import { projectRoot } from '../../dev/project-root.js';
import { startFakeService, type FakeService } from '../support/fake-service.js';
import { identities, stack } from '../support/stack.js';
import { leakedSecrets, runChild, type ChildResult } from '../support/run-child.js';
import { tempDirs } from '../support/temp-dirs.js';

// The pull client through an export job whose files come from a storage that is broken or
// hostile: the job's service is a fake of this file's (its kick-off and manifest), its storage an
// https server on loopback with a certificate of the local CA. The token still comes from the
// stack's identity provider. What must hold: nothing the manifest does not vouch for enters the
// folder, no credential goes to storage, and a failed file fails its window only.
const CLI = join(projectRoot(), 'client', 'bin', 'summary-client.js');
const outDir = tempDirs('storage');
const JOB_ID = 'a'.repeat(32);
const RANGE = ['--from', '2025-01-01', '--to', '2025-02-28'];
const MONTHS = [{ label: '2025-01', from: '2025-01-01', to: '2025-01-31' }, { label: '2025-02', from: '2025-02-01', to: '2025-02-28' }];

type StorageHandler = (request: IncomingMessage, response: ServerResponse, file: Buffer) => void;

let certificate: ServerCertificate;
let fake: FakeService | undefined;
let storages: Server[] = [];
const seen: IncomingMessage[] = [];

beforeAll(async () => {
  certificate = await issueServerCertificate(await loadOrCreateLocalCa());
});

afterEach(async () => {
  await fake?.stop();
  fake = undefined;
  for (const server of storages.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  seen.length = 0;
});

/** A month's Parquet file of `rows` contracts. */
function monthFile(month: string, rows = 3): Buffer {
  return Buffer.from(parquetWriteBuffer({ columnData: [{ name: 'contractId', data: Array.from({ length: rows }, (_, index) => `CON-${month}-${index}`), type: 'STRING' }] }));
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** An https storage on loopback: each path is a month's file, answered by `handler` (default: as it is). */
async function startStorage(handler: StorageHandler = (_request, response, file) => response.writeHead(200, { 'content-length': String(file.length), etag: '"v1"' }).end(file)): Promise<string> {
  const server = createServer({ key: certificate.key, cert: certificate.cert }, (request, response) => {
    seen.push(request);
    const month = /\/(\d{4}-\d{2})\/contracts-000\.parquet/.exec(request.url ?? '')?.[1];
    if (!month) return void response.writeHead(404).end();
    handler(request, response, monthFile(month));
  });
  storages.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `https://localhost:${(server.address() as AddressInfo).port}`;
}

interface ManifestOptions {
  /** The file entry of a month (the URL, size and digest of its true file, changed as a test needs). */
  readonly file?: (month: string, entry: { table: string; url: string; records: number; bytes: number; sha256: string }, asked: number) => Record<string, unknown>;
  /** The fingerprint of the files' columns (default: the first run's). */
  readonly schema?: string;
  /** Months the job says are unchanged, whatever it was sent. */
  readonly unchanged?: readonly string[];
}

/** The fake service: a job's kick-off (202, Location) and its completed manifest, pointing at `storage`. */
async function serveJob(storage: string, options: ManifestOptions = {}): Promise<Record<string, string>> {
  let asked = 0;
  fake = await startFakeService((request, response) => {
    if (request.path === '/v1/contracts/exports') {
      response.writeHead(202, { 'content-type': 'application/json', location: `../exports/${JOB_ID}`, 'retry-after': '1' });
      return void response.end(JSON.stringify({ id: JOB_ID, status: 'running' }));
    }
    if (request.path !== `/v1/exports/${JOB_ID}`) return void response.writeHead(404).end();
    asked++;
    const windows = MONTHS.map((month) => {
      const bytes = monthFile(month.label);
      const entry = { table: 'contracts', url: `${storage}/exports/${JOB_ID}/${month.label}/contracts-000.parquet?sig=${asked}`, records: 3, bytes: bytes.length, sha256: sha256(bytes) };
      if (options.unchanged?.includes(month.label)) return { ...month, status: 'unchanged', etag: `W/"${month.label}"`, records: 0, files: [] };
      return { ...month, status: 'exported', etag: `W/"${month.label}"`, records: 3, files: [options.file ? options.file(month.label, entry, asked) : entry] };
    });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({
      id: JOB_ID, resource: 'contracts', status: 'completed', request: {}, transactionTime: '2026-11-28T01:00:00Z', expires: '2026-11-29T01:00:00Z',
      schema: options.schema ?? 'fake-schema', progress: { windows: 2, done: 2 }, windows,
    }));
  });
  return { ...clientSettings({ ...stack, identities }), SUMMARY_BASE_URL: fake.baseUrl };
}

function runPull(dir: string, settings: Record<string, string>, extra: readonly string[] = []): Promise<ChildResult> {
  return runChild(process.execPath, [CLI, 'pull', 'contracts', ...RANGE, '--out', dir, '--via', 'job', '--max-retry-wait', '0', ...extra], settings, 60_000);
}

const parquetIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.parquet')).sort() : []);

describe('summary-client pull through a job, against its storage', () => {
  it('downloads each file once into the folder\'s own names, with none of the service\'s credentials', async () => {
    const settings = await serveJob(await startStorage());
    const dir = outDir();
    const result = await runPull(dir, settings, ['--json']);
    expect(result.stderr).toMatch(/^complete: 2 windows \(2 pulled, 0 unchanged\)/m);
    expect(result.code).toBe(0);
    expect(parquetIn(dir)).toEqual(['contracts-2025-01.parquet', 'contracts-2025-02.parquet']);
    expect(readFileSync(join(dir, 'contracts-2025-01.parquet')).equals(monthFile('2025-01'))).toBe(true);
    expect(JSON.parse(result.stdout)).toMatchObject({ complete: true, via: 'job', job: { id: JOB_ID, transactionTime: '2026-11-28T01:00:00.000Z' }, watermark: '2026-11-28T01:00:00.000Z' });
    expect(seen).toHaveLength(2);
    for (const request of seen) expect(Object.keys(request.headers).filter((name) => ['authorization', 'x-api-key', 'ocp-apim-subscription-key', 'cookie'].includes(name))).toEqual([]);
    // The URLs are the files: never printed, never kept.
    expect(`${result.stdout}${result.stderr}${readFileSync(join(dir, '_manifest.json'), 'utf8')}`).not.toMatch(/sig=/);
    expect(leakedSecrets(result.stdout + result.stderr, settings)).toEqual([]);
  });

  it.each([
    ['a body longer than the manifest declares (no length said)', ((_request, response, file) => response.writeHead(200).end(Buffer.concat([file, Buffer.alloc(4096)]))) as StorageHandler, /storage sent more than the \d+ bytes the manifest declares/],
    ['a Content-Length other than the manifest\'s', ((_request, response, file) => response.writeHead(200, { 'content-length': String(file.length + 10) }).end(Buffer.concat([file, Buffer.alloc(10)]))) as StorageHandler, /storage sent more than the \d+ bytes the manifest declares|storage declares \d+ bytes/],
    ['a body shorter than the manifest declares', ((_request, response, file) => response.writeHead(200).end(file.subarray(0, 100))) as StorageHandler, /100 bytes came, the manifest declares \d+/],
    ['bytes other than the manifest\'s digest', ((_request, response, file) => {
      const changed = Buffer.from(file);
      changed[10] = changed[10]! ^ 0xff;
      response.writeHead(200, { 'content-length': String(changed.length) }).end(changed);
    }) as StorageHandler, /its sha256 is not the manifest's/],
    ['a 404 (the job\'s files are gone)', ((_request, response) => response.writeHead(404).end()) as StorageHandler, /storage answered 404 \(the job was cancelled or has expired/],
    ['a refusal whose body would cost far more to parse than it weighs', ((_request, response) => response.writeHead(403, { 'content-type': 'application/json' }).end('['.repeat(100_000))) as StorageHandler, /storage's answer \(403\) is refused before parsing/],
    ['a content coding it did not ask for', ((_request, response, file) => response.writeHead(200, { 'content-encoding': 'br' }).end(file)) as StorageHandler, /storage answered in the br coding, which this client did not ask for/],
  ])('fails January alone, writing nothing of it, at %s', async (_what, january, why) => {
    const storage = await startStorage((request, response, file) => {
      if (request.url!.includes('/2025-01/')) return january(request, response, file);
      response.writeHead(200, { 'content-length': String(file.length) }).end(file);
    });
    const settings = await serveJob(storage);
    const dir = outDir();
    const result = await runPull(dir, settings);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^2025-01 failed: contracts-2025-01\\.parquet: ${why.source}`, 'm'));
    expect(parquetIn(dir)).toEqual(['contracts-2025-02.parquet']);
    expect(readdirSync(dir).filter((name) => name.endsWith('.partial'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as { watermark?: string; windows: { window: string; status: string }[] };
    expect(manifest.windows.map((entry) => [entry.window, entry.status])).toEqual([['2025-01', 'failed'], ['2025-02', 'done']]);
    expect(manifest.watermark).toBeUndefined();
  });

  it('refuses a Parquet bomb whose size and digest are what the manifest says: its pages decode to far more than it weighs', async () => {
    const bomb = Buffer.from(parquetWriteBuffer({ columnData: [{ name: 'contractAmount', data: new Float64Array(9_000_000), type: 'DOUBLE' }], statistics: false }));
    const storage = await startStorage((request, response, file) => {
      const body = request.url!.includes('/2025-01/') ? bomb : file;
      response.writeHead(200, { 'content-length': String(body.length) }).end(body);
    });
    const settings = await serveJob(storage, { file: (month, entry) => (month === '2025-01' ? { ...entry, bytes: bomb.length, sha256: sha256(bomb), records: 9_000_000 } : entry) });
    const dir = outDir();
    const result = await runPull(dir, settings);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^2025-01 failed: contracts-2025-01\.parquet: a file that no reader of the folder should open: its pages decode to more than/m);
    expect(parquetIn(dir)).toEqual(['contracts-2025-02.parquet']);
  });

  it('refuses a file larger than SUMMARY_MAX_EXPORT_BYTES by the manifest\'s word, asking storage for nothing of it', async () => {
    const settings = await serveJob(await startStorage(), { file: (month, entry) => (month === '2025-01' ? { ...entry, bytes: 3 * 1024 ** 3 } : entry) });
    const dir = outDir();
    const result = await runPull(dir, { ...settings, SUMMARY_MAX_EXPORT_BYTES: String(64 * 1024 * 1024) });
    expect(result.stderr).toMatch(/^2025-01 failed: contracts-2025-01\.parquet: the manifest declares 3221225472 bytes, more than SUMMARY_MAX_EXPORT_BYTES/m);
    expect(seen.map((request) => request.url!.split('?')[0])).toEqual([`/exports/${JOB_ID}/2025-02/contracts-000.parquet`]);
  });

  it('follows no redirect: the host it points to is never asked', async () => {
    const elsewhere = await startStorage();
    const storage = await startStorage((request, response) => response.writeHead(302, { location: `${elsewhere}${request.url}` }).end());
    const settings = await serveJob(storage);
    const result = await runPull(outDir(), settings);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^2025-01 failed: contracts-2025-01\.parquet: /m);
    expect(seen.filter((request) => request.socket.localPort === Number(new URL(elsewhere).port))).toEqual([]);
  });

  it.each([
    ['a table with a path in it', { table: '../../outside' }, /lists a file of table \.\.\/\.\.\/outside, not one of contracts/],
    ['a URL that is not https', { url: 'http://localhost:9/x' }, null],
    ['a file without its digest', { sha256: 'not-hex' }, /lists a file without its URL, size, rows or sha256/],
  ])('refuses a manifest with %s before downloading anything', async (_what, change, why) => {
    const settings = await serveJob(await startStorage(), { file: (month, entry) => (month === '2025-01' ? { ...entry, ...change } : entry) });
    const dir = outDir();
    const result = await runPull(dir, settings);
    if (why) {
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^summary-client: the export job's manifest is refused \\(2025-01 ${why.source}`, 'm'));
      expect(seen).toEqual([]);
      expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    } else {
      // A URL this client will not fetch fails its window; the others come.
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^2025-01 failed: the manifest lists a file URL that is not plain https/m);
      expect(parquetIn(dir)).toEqual(['contracts-2025-02.parquet']);
    }
    expect(readdirSync(join(dir, '..')).some((name) => name === 'outside')).toBe(false);
  });

  it('takes "unchanged" only for a month it sent the ETag of: a rewrite answered so goes window by window, and the folder keeps its files', async () => {
    const dir = outDir();
    const options: { schema?: string; unchanged?: string[] } = {};
    const settings = await serveJob(await startStorage(), options);
    expect((await runPull(dir, settings)).code).toBe(0);
    const before = readFileSync(join(dir, '_manifest.json'), 'utf8');
    fake!.requests.length = 0;
    // New columns, and every month said unchanged, to the job sent the folder's ETags and to the one sent none alike.
    Object.assign(options, { schema: 'other-schema', unchanged: ['2025-01', '2025-02'] });
    const result = await runPull(dir, settings);
    expect(fake!.requests.map((request) => request.path.replace(/\/v1\/exports\/\w+/, '/v1/exports/{id}'))).toEqual(['/v1/contracts/exports', '/v1/exports/{id}', '/v1/contracts/exports', '/v1/exports/{id}', '/v1/contracts/summary']);
    expect(result.code).toBe(2);
    expect(readFileSync(join(dir, '_manifest.json'), 'utf8')).toBe(before);
    expect(parquetIn(dir)).toEqual(['contracts-2025-01.parquet', 'contracts-2025-02.parquet']);
  });

  it.each([
    ['resumes it with a Range request for the rest of the same blob', 'rest', ['whole', 'bytes=200-']],
    ['starts it again from its first byte when storage answers the rest with the whole file (it ignores Range)', 'whole', ['whole', 'bytes=200-']],
    ['starts it again from its first byte when storage answers the rest 412 (the blob changed since)', '412', ['whole', 'bytes=200-', 'whole']],
  ])('breaks a download off mid-body, then %s', async (_what, rest, asked) => {
    let broken = false;
    const storage = await startStorage((request, response, file) => {
      const range = request.headers.range;
      if (range && rest === '412') return void response.writeHead(412).end();
      if (range && rest === 'rest') {
        const start = Number(/^bytes=(\d+)-$/.exec(range)![1]);
        if (request.headers['if-match'] !== '"v1"') return void response.writeHead(412).end();
        return void response.writeHead(206, { 'content-length': String(file.length - start), 'content-range': `bytes ${start}-${file.length - 1}/${file.length}`, etag: '"v1"' }).end(file.subarray(start));
      }
      response.writeHead(200, { 'content-length': String(file.length), etag: '"v1"' });
      if (request.url!.includes('/2025-01/') && !broken) {
        broken = true;
        response.write(file.subarray(0, 200));
        return void setTimeout(() => response.destroy(), 50);
      }
      response.end(file);
    });
    const settings = await serveJob(storage);
    const dir = outDir();
    const result = await runPull(dir, settings);
    expect(result.code).toBe(0);
    // The file holds the whole body from its first byte: nothing of a try before it out of place.
    expect(readFileSync(join(dir, 'contracts-2025-01.parquet')).equals(monthFile('2025-01'))).toBe(true);
    expect(seen.filter((request) => request.url!.includes('/2025-01/')).map((request) => request.headers.range ?? 'whole')).toEqual(asked);
  });

  it('resumes a run killed mid-download: the month committed before stays, and the next run sends its ETag and downloads the rest', async () => {
    const options: { unchanged?: string[] } = {};
    let stall = true;
    const storage = await startStorage((request, response, file) => {
      // February never comes while the first run is alive.
      if (stall && request.url!.includes('/2025-02/')) return void response.writeHead(200, { 'content-length': String(file.length) });
      response.writeHead(200, { 'content-length': String(file.length) }).end(file);
    });
    const settings = await serveJob(storage, options);
    const dir = outDir();
    const child = spawn(process.execPath, [CLI, 'pull', 'contracts', ...RANGE, '--out', dir, '--via', 'job'], { env: { PATH: process.env.PATH ?? '', ...settings }, stdio: 'ignore' });
    // The run works in a generation of the folder readers see only once it ends (client/src/generations.ts).
    const manifest = () => join(workingFolder(dir), '_manifest.json');
    const listed = () => existsSync(manifest()) && (JSON.parse(readFileSync(manifest(), 'utf8')) as { windows: { window: string }[] }).windows.some((entry) => entry.window === '2025-01');
    while (!listed()) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(parquetIn(dir)).toEqual([]);
    expect(parquetIn(workingFolder(dir))).toEqual(['contracts-2025-01.parquet']);

    stall = false;
    fake!.requests.length = 0;
    seen.length = 0;
    options.unchanged = ['2025-01'];
    const again = await runPull(dir, settings);
    expect(again.code).toBe(0);
    expect(JSON.parse(fake!.requests[0]!.body)).toMatchObject({ ifNoneMatch: { '2025-01': 'W/"2025-01"' } });
    expect(seen.map((request) => request.url!.split('?')[0])).toEqual([`/exports/${JOB_ID}/2025-02/contracts-000.parquet`]);
    expect(parquetIn(dir)).toEqual(['contracts-2025-01.parquet', 'contracts-2025-02.parquet']);
    expect(readdirSync(dir).filter((name) => name.startsWith('.') && name !== '.summary-client.lock')).toEqual([]);
  });

  it('asks the job again for a URL storage refused (its signature expired) and downloads with the new one', async () => {
    const storage = await startStorage((request, response, file) => {
      // The first manifest's signatures (sig=1) have expired.
      if (request.url!.endsWith('sig=1')) return void response.writeHead(403, { 'content-type': 'application/xml' }).end('<Error><Code>AuthenticationFailed</Code></Error>');
      response.writeHead(200, { 'content-length': String(file.length) }).end(file);
    });
    const settings = await serveJob(storage);
    const dir = outDir();
    const result = await runPull(dir, settings);
    expect(result.stderr).toMatch(/^complete: 2 windows \(2 pulled, 0 unchanged\)/m);
    expect(parquetIn(dir)).toEqual(['contracts-2025-01.parquet', 'contracts-2025-02.parquet']);
    // The kick-off, the manifest, and the manifest asked again once for both refused URLs.
    expect(fake!.requests.map((request) => request.path)).toEqual(['/v1/contracts/exports', `/v1/exports/${JOB_ID}`, `/v1/exports/${JOB_ID}`]);
  });

  it('gives up storage that trickles its body at SUMMARY_DEADLINE_SECONDS, and the folder is free again', async () => {
    const storage = await startStorage((request, response, file) => {
      response.writeHead(200, { 'content-length': String(file.length) });
      if (!request.url!.includes('/2025-01/')) return void response.end(file);
      let sent = 0;
      const timer = setInterval(() => {
        if (response.destroyed || sent >= file.length) return clearInterval(timer);
        response.write(file.subarray(sent, ++sent));
      }, 300);
    });
    const settings = await serveJob(storage);
    const dir = outDir();
    const started = Date.now();
    // 8 s: the kick-off and the status call (a token from the stack's identity provider, which
    // serves the other suites' stacks meanwhile) fit in it on a loaded machine; the trickled file
    // (a byte every 300 ms) never does.
    const result = await runPull(dir, { ...settings, SUMMARY_DEADLINE_SECONDS: '8' });
    expect(Date.now() - started).toBeLessThan(40_000);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^2025-01 failed: contracts-2025-01\.parquet: storage gave no full answer within 8 s/m);
    expect(parquetIn(dir)).toEqual(['contracts-2025-02.parquet']);
    expect(readdirSync(dir).filter((name) => name.startsWith('.') || name.startsWith('_lock'))).toEqual([]);
  });

  it('writes a large file to disk as it comes and refuses it by its digest or its pages, never holding it whole', async () => {
    const size = 256 * 1024 * 1024;
    const zeros = Buffer.alloc(size);
    const storage = await startStorage((_request, response) => response.writeHead(200, { 'content-length': String(size) }).end(zeros));
    // January's digest is not what storage sends; February's is (its pages are then checked, from disk: it has none).
    const settings = await serveJob(storage, { file: (month, entry) => ({ ...entry, bytes: size, sha256: month === '2025-01' ? '0'.repeat(64) : sha256(zeros) }) });
    const dir = outDir();
    // The client's own peak memory, said by the process as it exits: VmHWM, the high-water mark of
    // its own memory (maxRSS may count the parent's, from before the child's exec).
    const peak = 'data:text/javascript,import{readFileSync}from"node:fs";process.on("exit",()=>process.stderr.write("peak-rss "+Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync("/proc/self/status","utf8"))[1])*1024+"\\n"))';
    const result = await runChild(process.execPath, ['--import', peak, CLI, 'pull', 'contracts', ...RANGE, '--out', dir, '--via', 'job', '--max-retry-wait', '0'], settings, 120_000);
    expect(result.stderr).toMatch(/^2025-01 failed: contracts-2025-01\.parquet: its sha256 is not the manifest's/m);
    expect(result.stderr).toMatch(/^2025-02 failed: contracts-2025-02\.parquet: a file that no reader of the folder should open: it is not a Parquet file/m);
    expect(seen).toHaveLength(2);
    expect(readdirSync(dir).filter((name) => name.endsWith('.parquet') || name.endsWith('.partial'))).toEqual([]);
    const rss = Number(/^peak-rss (\d+)$/m.exec(result.stderr)?.[1]);
    expect(rss).toBeLessThan(300 * 1024 * 1024);
  }, 120_000);

  it('asks a job that stays running with Retry-After: 0 once a second at most, and gives it up at its deadline', async () => {
    const statusTimes: number[] = [];
    fake = await startFakeService((request, response) => {
      const headers = { 'content-type': 'application/json', 'retry-after': '0' };
      if (request.path === '/v1/contracts/exports') return void response.writeHead(202, { ...headers, location: `../exports/${JOB_ID}` }).end(JSON.stringify({ id: JOB_ID, status: 'running' }));
      statusTimes.push(performance.now());
      response.writeHead(202, headers).end(JSON.stringify({ id: JOB_ID, status: 'running', progress: { windows: 2, done: 0 } }));
    });
    const settings = { ...clientSettings({ ...stack, identities }), SUMMARY_BASE_URL: fake.baseUrl, SUMMARY_DEADLINE_SECONDS: '4' };
    const result = await runPull(outDir(), settings);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/had 0 of 2 windows done after 4 s/);
    // Without the floor: thousands of calls in those 4 s, a few milliseconds apart. With it: a
    // second apart at least, however much of the 4 s a loaded machine spent before the first call.
    expect(statusTimes.length).toBeGreaterThanOrEqual(1);
    expect(statusTimes.length).toBeLessThanOrEqual(5);
    const gaps = statusTimes.slice(1).map((time, index) => time - statusTimes[index]!);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(900);
  });
});
