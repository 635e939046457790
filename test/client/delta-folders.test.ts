import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { workingFolder } from '../../client/src/generations.js';
import { isComplete, pull, readSettings, summaryApi, type PullOptions, type PullSummary } from '../../client/src/index.js';
import type { DatasetName } from '../../client/src/datasets.js';
import type { PullEvent, Via } from '../../client/src/pull-summary.js';
import { clientSettings } from '../../dev/client-settings.js';
import { buildAllowlist } from '../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../shared/access/datapoints.js';
import { CONTRACTS } from '../../shared/model/contracts.js';
import { INVOICES } from '../../shared/model/invoices.js';
import { withDuckDb } from '../support/duckdb.js';
import { parquetMetadata } from 'hyparquet';
import { readParquet } from '../support/parquet.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { client, identities, stack } from '../support/stack.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { randomContractNights } from '../support/random-nights.js';
import { tempDirs } from '../support/temp-dirs.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';
import { runChild } from '../support/run-child.js';
import { projectRoot } from '../../dev/project-root.js';

// summary-client keeps a JSON Lines folder through the service's delta (issue 52, part 1): the
// first run pulls the whole range from a delta without a token, and each later run asks once what
// changed since the folder's token and merges it into the months' files, rewriting only those that
// changed. After every run that exits 0 the folder, read by DuckDB with no options, equals what the
// store holds for the caller, for two views. A token the service no longer continues (altered, or
// kept by a service that lost it) starts again from the whole range by itself; a folder pulled
// window by window switches through its watermark. The service's clock is the machine's: a delta
// reads the writes since a few seconds before the last one began, by the store's own clock.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

const outDir = tempDirs('delta-folder');
const CLI = join(projectRoot(), 'client', 'bin', 'summary-client.js');
const RANGE = { from: '2024-01-01', to: '2024-04-30' };
type Range = typeof RANGE;
const CLIENTS = ['contoso-full', 'contoso-basic'];
/** A night that restarts the service and its Azurite first. */
const RESTART_NIGHT_MS = 90_000;

let own: OwnTenant;
let service: TestService;
let port = 0;
/** The roles the identity provider gives contoso-full now. */
let fullRoles: readonly string[] = client('contoso-full').roles;
let serial = 0;
let template: Doc;

async function serve(roles: readonly string[] = client('contoso-full').roles): Promise<void> {
  await service?.stop();
  fullRoles = roles;
  service = await startTestService({
    exports: {}, port, roles: { 'contoso-full': roles },
    settings: { CLIENT_REGISTRY: JSON.stringify(Object.fromEntries(CLIENTS.map((name) => [client(name).clientId, own.tenant]))) },
  });
  port = Number(new URL(service.baseUrl).port);
}

function contract(createdDate: string, overrides: Doc = {}): Doc {
  const id = `CON-DELTA-${String(++serial).padStart(5, '0')}`;
  return { ...template, id, contractId: id, status: 'Published', title: `contract ${id}`, createdDate, updatedDate: createdDate, ...overrides };
}

beforeAll(async () => {
  own = await startOwnTenant(1, { clients: CLIENTS });
  template = (await own.documents('contracts'))[0]!;
  await own.remove('contracts', (await own.documents('contracts')).map((doc) => doc.id));
  await own.remove('invoices', (await own.documents('invoices')).map((doc) => doc.id));
  await own.write('contracts', ['01', '02', '03', '04'].flatMap((month) => [1, 2, 3].map((day) => contract(`2024-${month}-0${day}T10:00:00.000Z`, day === 3 ? { status: 'Draft' } : {}))));
  await serve();
});

afterAll(async () => {
  await service?.stop();
  await own?.stop();
});

interface Night {
  readonly summary: PullSummary;
  readonly events: readonly PullEvent[];
  /** Requests the run made of the delta operation, and of the summary operation. */
  readonly deltas: number;
  readonly pages: number;
}

async function runNight(clientName: string, dir: string, options: { dataset?: DatasetName; via?: Via; format?: 'jsonl' | 'parquet'; range?: Range; now?: string } = {}): Promise<Night> {
  const dataset = options.dataset ?? 'contracts';
  const format = options.format ?? 'jsonl';
  const settings = readSettings(clientSettings({ baseUrl: service.baseUrl, authUrl: service.idp!.url, identities, caFile: stack.caFile }, clientName));
  const pullOptions: PullOptions = { dataset, ...options.range ?? RANGE, by: 'created', format, filters: {}, out: dir, source: { service: settings.baseUrl, client: settings.client }, pageSize: 3, ...(options.via ? { via: options.via } : {}), ...(options.now ? { now: () => Date.parse(options.now!) } : {}) };
  const before = service.logs.length;
  const events: PullEvent[] = [];
  const summary = await pull(summaryApi(settings), pullOptions, (event) => events.push(event));
  const lines = service.logs.slice(before).map((line) => JSON.parse(line) as Doc);
  const deltas = lines.filter((line) => line.operation === `${dataset}.delta`);
  return {
    summary, events,
    deltas: deltas.length,
    pages: lines.filter((line) => line.operation === `${dataset}.summary`).length,
  };
}

/** The caller's view of `dataset` now: its fields and whether it sees Drafts. */
function viewOf(clientName: string, dataset: DatasetName) {
  return buildAllowlist(DATAPOINTS).view(dataset === 'contracts' ? CONTRACTS : INVOICES, clientName === 'contoso-full' ? fullRoles : client(clientName).roles);
}

const ID_FIELD = { contracts: 'contractId', invoices: 'invoiceId' } as const;

/** What a night may change of a record: its title, its status, its lines. */
function fingerprint(record: Doc): string {
  return JSON.stringify([record.title ?? null, record.status ?? null, Array.isArray(record.lines) ? record.lines.length : null]);
}

/** What the store holds for the caller in the range: id → fingerprint of what it sees. */
async function truth(clientName: string, dataset: DatasetName = 'contracts', range: Range = RANGE): Promise<Record<string, string>> {
  const view = viewOf(clientName, dataset);
  const seen = new Set(view.fields.map((field) => field.name));
  const documents = (await own.documents(dataset)).filter((doc) => doc.createdDate.slice(0, 10) >= range.from && doc.createdDate.slice(0, 10) <= range.to && (view.drafts || doc.status !== 'Draft'));
  return Object.fromEntries(documents.map((doc) => [doc[ID_FIELD[dataset]], fingerprint({ title: seen.has('title') ? doc.title : undefined, status: seen.has('status') ? doc.status : undefined, lines: dataset === 'invoices' && view.lineFields.length > 0 ? doc.lines : undefined })]));
}

