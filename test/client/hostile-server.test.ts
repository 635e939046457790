import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from '@jest/globals';
import { unzipSync } from 'fflate';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { clientSettings } from '../../dev/client-settings.js';
import { workingFolder } from '../../client/src/generations.js';
import { projectRoot } from '../../dev/project-root.js';
import { startFakeService, problem, send, type FakeHandler, type FakeService } from '../support/fake-service.js';
import { rawZip, storedEntry, zerosEntry } from '../support/raw-zip.js';
import { identities, stack } from '../support/stack.js';
import { storeRecords } from '../support/store-records.js';
import { withDuckDb } from '../support/duckdb.js';
import { runChild, type ChildResult } from '../support/run-child.js';
import { tempDirs } from '../support/temp-dirs.js';

// The pull client against a service that is broken or hostile: a loopback server of this file's
// own, which may ask the real stack for what it would answer and then answer something else. The
// token still comes from the stack's identity provider. Window by window (--via windows): the job
// path's downloads meet a hostile storage in hostile-storage.test.ts.
const CLI = join(projectRoot(), 'client', 'bin', 'summary-client.js');
const outDir = tempDirs('hostile');
const MiB = 1024 * 1024;
let fake: FakeService | undefined;

afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

async function serve(handler: FakeHandler): Promise<Record<string, string>> {
  fake = await startFakeService(handler);
  return { ...clientSettings({ ...stack, identities }), SUMMARY_BASE_URL: fake.baseUrl };
}

function runPull(args: readonly string[], settings: Record<string, string>): Promise<ChildResult> {
  return runChild(process.execPath, [CLI, 'pull', ...args, '--max-retry-wait', '0', '--via', 'windows'], settings, 120_000);
}

const JANUARY = ['--from', '2025-01-01', '--to', '2025-01-31'];

describe('summary-client pull fails fast on what no window can change', () => {
  it.each([
    [400, 'INVALID_FILTER', /fix the --filter value/],
    [401, 'INVALID_API_KEY', /check SUMMARY_API_KEY/],
    [401, 'INVALID_SUBSCRIPTION_KEY', /check SUMMARY_SUBSCRIPTION_KEY/],
    [401, 'INVALID_TOKEN', /check SUMMARY_SCOPE/],
    [403, 'MISSING_ROLE', /needs the Data\.Read app role/],
    [403, 'CLIENT_NOT_REGISTERED', /ask the service owners to register SUMMARY_CLIENT_ID/],
    [404, 'NOT_FOUND', /check SUMMARY_BASE_URL/],
    [406, 'NOT_ACCEPTABLE', /update summary-client/],
    [415, 'UNSUPPORTED_MEDIA_TYPE', /update summary-client/],
    [413, 'REQUEST_TOO_LARGE', /fewer or shorter --filter values/],
  ])('%i %s: one request, exit 2, what to change, nothing written', async (status, code, remedy) => {
    const settings = await serve((_request, response) => problem(response, status, code));
    const dir = join(outDir(), 'pull');
    const result = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-12-31', '--out', dir], settings);
    expect(result.code).toBe(2);
    expect(fake!.requests).toHaveLength(1);
    expect(result.stderr).toMatch(new RegExp(`^summary-client: the service refuses this pull \\(${status} ${code}: fake ${code} \\(request fake-${status}\\)\\), whatever the window: `));
    expect(result.stderr).toMatch(remedy);
    expect(existsSync(dir)).toBe(false);
  });

  it('retries 502 and 504 like 503, and then pulls', async () => {
    const settings = await serve(async (request, response, real) => {
      if (request.index < 2) return problem(response, [502, 504][request.index]!, 'BAD_GATEWAY');
      send(response, await real());
    });
    const result = await runPull(['contracts', ...JANUARY, '--out', outDir()], settings);
    expect(result.stderr.match(/^2025-01: 50\d BAD_GATEWAY, retrying in/gm)).toHaveLength(2);
    expect(result.code).toBe(0);
  });

  it('fails a window at its first 500 (the service failed on it: asking again fails alike), naming the request to report', async () => {
    const settings = await serve(async (request, response, real) => {
      if (JSON.parse(request.body).createdFrom === '2025-01-01') return problem(response, 500, 'INTERNAL');
      send(response, await real());
    });
    const result = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--out', outDir()], settings);
    expect(result.stderr).toMatch(/^2025-01 failed: 500 INTERNAL: fake INTERNAL \(request fake-500\): the service failed on this request \(asking again fails alike\): report the request id/m);
    expect(result.stderr).not.toMatch(/retrying/);
    expect(fake!.requests.filter((request) => JSON.parse(request.body).createdFrom === '2025-01-01')).toHaveLength(1);
    expect(result.code).toBe(1);
  });
});