/** The folder as DuckDB reads it with no options (id → fingerprint); every line answers the view's fields, no record twice. */
async function readFolder(dir: string, clientName: string, dataset: DatasetName = 'contracts'): Promise<Record<string, string>> {
  const files = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
  if (files.length === 0) return {};
  const members = new Set(files.flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean).map((line) => Object.keys(JSON.parse(line) as Doc).filter((member) => member !== 'lines').join())));
  expect([...members]).toEqual([viewOf(clientName, dataset).fields.map((field) => field.name).join()]);
  const rows = await withDuckDb((query) => query(`SELECT * FROM read_json_auto('${dir}/*.jsonl')`));
  const ids = rows.map((row) => String(row[ID_FIELD[dataset]]));
  expect(new Set(ids).size).toBe(ids.length);
  return Object.fromEntries(rows.map((row) => [String(row[ID_FIELD[dataset]]), fingerprint(row)]));
}

async function expectExact(clientName: string, dir: string, night: Night, dataset: DatasetName = 'contracts', range: Range = RANGE): Promise<void> {
  expect({ complete: isComplete(night.summary), via: night.summary.via, failed: night.summary.failed.map((entry) => entry.error), stopped: night.summary.stopped }).toEqual({ complete: true, via: 'delta', failed: [], stopped: undefined });
  expect(await readFolder(dir, clientName, dataset)).toEqual(await truth(clientName, dataset, range));
}

function statuses(summary: PullSummary): Record<string, string> {
  return Object.fromEntries(summary.outcomes.map((outcome) => [outcome.label, outcome.status]));
}

function manifestOf(dir: string): Doc {
  return JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as Doc;
}

/** Random nights of every kind of write to January–April, each then `check`ed (test/support/random-nights.ts). */
function randomNights(check: () => Promise<void>): Promise<void> {
  return randomContractNights(own, { contract, kinds: ['rename', 'delete', 'draft', 'publish', 'move', 'out'], numRuns: 5, check });
}

describe('a JSON Lines folder kept by the delta', () => {
  const folders = { full: outDir(), basic: outDir() };

  it('night 1: a first run pulls the whole range from one delta, one file per month, and keeps the token', async () => {
    for (const [name, dir] of [['contoso-full', folders.full], ['contoso-basic', folders.basic]] as const) {
      const night = await runNight(name, dir);
      await expectExact(name, dir, night);
      expect(night.summary.delta).toEqual({ start: 'full', merged: true });
      expect(statuses(night.summary)).toEqual({ '2024-01': 'pulled', '2024-02': 'pulled', '2024-03': 'pulled', '2024-04': 'pulled' });
      // Pages of 3: the full caller sees 12 records (Drafts included), the basic 8.
      expect({ deltas: night.deltas, pages: night.pages }).toEqual({ deltas: name === 'contoso-full' ? 4 : 3, pages: 0 });
      const manifest = manifestOf(dir);
      expect(manifest.delta).toEqual({ token: expect.stringMatching(/^d1\.[0-9a-f]{32}\.\d+$/), ...RANGE });
      expect(manifest.watermark).toBe(night.summary.watermark);
      expect(readdirSync(dir).filter((name) => name.endsWith('.jsonl')).sort()).toEqual(['contracts-2024-01.jsonl', 'contracts-2024-02.jsonl', 'contracts-2024-03.jsonl', 'contracts-2024-04.jsonl']);
    }
  });

  it('night 2: nothing changed: one request, no row sent again, no file written', async () => {
    const before = readdirSync(folders.full).map((name) => [name, statSync(join(folders.full, name)).mtimeMs]);
    const night = await runNight('contoso-full', folders.full);
    await expectExact('contoso-full', folders.full, night);
    expect(night.summary.delta).toEqual({ start: 'token', merged: true });
    // The writes of the last few seconds are read again (the delta's margin, QUIET_SECONDS), not sent again.
    expect(night.deltas).toBe(1);
    expect(night.summary.outcomes.map((outcome) => [outcome.status, outcome.changed, outcome.removed])).toEqual(Array.from({ length: 4 }, () => ['unchanged', 0, 0]));
    const files = before.filter(([name]) => String(name).endsWith('.jsonl'));
    expect(files.map(([name]) => [name, statSync(join(folders.full, String(name))).mtimeMs])).toEqual(files);
  });

  it('night 3: creates, back-dated records, an update that leaves updatedDate alone, deletes, Drafts, a record moved between months: exactly the months they touch', async () => {
    const documents = await own.documents('contracts');
    const published = (month: string) => documents.filter((doc) => doc.createdDate.startsWith(`2024-${month}`) && doc.status !== 'Draft');
    const draft = documents.find((doc) => doc.status === 'Draft' && doc.createdDate.startsWith('2024-04'))!;
    await own.write('contracts', [
      contract('2024-01-20T00:00:00.000Z'), // back-dated into the oldest month
      { ...published('02')[0], title: 'renamed, updatedDate left alone' },
      { ...published('02')[1], createdDate: '2024-03-15T00:00:00.000Z' }, // moves from February to March
      { ...draft, status: 'Published', title: 'no longer a Draft' },
    ]);
    await own.remove('contracts', [published('01')[0]!.id]);
    const results = [];
    for (const [name, dir] of [['contoso-full', folders.full], ['contoso-basic', folders.basic]] as const) {
      const night = await runNight(name, dir);
      await expectExact(name, dir, night);
      expect(night.summary.delta).toEqual({ start: 'token', merged: true });
      results.push(night);
    }
    // January: one created, one deleted; February: one renamed, one moved out; March: one moved in;
    // April: a Draft published (the full caller had it: changed; the basic one had not: new).
    const counts = (night: Night) => Object.fromEntries(night.summary.outcomes.map((outcome) => [outcome.label, [outcome.status, outcome.changed, outcome.removed]]));
    expect(counts(results[0]!)).toEqual({ '2024-01': ['merged', 1, 1], '2024-02': ['merged', 1, 1], '2024-03': ['merged', 1, 0], '2024-04': ['merged', 1, 0] });
    expect(counts(results[1]!)).toEqual(counts(results[0]!));
    // Four records and a removal, in pages of 3: nothing the folders already had is sent again.
    expect(results.map((night) => night.deltas)).toEqual([2, 2]);
  });

  it('night 4: a record turned Draft leaves the basic caller\'s folder only; nothing else is written', async () => {
    const doc = (await own.documents('contracts')).find((candidate) => candidate.createdDate.startsWith('2024-03') && candidate.status === 'Published')!;
    await own.write('contracts', [{ ...doc, status: 'Draft' }]);
    const full = await runNight('contoso-full', folders.full);
    const basic = await runNight('contoso-basic', folders.basic);
    await expectExact('contoso-full', folders.full, full);
    await expectExact('contoso-basic', folders.basic, basic);
    expect(statuses(full.summary)).toEqual({ '2024-01': 'unchanged', '2024-02': 'unchanged', '2024-03': 'merged', '2024-04': 'unchanged' });
    expect(basic.summary.outcomes.find((outcome) => outcome.label === '2024-03')).toMatchObject({ status: 'merged', changed: 0, removed: 1 });
  });

  it('a token the service does not know (altered) starts again from the whole range by itself, and says so', async () => {
    const manifest = manifestOf(folders.basic);
    const token = String(manifest.delta.token);
    manifest.delta.token = `${token.slice(0, 3)}${token[3] === 'a' ? 'b' : 'a'}${token.slice(4)}`;
    writeFileSync(join(folders.basic, '_manifest.json'), JSON.stringify(manifest));
    await own.write('contracts', [contract('2024-02-11T00:00:00.000Z')]);
    const night = await runNight('contoso-basic', folders.basic);
    await expectExact('contoso-basic', folders.basic, night);
    expect(night.summary.delta).toEqual({ start: 'token', merged: true, restarted: 'DELTA_TOKEN_NOT_FOUND' });
    expect(night.events.filter((event) => event.kind === 'delta-restart')).toHaveLength(1);
    // Started again from nothing, only the month whose contents changed is written.
    expect(statuses(night.summary)).toEqual({ '2024-01': 'unchanged', '2024-02': 'pulled', '2024-03': 'unchanged', '2024-04': 'unchanged' });
    expect(manifestOf(folders.basic).delta.token).not.toBe(manifest.delta.token);
  });

  it('a role taken away: the service (restarted, its tokens gone) answers the whole view again, into one schema', async () => {
    await serve(client('contoso-full').roles.filter((role) => role !== 'Data.Read.Financials'));
    const night = await runNight('contoso-full', folders.full);
    await expectExact('contoso-full', folders.full, night);
    expect(night.summary.delta?.restarted).toMatch(/^DELTA_/);
    expect(readFileSync(join(folders.full, 'contracts-2024-01.jsonl'), 'utf8')).not.toContain('contractAmount');
  }, RESTART_NIGHT_MS);

  it('a folder pulled window by window switches through its watermark, then goes on by its token', async () => {
    const dir = outDir();
    const windows = await runNight('contoso-basic', dir, { via: 'windows' });
    expect({ complete: isComplete(windows.summary), via: windows.summary.via }).toEqual({ complete: true, via: 'windows' });
    await own.write('contracts', [contract('2024-03-21T00:00:00.000Z')]);
    const switched = await runNight('contoso-basic', dir);
    await expectExact('contoso-basic', dir, switched);
    expect(switched.summary.delta).toEqual({ start: 'since', merged: true });
    expect(statuses(switched.summary)['2024-03']).toBe('merged');
    const next = await runNight('contoso-basic', dir);
    await expectExact('contoso-basic', dir, next);
    expect(next.summary.delta).toEqual({ start: 'token', merged: true });
  });
});

/**
 * A module to preload into the CLI (`--import=`): the process runs `then` as it is about to make
 * the `nth` rename whose target matches `target` (a data file of its commit): its manifest, with
 * the new token, and the files renamed before are committed in the generation it works in; the
 * others are written hidden.
 */
function atRename(target: RegExp, nth: number, then: string): string {
  return `data:text/javascript,${encodeURIComponent([
    "import fs from 'node:fs';",
    "import { syncBuiltinESMExports } from 'node:module';",
    'const rename = fs.renameSync;',
    'let seen = 0;',
    `fs.renameSync = (from, to) => { if (${target.toString()}.test(String(to)) && ++seen === ${nth}) { ${then} } return rename(from, to); };`,
    'syncBuiltinESMExports();',
  ].join('\n'))}`;
}

/** The process sends itself `signal` at the second month's rename of its commit. */
function signalAtSecondMonth(signal: 'SIGKILL' | 'SIGTERM'): string {
  return atRename(/\.jsonl$/, 2, `process.kill(process.pid, '${signal}');`);
}

/** Every file a reader of the folder opens (the tables' folders too), by name: its sha256. */
function filesOf(dir: string): Record<string, string> {
  return Object.fromEntries(['', 'invoices/', 'invoice_tables/'].filter((sub) => existsSync(join(dir, sub))).flatMap((sub) => readdirSync(join(dir, sub), { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => [`${sub}${entry.name}`, createHash('sha256').update(readFileSync(join(dir, sub, entry.name))).digest('hex')])));
}

function cli(args: readonly string[], clientName: string, preload: string) {
  const settings = clientSettings({ baseUrl: service.baseUrl, authUrl: service.idp!.url, identities, caFile: stack.caFile }, clientName);
  return runChild(process.execPath, [`--import=${preload}`, CLI, 'pull', ...args, '--from', RANGE.from, '--to', RANGE.to], settings, 120_000);
}

describe('a folder whose merge is killed (SIGKILL) between its renames', () => {
  it('JSON Lines: readers see the folder as the last run left it; the next run finishes the commit and merges on from its token', async () => {
    const dir = outDir();
    expect(isComplete((await runNight('contoso-full', dir)).summary)).toBe(true);
    const shown = filesOf(dir);
    const token = manifestOf(dir).delta.token as string;
    const [january, february, march] = ['2024-01', '2024-02', '2024-03'].map((month) => contract(`${month}-20T09:00:00.000Z`));
    await own.write('contracts', [january!, february!, march!]);
    const killed = await cli(['contracts', '--format', 'jsonl', '--page-size', '3', '--out', dir], 'contoso-full', signalAtSecondMonth('SIGKILL'));
    expect(killed.signal).toBe('SIGKILL');
    // Readers: the last run's files, byte for byte, its token with them.
    expect(filesOf(dir)).toEqual(shown);
    expect(manifestOf(dir).delta.token).toBe(token);
    // The killed run's generation: its manifest (the merge's token) and January committed; February and March still hidden.
    const work = workingFolder(dir);
    expect(readdirSync(work).filter((name) => name.endsWith('.partial')).sort()).toEqual(['.contracts-2024-02.jsonl.partial', '.contracts-2024-03.jsonl.partial']);
    expect(manifestOf(work).delta.token).not.toBe(token);
    expect(readFileSync(join(work, 'contracts-2024-01.jsonl'), 'utf8')).toContain(january!.contractId);
    const night = await runNight('contoso-full', dir);
    await expectExact('contoso-full', dir, night);
    expect(night.summary.delta).toEqual({ start: 'token', merged: true });
    expect(night.events).toContainEqual(expect.objectContaining({ kind: 'delta-start', start: 'token' }));
    expect(night.events).toContainEqual({ kind: 'run-resumed' });
    expect(readdirSync(dir).filter((name) => name.endsWith('.partial'))).toEqual([]);
  }, 120_000);

  it('Parquet invoices: killed between a month\'s two tables, readers see both old; the next run leaves both new', async () => {
    const folder = outDir();
    const seed = (await startOwnTenantInvoice())!;
    const lines = (count: number) => Array.from({ length: count }, (_, index) => ({ ...seed.lines[0], lineNumber: index + 1, description: `line ${index + 1}` }));
    // The tenant's invoices are this test's only (the others' tests make their own, and remove what they find).
    await own.remove('invoices', (await own.documents('invoices')).map((doc) => doc.id));
    const made = ['01', '02'].map((month, index) => ({ ...seed, id: `INV-KILL-${index}`, invoiceId: `INV-KILL-${index}`, contractId: null, contractWorkspaceID: null, contractStatus: null, status: 'Approved', createdDate: `2024-${month}-14T00:00:00.000Z`, lines: lines(1) }));
    await own.write('invoices', made);
    expect(isComplete((await runNight('contoso-full', folder, { dataset: 'invoices', format: 'parquet' })).summary)).toBe(true);
    const shown = filesOf(folder);
    // Each invoice gets more lines: both tables of both months change.
    await own.write('invoices', made.map((invoice, index) => ({ ...invoice, title: `killed ${index}`, lines: lines(index + 3) })));
    const killed = await cli(['invoices', '--format', 'parquet', '--out', folder], 'contoso-full', atRename(/invoice(s|_tables)-2024-\d\d\.parquet$/, 2, "process.kill(process.pid, 'SIGKILL');"));
    expect([killed.signal, killed.stderr]).toEqual(['SIGKILL', '']);
    expect(filesOf(folder)).toEqual(shown);
    // Where the run was killed: one table of a month renamed into place, the month's other table not yet.
    const work = filesOf(workingFolder(folder));
    const renamed = Object.keys(work).filter((file) => work[file] !== shown[file] && file.endsWith('.parquet'));
    expect(renamed).toEqual([expect.stringMatching(/^(invoices|invoice_tables)\//)]);
    const other = renamed[0]!.startsWith('invoices/') ? renamed[0]!.replace(/invoices/g, 'invoice_tables') : renamed[0]!.replace(/invoice_tables/g, 'invoices');
    expect(work[other]).toBe(shown[other]);
    const night = await runNight('contoso-full', folder, { dataset: 'invoices', format: 'parquet' });
    expect({ via: night.summary.via, complete: isComplete(night.summary) }).toEqual({ via: 'delta', complete: true });
    const rows = await withDuckDb((query) => query(`SELECT i.invoiceId, count(*) AS lines FROM read_parquet('${folder}/invoices/*.parquet') i JOIN read_parquet('${folder}/invoice_tables/*.parquet') t USING (invoiceId) WHERE i.invoiceId LIKE 'INV-KILL-%' GROUP BY 1 ORDER BY 1`));
    expect(rows.map((row) => [row.invoiceId, Number(row.lines)])).toEqual([['INV-KILL-0', 3], ['INV-KILL-1', 4]]);
    await own.remove('invoices', made.map((invoice) => invoice.id));
  }, 120_000);
});

describe('a folder a reader opens while a run commits', () => {
  it('is the folder before the run until the run ends, then the folder after it: never a mix', async () => {
    const dir = outDir();
    expect(isComplete((await runNight('contoso-full', dir)).summary)).toBe(true);
    const before = await readFolder(dir, 'contoso-full');
    await own.write('contracts', ['2024-01', '2024-02', '2024-03'].map((month) => contract(`${month}-22T09:00:00.000Z`)));
    // The run stops at its second month's rename until the test has read the folder (60 s at most).
    const held = join(outDir(), 'held');
    const released = join(outDir(), 'released');
    const wait = `fs.writeFileSync(${JSON.stringify(held)}, ''); const cell = new Int32Array(new SharedArrayBuffer(4)); const until = Date.now() + 60000; while (!fs.existsSync(${JSON.stringify(released)}) && Date.now() < until) Atomics.wait(cell, 0, 0, 20);`;
    let ended = false;
    const run = cli(['contracts', '--format', 'jsonl', '--page-size', '3', '--out', dir], 'contoso-full', atRename(/\.jsonl$/, 2, wait)).finally(() => (ended = true));
    try {
      while (!existsSync(held) && !ended) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(existsSync(held)).toBe(true);
      expect(await readFolder(dir, 'contoso-full')).toEqual(before);
    } finally {
      writeFileSync(released, '');
      await run;
    }
    expect((await run).code).toBe(0);
    expect(await readFolder(dir, 'contoso-full')).toEqual(await truth('contoso-full'));
    expect(await readFolder(dir, 'contoso-full')).not.toEqual(before);
  }, 120_000);
});

describe('a JSON Lines folder whose merge is asked to stop (SIGTERM) between its renames', () => {
  /** SIGTERM, as a scheduler stopping the job sends it. */
  const TERM_AT_SECOND_MONTH = signalAtSecondMonth('SIGTERM');

  it('finishes the commit under way, then stops: every month new, nothing hidden left', async () => {
    const dir = outDir();
    expect(isComplete((await runNight('contoso-full', dir)).summary)).toBe(true);
    const months = ['2024-01', '2024-02', '2024-03'].map((month) => contract(`${month}-21T09:00:00.000Z`));
    await own.write('contracts', months);
    const settings = clientSettings({ baseUrl: service.baseUrl, authUrl: service.idp!.url, identities, caFile: stack.caFile }, 'contoso-full');
    const stopped = await runChild(process.execPath, [`--import=${TERM_AT_SECOND_MONTH}`, CLI, 'pull', 'contracts', '--from', RANGE.from, '--to', RANGE.to, '--format', 'jsonl', '--page-size', '3', '--out', dir], settings, 120_000);
    // The commit was not cut: the signal was taken once it ended (the run then dies by it, or had already ended: here, either).
    expect([stopped.signal ?? `exit ${stopped.code}`]).toEqual([expect.stringMatching(/^(SIGTERM|exit 0)$/)]);
    expect(readdirSync(dir).filter((name) => name.endsWith('.partial'))).toEqual([]);
    for (const [index, month] of months.entries()) expect(readFileSync(join(dir, `contracts-2024-0${index + 1}.jsonl`), 'utf8')).toContain(month!.contractId);
    expect(await readFolder(dir, 'contoso-full')).toEqual(await truth('contoso-full'));
  }, 120_000);
});

describe('a folder kept by the delta while a writer is busy', () => {
  /** The folder's contracts, id → the title's serial ('busy N'), as DuckDB reads them with no options. */
  const serials = async (dir: string, format: 'jsonl' | 'parquet'): Promise<Record<string, number>> => {
    const rows = await withDuckDb((query) => query(format === 'jsonl' ? `SELECT contractId, title FROM read_json_auto('${dir}/*.jsonl')` : `SELECT contractId, title FROM read_parquet('${dir}/*.parquet')`));
    // No record twice (a merge that kept an old row beside its new one).
    expect(new Set(rows.map((row) => row.contractId)).size).toBe(rows.length);
    return Object.fromEntries(rows.map((row) => [String(row.contractId), Number(/busy (\d+)/.exec(String(row.title))?.[1] ?? -1)]));
  };

  it.each(['jsonl', 'parquet'] as const)('%s: holds every write made before its watermark after a run the writer never paused for, and the store once the writer rests', async (format) => {
    const dir = outDir();
    const pool = ['2024-01', '2024-02', '2024-03', '2024-04'].map((month) => contract(`${month}-25T09:00:00.000Z`));
    await own.write('contracts', pool);
    expect(isComplete((await runNight('contoso-full', dir, { format })).summary)).toBe(true);
    // The writer: renames (each a higher serial in the title), creates, and deletes of what it created.
    const done: { id: string; serial: number; at: number; deleted?: boolean }[] = [];
    let writing = true;
    let serial = 0;
    const created: Doc[] = [];
    const writer = (async () => {
      while (writing) {
        serial += 1;
        const step = serial % 4;
        if (step === 0 && created.length > 0) {
          const gone = created.shift()!;
          await own.remove('contracts', [gone.id]);
          done.push({ id: gone.contractId, serial, at: Date.now(), deleted: true });
        } else if (step === 1) {
          const fresh = contract(`2024-0${1 + (serial % 4)}-26T09:00:00.000Z`, { title: `busy ${serial}` });
          await own.write('contracts', [fresh]);
          created.push(fresh);
          done.push({ id: fresh.contractId, serial, at: Date.now() });
        } else {
          const record = pool[serial % pool.length]!;
          await own.write('contracts', [{ ...record, title: `busy ${serial}` }]);
          done.push({ id: record.contractId, serial, at: Date.now() });
        }
      }
    })();
    // Busy for longer than the delta's margin (QUIET_SECONDS) before the run: its watermark then
    // falls inside the writes.
    while (done.length === 0 || Date.now() - done[0]!.at < (QUIET_SECONDS + 2) * 1000) await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    const night = await runNight('contoso-full', dir, { format });
    const ended = Date.now();
    writing = false;
    await writer;
    expect(done.filter((write) => write.at > started && write.at < ended).length).toBeGreaterThan(0);
    expect({ complete: isComplete(night.summary), via: night.summary.via }).toEqual({ complete: true, via: 'delta' });
    // Every write finished a second before the watermark is in the folder, as it is or as a later write left it.
    const before = Date.parse(night.summary.watermark!) - 1000;
    const folder = await serials(dir, format);
    const last = new Map<string, { serial: number; deleted?: boolean }>();
    for (const write of done.filter((each) => each.at < before)) last.set(write.id, write);
    expect(last.size).toBeGreaterThan(0);
    for (const [id, write] of last) {
      const held = folder[id];
      // A later write (made after the cutoff, perhaps before the watermark) may have superseded it.
      const later = done.some((each) => each.id === id && each.serial > write.serial);
      if (write.deleted) expect([id, held === undefined || later]).toEqual([id, true]);
      else expect([id, (held !== undefined && held >= write.serial) || later]).toEqual([id, true]);
    }
    // The writer rests: the next night leaves the folder equal to the store.
    const rested = await runNight('contoso-full', dir, { format });
    expect({ complete: isComplete(rested.summary), via: rested.summary.via }).toEqual({ complete: true, via: 'delta' });
    const stored = (await own.documents('contracts')).filter((doc) => doc.createdDate >= RANGE.from && doc.createdDate < '2024-05');
    expect(await serials(dir, format)).toEqual(Object.fromEntries(stored.map((doc) => [String(doc.contractId), Number(/busy (\d+)/.exec(String(doc.title))?.[1] ?? -1)])));
  }, 120_000);
});

describe('a JSON Lines folder kept by the delta under random writes', () => {
  it('equals the store after every night, whatever was written', async () => {
    const dir = outDir();
    await runNight('contoso-basic', dir);
    await randomNights(async () => {
      const night = await runNight('contoso-basic', dir);
      await expectExact('contoso-basic', dir, night);
      expect(night.summary.delta?.start).toBe('token');
    });
  }, 240_000);
});

describe('a Parquet folder kept by the delta under random writes', () => {
  it('equals the store after every night, whatever was written', async () => {
    const dir = outDir();
    /** The folder as DuckDB reads it with no options: id → fingerprint, no record twice. */
    const readParquetFolder = async (): Promise<Record<string, string>> => {
      const rows = await withDuckDb((query) => query(`SELECT * FROM read_parquet('${dir}/*.parquet')`));
      const ids = rows.map((row) => String(row.contractId));
      expect(new Set(ids).size).toBe(ids.length);
      return Object.fromEntries(rows.map((row) => [String(row.contractId), fingerprint(row)]));
    };
    const first = await runNight('contoso-basic', dir, { format: 'parquet' });
    expect(isComplete(first.summary)).toBe(true);
    await randomNights(async () => {
      const night = await runNight('contoso-basic', dir, { format: 'parquet' });
      expect({ complete: isComplete(night.summary), via: night.summary.via, failed: night.summary.failed.length }).toEqual({ complete: true, via: 'delta', failed: 0 });
      expect(await readParquetFolder()).toEqual(await truth('contoso-basic'));
    });
  }, 240_000);
});

describe('an invoices JSON Lines folder kept by the delta', () => {
  it('keeps each invoice with its lines: a line added and an invoice deleted in settled months', async () => {
    const dir = outDir();
    const seed = (await startOwnTenantInvoice())!;
    const lines = (count: number) => Array.from({ length: count }, (_, index) => ({ ...seed.lines[0], lineNumber: index + 1, description: `line ${index + 1}` }));
    const made = ['01', '02', '03'].map((month, index) => ({ ...seed, id: `INV-DELTA-${index}`, invoiceId: `INV-DELTA-${index}`, contractId: null, contractWorkspaceID: null, contractStatus: null, status: 'Approved', createdDate: `2024-${month}-10T00:00:00.000Z`, lines: lines(index + 1) }));
    await own.write('invoices', made);
    const first = await runNight('contoso-full', dir, { dataset: 'invoices' });
    await expectExact('contoso-full', dir, first, 'invoices');
    await own.write('invoices', [{ ...made[1], lines: lines(5) }]);
    await own.remove('invoices', [made[2]!.id]);
    const second = await runNight('contoso-full', dir, { dataset: 'invoices' });
    await expectExact('contoso-full', dir, second, 'invoices');
    expect(statuses(second.summary)).toEqual({ '2024-01': 'unchanged', '2024-02': 'merged', '2024-03': 'merged', '2024-04': 'unchanged' });
    const february = readFileSync(join(dir, 'invoices-2024-02.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Doc);
    expect(february.map((invoice) => invoice.lines.length)).toEqual([5]);
  });
});

/** An invoice of the seed to make the test's invoices from (the tenant's own were removed). */
async function startOwnTenantInvoice(): Promise<Doc | undefined> {
  const { generateTenantDocuments } = await import('../../dev/seed-data.js');
  return generateTenantDocuments('pulls', 3).invoices?.find((doc: Doc) => Array.isArray(doc.lines) && doc.lines.length > 0);
}

describe('a Parquet folder kept by the delta', () => {
  const dir = outDir();

  /** Every row of a folder's table, as DuckDB reads the files with no options, in id order. */
  async function tableRows(folder: string, glob: string): Promise<string[]> {
    const rows = await withDuckDb((query) => query(`SELECT * FROM read_parquet('${folder}/${glob}')`));
    return rows.map((row) => JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value))).sort();
  }

  /** Each column chunk's footer statistics, by column name. */
  function statisticsOf(path: string): Record<string, unknown>[] {
    const bytes = readFileSync(path);
    const metadata = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    return metadata.row_groups.map((group) => Object.fromEntries(group.columns.map((column) => [column.meta_data!.path_in_schema.join('.'), column.meta_data!.statistics ?? null])));
  }

  /** The folder equals a fresh pull of the same range window by window, value for value and column for column; its files have version-1 data pages only. */
  async function expectAsFresh(folder: string, dataset: DatasetName, range: Range = RANGE): Promise<void> {
    const fresh = outDir();
    const pulled = await runNight('contoso-full', fresh, { dataset, format: 'parquet', via: 'windows', range });
    expect(isComplete(pulled.summary)).toBe(true);
    const globs = dataset === 'contracts' ? ['*.parquet'] : ['invoices/*.parquet', 'invoice_tables/*.parquet'];
    for (const glob of globs) expect(await tableRows(folder, glob)).toEqual(await tableRows(fresh, glob));
    for (const sub of dataset === 'contracts' ? [''] : ['invoices/', 'invoice_tables/']) {
      const files = readdirSync(join(folder, sub)).filter((name) => name.endsWith('.parquet'));
      const read = await Promise.all(files.map(async (name) => readParquet(new Uint8Array(readFileSync(join(folder, sub, name))))));
      expect(new Set(read.map((file) => JSON.stringify(file.columns))).size).toBe(1);
      // Each column's statistics (least, greatest, nulls) as a fresh pull's file has them: a reader's filter skips the same files.
      for (const name of files) expect([name, statisticsOf(join(folder, sub, name))]).toEqual([name, statisticsOf(join(fresh, sub, name))]);
      expect([...new Set(read.flatMap((file) => file.pageTypes))].filter((type) => type !== 'DATA_PAGE' && type !== 'DICTIONARY_PAGE')).toEqual([]);
    }
  }

  it('a first run goes through an export job and then adopts a token; the next merges a night of changes into the months it touches', async () => {
    const first = await runNight('contoso-full', dir, { format: 'parquet' });
    expect({ complete: isComplete(first.summary), via: first.summary.via, delta: first.summary.delta }).toEqual({ complete: true, via: 'job', delta: { start: 'since', merged: false } });
    expect(manifestOf(dir).delta).toEqual({ token: expect.stringMatching(/^d1\./), ...RANGE });

    const documents = await own.documents('contracts');
    const published = (month: string) => documents.filter((doc) => doc.createdDate.startsWith(`2024-${month}`) && doc.status !== 'Draft');
    await own.write('contracts', [
      contract('2024-01-25T00:00:00.000Z', { contractAmount: 1234567890123.45 }),
      { ...published('02')[0], title: 'renamed in Parquet' },
      { ...published('02')[1], createdDate: '2024-04-15T00:00:00.000Z' },
    ]);
    await own.remove('contracts', [published('03')[0]!.id]);
    const before = readFileSync(join(dir, 'contracts-2024-01.parquet'));
    const night = await runNight('contoso-full', dir, { format: 'parquet' });
    expect({ complete: isComplete(night.summary), via: night.summary.via, delta: night.summary.delta, deltas: night.deltas, pages: night.pages }).toEqual({ complete: true, via: 'delta', delta: { start: 'token', merged: true }, deltas: 1, pages: 0 });
    expect(night.summary.outcomes.map((outcome) => [outcome.label, outcome.status, outcome.changed, outcome.removed])).toEqual([
      ['2024-01', 'merged', 1, 0], ['2024-02', 'merged', 1, 1], ['2024-03', 'merged', 0, 1], ['2024-04', 'merged', 1, 0],
    ]);
    expect(readFileSync(join(dir, 'contracts-2024-01.parquet')).equals(before)).toBe(false);
    await expectAsFresh(dir, 'contracts');

    const quiet = await runNight('contoso-full', dir, { format: 'parquet' });
    expect({ via: quiet.summary.via, deltas: quiet.deltas, statuses: Object.values(statuses(quiet.summary)) }).toEqual({ via: 'delta', deltas: 1, statuses: ['unchanged', 'unchanged', 'unchanged', 'unchanged'] });
  }, 120_000);

  /** Each column chunk of a Parquet file, its bytes (pages with their headers), by column name. */
  function chunkBytes(path: string): Record<string, string> {
    const bytes = readFileSync(path);
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const [group, ...more] = parquetMetadata(file).row_groups;
    expect(more).toEqual([]);
    return Object.fromEntries(group!.columns.map((column) => {
      const chunk = column.meta_data!;
      const start = Number(chunk.dictionary_page_offset ?? chunk.data_page_offset);
      return [chunk.path_in_schema.join('.'), bytes.subarray(start, start + Number(chunk.total_compressed_size)).toString('base64')];
    }));
  }

  it('a month whose records change in place is written again with the columns that changed encoded, the others copied', async () => {
    const folder = outDir();
    const made = [10, 11, 12, 13, 14].map((day) => contract(`2024-03-${day}T10:00:00.000Z`));
    await own.write('contracts', made);
    const first = await runNight('contoso-full', folder, { format: 'parquet' });
    expect(isComplete(first.summary)).toBe(true);
    const file = join(folder, 'contracts-2024-03.parquet');
    const before = chunkBytes(file);
    await own.write('contracts', [{ ...made[1], title: 'renamed in place' }, { ...made[3], title: 'renamed too' }]);
    const night = await runNight('contoso-full', folder, { format: 'parquet' });
    expect({ via: night.summary.via, delta: night.summary.delta, outcome: night.summary.outcomes.filter((outcome) => outcome.label === '2024-03').map((outcome) => [outcome.status, outcome.changed, outcome.removed]) })
      .toEqual({ via: 'delta', delta: { start: 'token', merged: true }, outcome: [['merged', 2, 0]] });
    const after = chunkBytes(file);
    expect(Object.keys(after)).toEqual(Object.keys(before));
    expect(Object.keys(after).filter((column) => after[column] !== before[column])).toEqual(['title']);
    await expectAsFresh(folder, 'contracts');
  }, 120_000);

  it('a month changed by hand since its run is pulled again, the delta asked beside it left unused', async () => {
    const folder = outDir();
    const first = await runNight('contoso-full', folder, { format: 'parquet' });
    expect(isComplete(first.summary)).toBe(true);
    const file = join(folder, 'contracts-2024-02.parquet');
    const held = readFileSync(file);
    writeFileSync(file, Buffer.concat([held.subarray(0, 8), Buffer.alloc(16), held.subarray(24)]));
    await own.write('contracts', [contract('2024-03-20T10:00:00.000Z')]);
    const night = await runNight('contoso-full', folder, { format: 'parquet' });
    expect({ complete: isComplete(night.summary), failed: night.summary.failed }).toEqual({ complete: true, failed: [] });
    // The folder is pulled again through the run's other passes, and takes a token again.
    expect({ via: night.summary.via, delta: night.summary.delta, february: statuses(night.summary)['2024-02'] }).toEqual({ via: 'job', delta: { start: 'since', merged: false }, february: expect.stringMatching(/^(pulled|moving)$/) });
    await expectAsFresh(folder, 'contracts');
    const quiet = await runNight('contoso-full', folder, { format: 'parquet' });
    expect({ via: quiet.summary.via, deltas: quiet.deltas, pages: quiet.pages }).toEqual({ via: 'delta', deltas: 1, pages: 0 });
  }, 120_000);

  it('an invoices folder keeps each invoice with its lines in both tables', async () => {
    const folder = outDir();
    const seed = (await startOwnTenantInvoice())!;
    const lines = (count: number) => Array.from({ length: count }, (_, index) => ({ ...seed.lines[0], lineNumber: index + 1, description: `line ${index + 1}` }));
    const made = ['01', '02', '03'].map((month, index) => ({ ...seed, id: `INV-PQ-${index}`, invoiceId: `INV-PQ-${index}`, contractId: null, contractWorkspaceID: null, contractStatus: null, status: 'Approved', createdDate: `2024-${month}-12T00:00:00.000Z`, lines: lines(index + 1) }));
    await own.write('invoices', made);
    const first = await runNight('contoso-full', folder, { dataset: 'invoices', format: 'parquet' });
    expect(isComplete(first.summary)).toBe(true);
    await own.write('invoices', [{ ...made[0], lines: lines(4) }, { ...made[1], createdDate: '2024-03-02T00:00:00.000Z' }]);
    await own.remove('invoices', [made[2]!.id]);
    const night = await runNight('contoso-full', folder, { dataset: 'invoices', format: 'parquet' });
    expect({ via: night.summary.via, complete: isComplete(night.summary) }).toEqual({ via: 'delta', complete: true });
    await expectAsFresh(folder, 'invoices');
  }, 120_000);

  it('a range whose end moves on goes on from its token: the month grown and the months added written from the delta', async () => {
    const folder = outDir();
    await own.write('contracts', [contract('2024-02-20T10:00:00.000Z', { title: 'beyond the first range' })]);
    await new Promise((resolve) => setTimeout(resolve, (QUIET_SECONDS + 1) * 1000));
    const first = await runNight('contoso-full', folder, { format: 'parquet', range: { from: '2024-01-01', to: '2024-02-10' } });
    expect(isComplete(first.summary)).toBe(true);
    expect(readdirSync(folder).filter((name) => name.endsWith('.parquet')).sort()).toEqual(['contracts-2024-01.parquet', 'contracts-2024-02-01_2024-02-10.parquet']);
    const grown = { from: '2024-01-01', to: '2024-02-25' };
    await own.write('contracts', [contract('2024-02-05T10:00:00.000Z'), contract('2024-02-22T10:00:00.000Z')]);
    const night = await runNight('contoso-full', folder, { format: 'parquet', range: grown });
    expect({ via: night.summary.via, delta: night.summary.delta, deltas: night.deltas, pages: night.pages, statuses: statuses(night.summary) })
      .toEqual({ via: 'delta', delta: { start: 'token', merged: true }, deltas: 1, pages: 0, statuses: { '2024-01': 'unchanged', '2024-02-01_2024-02-25': 'merged' } });
    expect(readdirSync(folder).filter((name) => name.endsWith('.parquet')).sort()).toEqual(['contracts-2024-01.parquet', 'contracts-2024-02-01_2024-02-25.parquet']);
    await expectAsFresh(folder, 'contracts', grown);
    // A file written for other days says them in its footer, as a fresh pull's does.
    const asked = async (name: string) => JSON.parse((await readParquet(new Uint8Array(readFileSync(join(folder, name))))).metadata['summary.filters']!) as Doc;
    expect(await asked('contracts-2024-02-01_2024-02-25.parquet')).toMatchObject({ createdFrom: '2024-02-01', createdTo: '2024-02-25' });
    const added = await runNight('contoso-full', folder, { format: 'parquet' });
    expect({ via: added.summary.via, delta: added.summary.delta, deltas: added.deltas, pages: added.pages, statuses: statuses(added.summary) })
      .toEqual({ via: 'delta', delta: { start: 'token', merged: true }, deltas: 1, pages: 0, statuses: { '2024-01': 'unchanged', '2024-02': 'merged', '2024-03': 'merged', '2024-04': 'merged' } });
    expect(manifestOf(folder).delta).toEqual({ token: expect.stringMatching(/^d1\./), ...RANGE });
    await expectAsFresh(folder, 'contracts');
    expect(await asked('contracts-2024-03.parquet')).toMatchObject({ createdFrom: '2024-03-01', createdTo: '2024-03-31' });
  }, 120_000);
});

describe('a JSON Lines folder whose range ends on a day that moves on', () => {
  it('goes on from its token every night: the grown month written again, the months added from the delta, nothing pulled again', async () => {
    const dir = outDir();
    await own.write('contracts', [contract('2024-03-20T10:00:00.000Z', { title: 'written long before its day joins the range' })]);
    await new Promise((resolve) => setTimeout(resolve, (QUIET_SECONDS + 1) * 1000));
    const nights = [{ from: '2024-01-01', to: '2024-03-05' }, { from: '2024-01-01', to: '2024-03-06' }, { from: '2024-01-01', to: '2024-03-25' }, RANGE];
    const first = await runNight('contoso-full', dir, { range: nights[0] });
    expect(first.summary.delta).toEqual({ start: 'full', merged: true });
    await expectExact('contoso-full', dir, first, 'contracts', nights[0]);
    const labels = ['2024-03-01_2024-03-06', '2024-03-01_2024-03-25', '2024-03'];
    for (const [index, range] of nights.slice(1).entries()) {
      await own.write('contracts', [contract(`2024-03-0${index + 2}T10:00:00.000Z`), contract(`2024-0${index + 2}-26T10:00:00.000Z`)]);
      const night = await runNight('contoso-full', dir, { range });
      expect([range, night.summary.delta, night.deltas, night.pages]).toEqual([range, { start: 'token', merged: true }, expect.any(Number), 0]);
      expect(night.events.filter((event) => event.kind === 'delta-start')).toEqual([{ kind: 'delta-start', start: 'token', grownFrom: nights[index] }]);
      await expectExact('contoso-full', dir, night, 'contracts', range);
      expect([range, statuses(night.summary)[labels[index]!]]).toEqual([range, 'merged']);
      // One file a month, under the name of its days now: the file of the shorter days is gone.
      expect(readdirSync(dir).filter((name) => name.startsWith('contracts-2024-03')).sort()).toEqual([`contracts-${labels[index]}.jsonl`]);
      expect(manifestOf(dir).delta).toEqual({ token: expect.stringMatching(/^d1\./), ...range });
    }
    // A range made shorter cannot go on from the token: it starts from the folder's watermark.
    const back = await runNight('contoso-full', dir, { range: { from: '2024-01-01', to: '2024-03-31' } });
    expect([back.summary.delta, isComplete(back.summary)]).toEqual([{ start: 'since', merged: true }, true]);
  }, 180_000);

  it('a range that ends yesterday, run every night: one file for the month, its days grown in the manifest, written only when its records change', async () => {
    const dir = outDir();
    // June: no other test writes there.
    await own.write('contracts', [contract('2024-06-05T10:00:00.000Z')]);
    const night = (day: number, options: { dataset?: DatasetName; format?: 'jsonl' | 'parquet' } = {}) => runNight('contoso-full', dir, { ...options, range: { from: '2024-06-01', to: `2024-06-${String(day).padStart(2, '0')}` }, now: `2024-06-${String(day + 1).padStart(2, '0')}T02:00:00.000Z` });
    const first = await night(10);
    await expectExact('contoso-full', dir, first, 'contracts', { from: '2024-06-01', to: '2024-06-10' });
    const file = join(dir, 'contracts-2024-06.jsonl');
    const before = readFileSync(file);
    const quiet = await night(11);
    expect([quiet.summary.delta, statuses(quiet.summary)['2024-06-01_2024-06-11']]).toEqual([{ start: 'token', merged: true }, 'unchanged']);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(manifestOf(dir).windows.find((entry: Doc) => entry.from === '2024-06-01')).toMatchObject({ window: '2024-06-01_2024-06-11', to: '2024-06-11', files: [{ file: 'contracts-2024-06.jsonl' }] });
    await own.write('contracts', [contract('2024-06-12T10:00:00.000Z', { title: 'the day after' })]);
    const next = await night(12);
    expect([next.summary.delta, statuses(next.summary)['2024-06-01_2024-06-12']]).toEqual([{ start: 'token', merged: true }, 'merged']);
    await expectExact('contoso-full', dir, next, 'contracts', { from: '2024-06-01', to: '2024-06-12' });
    expect(readdirSync(dir).filter((name) => name.endsWith('.jsonl')).sort()).toEqual(['contracts-2024-06.jsonl']);
  }, 120_000);
});