describe('summary-client pull is safe against the server', () => {
  it('inflates only the two expected entries of a zip, so an extra entry of 800 MiB costs no memory (peak RSS measured)', async () => {
    const bomb = zerosEntry('padding.bin', 800 * MiB);
    let pid = 0;
    let peakKiB = 0;
    const settings = await serve(async (request, response, real) => {
      // The second request (the first window's confirmation): the first zip has been handled, the client still runs.
      if (request.index === 1) peakKiB = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
      const answer = await real();
      if (answer.status !== 200) return send(response, answer);
      const entries = unzipSync(answer.body);
      const zip = rawZip([storedEntry('invoices.parquet', entries['invoices.parquet']!), bomb, storedEntry('invoice_tables.parquet', entries['invoice_tables.parquet']!)]);
      send(response, { ...answer, body: zip });
    });
    const dir = outDir();
    const child = spawn(process.execPath, [CLI, 'pull', 'invoices', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir], { env: { PATH: process.env.PATH ?? '', ...settings }, stdio: ['ignore', 'ignore', 'pipe'] });
    pid = child.pid!;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(stderr).toMatch(/^complete: 2 windows \(2 pulled, 0 unchanged\)/m);
    expect(code).toBe(0);
    expect(readdirSync(join(dir, 'invoices'))).toEqual(['invoices-2025-01.parquet', 'invoices-2025-02.parquet']);
    expect(peakKiB).toBeGreaterThan(0);
    expect(peakKiB * 1024).toBeLessThan(400 * MiB);
  }, 120_000);

  it('refuses a zip whose central directory lists thousands of junk entries before reading one', async () => {
    const settings = await serve(async (_request, response, real) => {
      const answer = await real();
      if (answer.status !== 200) return send(response, answer);
      const entries = unzipSync(answer.body);
      const junk = Array.from({ length: 5000 }, (_, index) => storedEntry(`junk-${index}`, new Uint8Array(0)));
      send(response, { ...answer, body: rawZip([storedEntry('invoices.parquet', entries['invoices.parquet']!), ...junk, storedEntry('invoice_tables.parquet', entries['invoice_tables.parquet']!)]) });
    });
    const result = await runPull(['invoices', ...JANUARY, '--out', outDir()], settings);
    expect(result.stderr).toMatch(/^2025-01 failed: the export is refused before it is unpacked: its central directory lists 5002 entries/m);
    expect(result.code).toBe(1);
  });

  it('refuses a JSON page of empty objects before parsing it, at a small multiple of its size in memory (peak RSS measured)', async () => {
    let pid = 0;
    let peakKiB = 0;
    const empties = `{"data":[${'{},'.repeat(20 * MiB)}{}],"pagination":{"page":1,"pageSize":1000,"totalRecords":1,"totalPages":1,"hasNext":false},"meta":{}}`;
    const settings = await serve(async (request, response, real) => {
      const { createdFrom } = JSON.parse(request.body) as { createdFrom: string };
      if (createdFrom.startsWith('2025-02')) {
        peakKiB = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
        return send(response, await real());
      }
      response.writeHead(200, { 'content-type': 'application/json', etag: 'W/"00000000000000000000000000000000"', 'x-summary-schema': '0'.repeat(32) });
      response.end(empties);
    });
    const child = spawn(process.execPath, [CLI, 'pull', 'contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--format', 'jsonl', '--out', outDir(), '--max-retry-wait', '0', '--via', 'windows'], { env: { PATH: process.env.PATH ?? '', ...settings }, stdio: ['ignore', 'ignore', 'pipe'] });
    pid = child.pid!;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(stderr).toMatch(/^2025-01 failed: the service's answer \(200\) is refused before parsing: it holds more than \d+ objects and arrays/m);
    expect(code).toBe(1);
    expect(peakKiB).toBeGreaterThan(0);
    // The 60 MB body is held once as bytes and once as text, never as 20 million objects.
    expect(peakKiB * 1024).toBeLessThan(600 * MiB);
  }, 120_000);

  it('refuses a zip entry that declares more than SUMMARY_MAX_EXPORT_BYTES, or other than it stores, before taking it', async () => {
    const settings = await serve(async (_request, response, real) => {
      const answer = await real();
      const entries = unzipSync(answer.body);
      const lying = { ...storedEntry('invoices.parquet', entries['invoices.parquet']!), size: 3 * 1024 * MiB };
      send(response, { ...answer, body: rawZip([lying, storedEntry('invoice_tables.parquet', entries['invoice_tables.parquet']!)]) });
    });
    const result = await runPull(['invoices', ...JANUARY, '--out', outDir()], { ...settings, SUMMARY_MAX_EXPORT_BYTES: String(64 * MiB) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^2025-01 failed: the export's invoices\.parquet declares 3221225472 bytes \(\d+ stored\), more than SUMMARY_MAX_EXPORT_BYTES \(67108864\) or not what is stored/m);
  });

  it('refuses a compressed zip entry without inflating it: a 2 GiB bomb of 13 MB costs nothing (the service stores its entries)', async () => {
    const bomb = { ...(zerosEntry('invoices.parquet', 2048 * MiB)), size: 10_000_000 };
    const settings = await serve(async (_request, response, real) => {
      const answer = await real();
      const entries = unzipSync(answer.body);
      send(response, { ...answer, body: rawZip([bomb, storedEntry('invoice_tables.parquet', entries['invoice_tables.parquet']!)]) });
    });
    const result = await runPull(['invoices', ...JANUARY, '--out', outDir()], settings);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^2025-01 failed: the export's invoices\.parquet is compressed \(zip method 8\); the service stores its entries, and this client inflates none/m);
  });

  it('refuses a Parquet file whose footer says it decodes to far more than it weighs, writing nothing a reader would open', async () => {
    // Nine million zeros: a few kilobytes sent, 72 MB to decode. (Without statistics: their min and
    // max over nine million values take seconds inside jest's module sandbox.)
    const bomb = parquetWriteBuffer({ columnData: [{ name: 'contractAmount', data: new Float64Array(9_000_000), type: 'DOUBLE' }], statistics: false });
    expect(bomb.byteLength).toBeLessThan(64 * 1024);
    const settings = await serve((_request, response) => send(response, { status: 200, headers: new Headers({ 'content-type': 'application/vnd.apache.parquet', etag: 'W/"bomb"' }), body: Buffer.from(bomb) }));
    const dir = outDir();
    const result = await runPull(['contracts', ...JANUARY, '--out', dir], settings);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^2025-01 failed: contracts-2025-01\.parquet: the service sent a file that no reader of the folder should open: its pages decode to more than \d+ bytes, more than a reader should be given for a file of \d+ bytes \(67108864\)/m);
    expect(readdirSync(dir).filter((name) => name.endsWith('.parquet'))).toEqual([]);
  });

  it('stops reading a body past SUMMARY_MAX_EXPORT_BYTES, halving the window down to the one day that stays too large, keeping the others', async () => {
    let sent = 0;
    const settings = await serve(async (request, response, real) => {
      const { createdFrom, createdTo } = JSON.parse(request.body) as { createdFrom: string; createdTo: string };
      if (!(createdFrom <= '2025-01-15' && createdTo >= '2025-01-15')) return send(response, await real());
      // An endless body, no length declared.
      response.writeHead(200, { 'content-type': 'application/vnd.apache.parquet' });
      const chunk = Buffer.alloc(256 * 1024);
      const more = () => {
        while (!response.destroyed && sent < 64 * MiB) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', more);
        }
        response.end();
      };
      more();
    });
    const dir = outDir();
    const result = await runPull(['contracts', ...JANUARY, '--out', dir], { ...settings, SUMMARY_MAX_EXPORT_BYTES: String(MiB) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^2025-01-15_2025-01-15 failed: 2025-01-15 alone is larger than one answer may be .*SUMMARY_MAX_EXPORT_BYTES/m);
    // Each answer read up to the cap, never the 64 MiB the server had for each.
    expect(sent).toBeLessThan(40 * MiB);
    // The days around it are pulled and kept: every stored record of January but the 15th's.
    const names = readdirSync(dir).filter((name) => name.endsWith('.parquet'));
    expect(names.some((name) => name.includes('2025-01-15'))).toBe(false);
    const stored = (await storeRecords('contracts', 'contoso')).filter((record) => String(record.createdDate).startsWith('2025-01') && !String(record.createdDate).startsWith('2025-01-15')).map((record) => String(record.contractId)).sort();
    const pulled = await withDuckDb(async (query) => (await query(`SELECT contractId FROM read_parquet('${dir}/*.parquet') ORDER BY contractId`)).map((row) => String(row.contractId)));
    expect(pulled).toEqual(stored);
    const manifest = JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as { windows: { window: string; status: string }[] };
    expect(manifest.windows.filter((entry) => entry.status === 'failed').map((entry) => entry.window)).toEqual(['2025-01-15_2025-01-15']);
  });

  it('stops with exit 2 at a refusal whose body is larger than a problem may be, after one request', async () => {
    const settings = await serve((_request, response) => {
      response.writeHead(401, { 'content-type': 'application/problem+json', 'content-length': String(80 * MiB) });
      response.end();
    });
    const result = await runPull(['contracts', ...JANUARY, '--out', outDir()], settings);
    expect(result.code).toBe(2);
    expect(fake!.requests).toHaveLength(1);
    expect(result.stderr).toMatch(/the service refuses this pull \(401, with an answer of more than 67108864 bytes\)/);
  });

  it('stops with exit 2 at a redirect, never following it and never retrying', async () => {
    const settings = await serve((_request, response) => void response.writeHead(302, { location: 'https://elsewhere.invalid/steal' }).end());
    const result = await runPull(['contracts', ...JANUARY, '--out', outDir()], settings);
    expect(result.code).toBe(2);
    expect(fake!.requests).toHaveLength(1);
    expect(result.stderr).toMatch(/the service answered with a redirect, which is never followed .*SUMMARY_BASE_URL/);
  });

  it('never asks past the pages the first answer announced, whatever hasNext says', async () => {
    const settings = await serve((request, response) => {
      const { page, pageSize } = JSON.parse(request.body) as { page: number; pageSize: number };
      response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `fake-${page}` });
      response.end(JSON.stringify({ data: [{ contractId: `CT-${page}` }], pagination: { page, pageSize, totalRecords: 5000, totalPages: 2, hasNext: true }, meta: { requestId: `fake-${page}`, generatedAt: new Date().toISOString() } }));
    });
    const result = await runPull(['contracts', ...JANUARY, '--format', 'jsonl', '--out', outDir()], settings);
    expect(fake!.requests).toHaveLength(2);
    expect(result.stderr).toMatch(/^2025-01 failed: the service announced 2 pages, and page 2 says there is more/m);
    expect(result.code).toBe(1);
  });

  it('ends a walk at an empty page that says there is more, whatever it announces', async () => {
    const settings = await serve((request, response) => {
      const { page, pageSize } = JSON.parse(request.body) as { page: number; pageSize: number };
      response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `fake-${page}` });
      response.end(JSON.stringify({ data: [], pagination: { page, pageSize, totalRecords: Number.MAX_SAFE_INTEGER, totalPages: Number.MAX_SAFE_INTEGER, hasNext: true }, meta: { requestId: `fake-${page}`, generatedAt: new Date().toISOString() } }));
    });
    const dir = outDir();
    const result = await runPull(['contracts', ...JANUARY, '--format', 'jsonl', '--out', dir], settings);
    expect(fake!.requests).toHaveLength(1);
    expect(result.stderr).toMatch(/^2025-01 failed: page 1 is empty but says there is more/m);
    expect(result.code).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('walks no more pages than its own count needs, however many it announces, one new record a page', async () => {
    const settings = await serve((request, response) => {
      const { page, pageSize } = JSON.parse(request.body) as { page: number; pageSize: number };
      response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `fake-${page}` });
      response.end(JSON.stringify({ data: [{ contractId: `CT-${page}`, padding: 'x'.repeat(1000) }], pagination: { page, pageSize, totalRecords: 2500, totalPages: Number.MAX_SAFE_INTEGER, hasNext: true }, meta: { requestId: `fake-${page}`, generatedAt: new Date().toISOString() } }));
    });
    const result = await runPull(['contracts', ...JANUARY, '--format', 'jsonl', '--out', outDir()], settings);
    expect(fake!.requests).toHaveLength(3); // ceil(2500 / 1000)
    expect(result.stderr).toMatch(/^2025-01 failed: the service announced 3 pages, and page 3 says there is more/m);
    expect(result.code).toBe(1);
  });

  it('fails a window whose pages say there is more but announce no number of pages', async () => {
    const settings = await serve((request, response) => {
      const { page, pageSize } = JSON.parse(request.body) as { page: number; pageSize: number };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ contractId: `CT-${page}` }], pagination: { page, pageSize, totalRecords: 3, hasNext: true }, meta: { requestId: 'x', generatedAt: new Date().toISOString() } }));
    });
    const dir = outDir();
    const result = await runPull(['contracts', ...JANUARY, '--format', 'jsonl', '--out', dir], settings);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^2025-01 failed: page 1 is not a summary page/m);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops a walk whose pages repeat', async () => {
    const settings = await serve((request, response) => {
      const { page, pageSize } = JSON.parse(request.body) as { page: number; pageSize: number };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ contractId: 'CT-SAME' }], pagination: { page, pageSize, totalRecords: 5000, totalPages: 5000, hasNext: true }, meta: { requestId: 'x', generatedAt: new Date().toISOString() } }));
    });
    const result = await runPull(['contracts', ...JANUARY, '--format', 'jsonl', '--out', outDir()], settings);
    expect(fake!.requests).toHaveLength(2);
    expect(result.stderr).toMatch(/^2025-01 failed: page 2 repeats page 1/m);
  });

  it('prints problem text without control characters: no escape sequence reaches the terminal, no line is forged', async () => {
    const settings = await serve((_request, response) => problem(response, 503, 'STORE_UNAVAILABLE', 'busy\u001b[2J\u001b[H\r\ncomplete: 12 windows (12 pulled, 0 unchanged)\u009b31m\u202e'));
    const result = await runPull(['contracts', ...JANUARY, '--out', outDir()], settings);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^2025-01 failed: 503 STORE_UNAVAILABLE: busy \[2J \[H complete: 12 windows \(12 pulled, 0 unchanged\) 31m /m);
    expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(result.stderr).not.toMatch(/^complete: 12/m);
  });

  it.each([
    ['trickles its body', (response: import('node:http').ServerResponse) => {
      response.writeHead(200, { 'content-type': 'application/vnd.apache.parquet' });
      response.write('PAR1');
      const timer = setInterval(() => response.write('\0'), 300);
      response.on('close', () => clearInterval(timer));
    }],
    ['declares 100000 bytes and sends four', (response: import('node:http').ServerResponse) => {
      response.writeHead(200, { 'content-type': 'application/vnd.apache.parquet', 'content-length': '100000' });
      response.write('PAR1');
    }],
    ['never sends its headers', () => {}],
  ])('gives up a server that %s at SUMMARY_DEADLINE_SECONDS, and tries no further window', async (_what, answer) => {
    const settings = await serve((_request, response) => answer(response));
    const started = Date.now();
    const result = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-03-31', '--out', outDir()], { ...settings, SUMMARY_DEADLINE_SECONDS: '1.5' });
    // Without the deadline it would wait for ever; the bound is loose for a loaded machine.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(result.stderr).toMatch(/^2025-01 failed: the service gave no full answer within 1\.5 s \(SUMMARY_DEADLINE_SECONDS\), attempts and waits included: try again later, or raise SUMMARY_DEADLINE_SECONDS/m);
    // No further window: at most January's one request (on a loaded machine the token alone may
    // take the 1.5 s, and the window then fails before asking).
    expect(fake!.requests.length).toBeLessThanOrEqual(1);
    expect(result.code).toBe(1);
  });

  it('gives up a server that trickles a byte every 300 ms at SUMMARY_DEADLINE_SECONDS with the garbage collector running, and frees the folder', async () => {
    const settings = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/vnd.apache.parquet' });
      const timer = setInterval(() => response.write('\0'), 300);
      response.on('close', () => clearInterval(timer));
    });
    const dir = join(outDir(), 'pull');
    const started = Date.now();
    // GC every 20 ms in the CLI's own process: a deadline that only a weakly held signal carried was lost.
    const result = await runChild(process.execPath, ['--expose-gc', `--import=data:text/javascript,${encodeURIComponent('setInterval(() => globalThis.gc(), 20).unref()')}`, CLI, 'pull', 'contracts', ...JANUARY, '--out', dir, '--max-retry-wait', '0', '--via', 'windows'], { ...settings, SUMMARY_DEADLINE_SECONDS: '3' });
    // Without the deadline it would wait for ever; the bound is loose for a loaded machine.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(result.stderr).toMatch(/^2025-01 failed: the service gave no full answer within 3 s \(SUMMARY_DEADLINE_SECONDS\)/m);
    expect(result.code).toBe(1);
    expect(existsSync(join(dir, '.summary-client.lock'))).toBe(false);
  });

  it('gives up a server silent within its body at the silence bound with the garbage collector running', async () => {
    const settings = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/vnd.apache.parquet' });
      response.write('PAR1');
    });
    // The library with a silence bound of 1 s (the CLI's is 240 s), in a process that collects every 20 ms.
    const script = `
      const { pull, readSettings, summaryApi, trustCaFile } = await import(${JSON.stringify(pathToFileURL(join(projectRoot(), 'client', 'dist', 'index.js')).href)});
      setInterval(() => globalThis.gc(), 20).unref();
      const settings = readSettings(process.env);
      if (settings.caFile) trustCaFile(settings.caFile);
      const started = Date.now();
      const summary = await pull(summaryApi(settings, fetch, 1000), { dataset: 'contracts', from: '2025-01-01', to: '2025-01-31', by: 'created', format: 'parquet', filters: {}, out: process.env.OUT, source: { service: settings.baseUrl, client: settings.client }, retry: { attempts: 2, maxWaitMs: 0, deadlineMs: 600000 }, via: 'windows' });
      console.log(JSON.stringify({ ms: Date.now() - started, failed: summary.failed.map((entry) => entry.error) }));
    `;
    const result = await runChild(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { ...settings, OUT: join(outDir(), 'pull') });
    expect(result.stderr).toBe('');
    const said = JSON.parse(result.stdout) as { ms: number; failed: string[] };
    expect(said.failed).toEqual([expect.stringMatching(/^the service was silent: no byte for 1 s/)]);
    // Without the bound it would wait for the run's 600 s deadline; loose for a loaded machine.
    expect(said.ms).toBeLessThan(60_000);
    expect(fake!.requests).toHaveLength(2);
  });

  // Brotli's quickest level: its default (11) takes seconds over 256 MiB, for a bomb no larger.
  it.each([['br', (data: Buffer) => brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } })], ['gzip', (data: Buffer) => gzipSync(data)]] as [string, (data: Buffer) => Buffer][])('refuses an export in the %s coding it did not ask for before inflating a byte, and never halves for it', async (coding, compress) => {
    // A few KB that inflate to 256 MiB; the client asks for identity on exports.
    const bomb = compress(Buffer.alloc(256 * MiB));
    const settings = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/vnd.apache.parquet', 'content-encoding': coding, 'content-length': String(bomb.byteLength) });
      response.end(bomb);
    });
    const result = await runPull(['contracts', ...JANUARY, '--out', outDir()], settings);
    // Refused by its header, once: no halving, no retry.
    expect(result.stderr).toMatch(new RegExp(`^2025-01 failed: the service answered in the ${coding} coding, which this client did not ask for`, 'm'));
    expect(result.code).toBe(1);
    expect(fake!.requests.map((request) => request.headers['accept-encoding'])).toEqual(['identity']);
  });

  it('stops with exit 2 and what to do when the columns change on every answer, leaving no hidden file behind', async () => {
    let answers = 0;
    const settings = await serve(async (_request, response, real) => {
      const answer = await real();
      // Each answer a schema of its own, as a service whose roles change under the run would give.
      const schema = (++answers).toString(16).padStart(32, '0');
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json', etag: answer.headers.get('etag') ?? '', 'x-summary-schema': schema, 'x-request-id': answer.headers.get('x-request-id') ?? '' });
      response.end(answer.body);
    });
    const dir = outDir();
    const result = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-03-31', '--format', 'jsonl', '--out', dir], settings);
    expect([result.code, result.stderr]).toEqual([2, expect.stringMatching(/^summary-client: the columns your roles see changed again and again during the run; run it again once the service's roles settle$/m)]);
    expect(result.stderr).not.toMatch(/unexpected error/);
    const left = (folder: string): string[] => readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? left(join(folder, entry.name)) : [entry.name]));
    expect(left(dir).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  it('asks for JSON pages in gzip and counts a gzip page as it inflates, under the byte cap', async () => {
    const settings = await serve(async (_request, response, real) => {
      const answer = await real();
      const body = gzipSync(answer.body);
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json', 'content-encoding': 'gzip', etag: answer.headers.get('etag') ?? '', 'x-summary-schema': answer.headers.get('x-summary-schema') ?? '', 'x-request-id': answer.headers.get('x-request-id') ?? '' });
      response.end(body);
    });
    const dir = outDir();
    const result = await runPull(['contracts', ...JANUARY, '--format', 'jsonl', '--out', dir], settings);
    expect([result.code, result.stderr]).toEqual([0, expect.stringMatching(/^complete: 1 window \(1 pulled, 0 unchanged\)/m)]);
    expect(fake!.requests.every((request) => request.headers['accept-encoding'] === 'gzip')).toBe(true);
  });

  it('refuses a manifest that names a file outside --out (or one it never writes), deleting nothing', async () => {
    const settings = await serve(async (_request, response, real) => send(response, await real()));
    const parent = outDir();
    const dir = join(parent, 'pull');
    expect((await runPull(['contracts', ...JANUARY, '--out', dir], settings)).code).toBe(0);
    const victim = join(parent, 'victim.txt');
    writeFileSync(victim, 'not the client\'s');
    const manifest = JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as { windows: { files: { file: string }[] }[] };
    for (const name of ['../victim.txt', victim, 'contracts-2025-01.parquet/../../victim.txt', 'notes.txt']) {
      manifest.windows[0]!.files[0]!.file = name;
      writeFileSync(join(dir, '_manifest.json'), JSON.stringify(manifest));
      const result = await runPull(['contracts', '--from', '2025-01-01', '--to', '2025-02-28', '--out', dir], settings);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`_manifest.json is refused: it lists ${JSON.stringify(name)}, which is not a file summary-client writes for this pull`);
      expect(readFileSync(victim, 'utf8')).toBe('not the client\'s');
    }
  });

  it('leaves nothing a reader picks up when killed in the middle of a window', async () => {
    let release = () => {};
    let asked = () => {};
    let held = false;
    const secondPage = new Promise<void>((resolve) => (asked = resolve));
    const settings = await serve(async (request, response, real) => {
      // The first run's second page is held until the client is killed.
      if ((JSON.parse(request.body) as { page?: number }).page === 2 && !held) {
        held = true;
        asked();
        await new Promise<void>((resolve) => (release = resolve));
      }
      send(response, await real());
    });
    const dir = outDir();
    const child = spawn(process.execPath, [CLI, 'pull', 'contracts', ...JANUARY, '--format', 'jsonl', '--page-size', '5', '--out', dir, '--via', 'windows'], { env: { PATH: process.env.PATH ?? '', ...settings }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await Promise.race([secondPage, exited]);
    expect(stderr).toBe('');
    child.kill('SIGKILL');
    await exited;
    release();
    // The first page is written, hidden in the generation the run worked in; no reader's glob or
    // folder scan sees it (nor the lock of the killed run, kept beside the folder).
    expect(readdirSync(dir)).toEqual([]);
    const work = workingFolder(dir);
    expect(readdirSync(work)).toEqual(['.contracts-2025-01.jsonl.partial']);
    expect(readFileSync(join(work, '.contracts-2025-01.jsonl.partial'), 'utf8').split('\n').filter(Boolean)).toHaveLength(5);

    const again = await runPull(['contracts', ...JANUARY, '--format', 'jsonl', '--page-size', '5', '--out', dir], settings);
    expect(again.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['_manifest.json', 'contracts-2025-01.jsonl']);
  });
});

describe('summary-client pull through the delta', () => {
  function runDelta(args: readonly string[], settings: Record<string, string>, via: readonly string[] = ['--via', 'delta']): Promise<ChildResult> {
    return runChild(process.execPath, [CLI, 'pull', 'contracts', ...JANUARY, '--format', 'jsonl', '--max-retry-wait', '0', ...via, ...args], settings, 120_000);
  }

  it('refuses a delta page of empty objects before parsing it: the run stops, exit 1, the folder as it was', async () => {
    const empties = `{"data":[${'{},'.repeat(20 * MiB)}{}],"pagination":{"page":1,"pageSize":1000,"totalRecords":1,"totalPages":1,"hasNext":false},"delta":{},"meta":{}}`;
    const settings = await serve(async (request, response, real) => {
      if (!request.path.endsWith('/delta')) return send(response, await real());
      response.writeHead(200, { 'content-type': 'application/json', 'x-summary-schema': '0'.repeat(32) });
      response.end(empties);
    });
    const dir = join(outDir(), 'pull');
    const result = await runDelta(['--out', dir], settings);
    expect(result.stderr).toMatch(/^stopped: the delta could not be had \(the service's answer \(200\) is refused before parsing: it holds more than \d+ objects and arrays/m);
    expect(result.code).toBe(1);
    expect(existsSync(dir)).toBe(false);
  }, 120_000);

  it('killed while a delta is walked leaves nothing a reader picks up; the next run completes', async () => {
    let release = () => {};
    let asked = () => {};
    let held = false;
    const secondPage = new Promise<void>((resolve) => (asked = resolve));
    const settings = await serve(async (request, response, real) => {
      if ((JSON.parse(request.body) as { deltaPage?: string }).deltaPage !== undefined && !held) {
        held = true;
        asked();
        await new Promise<void>((resolve) => (release = resolve));
      }
      send(response, await real());
    });
    const dir = outDir();
    const child = spawn(process.execPath, [CLI, 'pull', 'contracts', ...JANUARY, '--format', 'jsonl', '--page-size', '5', '--out', dir], { env: { PATH: process.env.PATH ?? '', ...settings }, stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await Promise.race([secondPage, exited]);
    child.kill('SIGKILL');
    await exited;
    release();
    // A delta's rows are merged once it is whole: nothing is written before.
    expect(readdirSync(dir)).toEqual([]);
    const again = await runDelta(['--page-size', '5', '--out', dir, '--json'], settings, []);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ complete: true, via: 'delta', delta: { start: 'full' }, windows: [{ label: '2025-01', status: 'pulled' }] });
    expect(readdirSync(dir).sort()).toEqual(['_manifest.json', 'contracts-2025-01.jsonl']);
  });

  it('a Parquet delta too large for one answer: the run takes a new token and pulls window by window, exit 0, and says so', async () => {
    let tooLarge = false;
    const settings = await serve(async (request, response, real) => {
      if (tooLarge && request.path.endsWith('/delta') && !String(request.headers.accept).includes('json')) return problem(response, 413, 'RESULT_TOO_LARGE');
      send(response, await real());
    });
    const dir = outDir();
    const first = await runDelta(['--format', 'parquet', '--out', dir, '--json'], settings);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ complete: true, via: 'windows', delta: { start: 'since', merged: false } });
    const token = (JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as { delta: { token: string } }).delta.token;
    tooLarge = true;
    const second = await runDelta(['--format', 'parquet', '--out', dir, '--json'], settings);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('the folder\'s delta cannot be merged this run (DELTA_TOO_LARGE');
    expect(second.stderr).toContain('pulling the range by its ETags, then taking a new token');
    expect(JSON.parse(second.stdout)).toMatchObject({ complete: true, via: 'windows', delta: { start: 'since', merged: false, restarted: 'DELTA_TOO_LARGE' }, windows: [{ label: '2025-01', status: 'unchanged' }] });
    expect((JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as { delta: { token: string } }).delta.token).not.toBe(token);
  });

  it('a service without the delta: by default the run goes window by window and says why; --via delta stops', async () => {
    const settings = await serve(async (request, response, real) => {
      if (request.path.endsWith('/delta')) return problem(response, 404, 'NOT_FOUND');
      send(response, await real());
    });
    const fallback = await runDelta(['--out', outDir(), '--json'], settings, []);
    expect(fallback.code).toBe(0);
    expect(fallback.stderr).toContain('not through the delta: the service offers no delta');
    expect(JSON.parse(fallback.stdout)).toMatchObject({ complete: true, via: 'windows' });
    const asked = await runDelta(['--out', join(outDir(), 'pull')], settings);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('--via delta: the service offers no delta');
  });
});
