import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parquetMetadata } from 'hyparquet';
import { isComplete, pull, readSettings, summaryApi, type PullOptions, type PullSummary } from '../../client/src/index.js';
import type { Via } from '../../client/src/pull-summary.js';
import { clientSettings } from '../../dev/client-settings.js';
import { buildAllowlist } from '../../shared/access/allowlist.js';
import { DATAPOINTS, type RoleDatapoints } from '../../shared/access/datapoints.js';
import { CONTRACTS } from '../../shared/model/contracts.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';
import { withDuckDb } from '../support/duckdb.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { client, identities, stack } from '../support/stack.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { randomContractNights } from '../support/random-nights.js';
import { tempDirs } from '../support/temp-dirs.js';

// docs/consuming.md's promise, night after night: after every run that exits 0, the folder read by
// a reader with no options equals what the store holds for the caller: the same records, their
// latest values, one schema, no duplicates. Between nights the data's writer changes records through
// the real SDK; the service is restarted (same address) when the roles-to-datapoints configuration
// changes. The client's clock is the pull's `now`, moved a night at a time; the machine's is untouched.
// The service's clock runs past the quiet period (result-etag.ts), so a check right after a write
// is not "moving" (test/integration/result-validators.test.ts covers that side).
//
// Run through both paths (exact-folders.test.ts: window by window; exact-folders-job.test.ts:
// through export jobs, the service's own Azurite and workers): the folder's promise is the same.

/** The nights of a folder, its Parquet pulls `via` a job or window by window. */
export function exactFolders(via: Via): void {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Doc = Record<string, any>;

  const outDir = tempDirs('exact');
  /** Window by window, a pulled window is confirmed by its ETag (one more request); a job's window is not. */
  const confirms = via === 'windows' ? 1 : 0;
  const DAY_MS = 86_400_000;
  const AHEAD_MS = (QUIET_SECONDS + 3) * 1000;
  /** A night that restarts the service (and, through jobs, its Azurite) first: ~9 s on an idle machine. */
  const RESTART_NIGHT_MS = 90_000;
  const RANGE = { from: '2024-01-01', to: '2024-04-30' };
  const CLIENTS = ['contoso-full', 'contoso-basic'];
  /** Financials grant no contract fields: the columns contoso-full sees shrink. */
  const WITHOUT_AMOUNTS: Readonly<Record<string, RoleDatapoints>> = {
    ...DATAPOINTS,
    'Data.Read.Financials': { ...DATAPOINTS['Data.Read.Financials']!, fields: { ...DATAPOINTS['Data.Read.Financials']!.fields, contracts: [] } },
  };

  let own: OwnTenant;
  let service: TestService;
  let port = 0;
  let datapoints: Readonly<Record<string, RoleDatapoints>> = DATAPOINTS;
  /** The roles the identity provider gives contoso-full now (a role taken away and granted again). */
  let fullRoles: readonly string[] = client('contoso-full').roles;
  let serial = 0;
  let night = Date.parse('2026-11-20T02:00:00Z');

  async function serve(config: Readonly<Record<string, RoleDatapoints>>, roles: readonly string[] = client('contoso-full').roles): Promise<void> {
    await service?.stop();
    datapoints = config;
    fullRoles = roles;
    service = await startTestService({
      ...(via === 'job' ? { exports: {} } : {}),
      port, datapoints, roles: { 'contoso-full': roles }, clock: () => Date.now() + AHEAD_MS,
      settings: { CLIENT_REGISTRY: JSON.stringify(Object.fromEntries(CLIENTS.map((name) => [client(name).clientId, own.tenant]))) },
    });
    port = Number(new URL(service.baseUrl).port);
  }

  function contract(createdDate: string, overrides: Doc = {}): Doc {
    const id = `CON-NIGHT-${String(++serial).padStart(5, '0')}`;
    return { ...template, id, contractId: id, status: 'Published', title: `contract ${id}`, createdDate, updatedDate: createdDate, ...overrides };
  }
  let template: Doc;

  beforeAll(async () => {
    // Its own service runs past the quiet period (serve below).
    own = await startOwnTenant(1, { clients: CLIENTS, secondPerWrite: true });
    template = (await own.documents('contracts'))[0]!;
    await own.remove('contracts', [template.id]);
    const months = ['01', '02', '03', '04'];
    await own.write('contracts', months.flatMap((month) => [1, 2, 3].map((day) => contract(`2024-${month}-0${day}T10:00:00.000Z`, day === 3 ? { status: 'Draft' } : {}))));
    await serve(DATAPOINTS);
  });

  afterAll(async () => {
    await service?.stop();
    await own?.stop();
  });

  /**
   * JSON Lines go window by window here (delta-folders.test.ts keeps them by the delta): asked for
   * where the service offers deltas (with export storage), by default where it does not (the
   * client finds no delta operation and goes window by window).
   */
  const jsonlVia = via === 'job' ? { via: 'windows' as const } : {};

  /** One night's run of the pull client for `clientName`, the client's clock at `night`. */
  async function runNight(clientName: string, dir: string, format: 'parquet' | 'jsonl'): Promise<{ summary: PullSummary; exports: number; checks: number }> {
    const settings = readSettings(clientSettings({ baseUrl: service.baseUrl, authUrl: service.idp!.url, identities, caFile: stack.caFile }, clientName));
    const options: PullOptions = { dataset: 'contracts', ...RANGE, by: 'created', format, filters: {}, out: dir, source: { service: settings.baseUrl, client: settings.client }, now: () => night, pageSize: 2, ...(format === 'parquet' ? { via } : jsonlVia) };
    const before = service.logs.length;
    const summary = await pull(summaryApi(settings), options);
    expect(summary.via).toBe(format === 'parquet' ? via : 'windows');
    // What the service read: a window's export (200) or check (412), asked for or run by a job's worker.
    const lines = service.logs.slice(before).map((line) => JSON.parse(line) as Doc).filter((line) => line.operation === 'contracts.summary' || line.operation === 'contracts.exports.window');
    // A job checks the windows it was sent ETags for at its kick-off (no record read): its unchanged windows.
    const kickOffs = service.logs.slice(before).map((line) => JSON.parse(line) as Doc).filter((line) => line.operation === 'contracts.exports');
    expect(kickOffs.map((line) => line.storeDocuments ?? 0)).toEqual(kickOffs.map(() => 0));
    return { summary, exports: lines.filter((line) => line.status === 200).length, checks: lines.filter((line) => line.status === 412).length + (summary.via === 'job' ? summary.unchanged : 0) };
  }

  /** What the store holds for the caller in the range: id → title and updatedDate, and the columns it sees. */
  async function truth(clientName: string): Promise<{ records: Record<string, [string, string]>; columns: string[] }> {
    const view = buildAllowlist(datapoints).view(CONTRACTS, clientName === 'contoso-full' ? fullRoles : client(clientName).roles);
    const documents = (await own.documents('contracts')).filter((doc) => doc.createdDate >= RANGE.from && doc.createdDate < '2024-05' && (view.drafts || doc.status !== 'Draft'));
    return { records: Object.fromEntries(documents.map((doc) => [doc.contractId, [doc.title, doc.updatedDate]])), columns: view.fields.map((field) => field.name) };
  }

  /** The folder as DuckDB reads it with no options (one schema or an error), and how many schemas its files have. */
  async function readFolder(dir: string, format: 'parquet' | 'jsonl'): Promise<{ records: Record<string, [string, string]>; columns: string[]; rows: number; schemas: number }> {
    const files = readdirSync(dir).filter((name) => name.endsWith(`.${format}`));
    // A Parquet file's schema from its footer; a JSON line's, its members in order.
    const schemas = new Set(files.flatMap((name) => (format === 'parquet'
      ? [JSON.stringify(parquetMetadata(new Uint8Array(readFileSync(join(dir, name))).buffer).schema.map((element) => [element.name, element.type, element.converted_type]))]
      : readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean).map((line) => Object.keys(JSON.parse(line) as Doc).join()))));
    const rows = files.length === 0 ? [] : await withDuckDb((query) => query(format === 'parquet' ? `SELECT * FROM read_parquet('${dir}/*.parquet')` : `SELECT * FROM read_json_auto('${dir}/*.jsonl')`));
    const records = Object.fromEntries(rows.map((row) => [String(row.contractId), [String(row.title), new Date(row.updatedDate as string).toISOString()] as [string, string]]));
    return { records, columns: rows[0] ? Object.keys(rows[0]) : [], rows: rows.length, schemas: schemas.size };
  }

  async function expectExact(clientName: string, dir: string, format: 'parquet' | 'jsonl', summary: PullSummary): Promise<void> {
    expect({ complete: isComplete(summary), moving: summary.moving, failed: summary.failed.map((entry) => entry.error) }).toEqual({ complete: true, moving: [], failed: [] });
    const want = await truth(clientName);
    const got = await readFolder(dir, format);
    expect(got.records).toEqual(want.records);
    expect(got.rows).toBe(Object.keys(want.records).length);
    if (got.rows > 0) expect(got.columns).toEqual(want.columns);
    expect(got.schemas).toBeLessThanOrEqual(1);
  }

  const folders = { full: outDir(), basic: outDir(), jsonl: outDir() };
  const runs = [['contoso-full', folders.full, 'parquet'], ['contoso-basic', folders.basic, 'parquet'], ['contoso-basic', folders.jsonl, 'jsonl']] as const;

  async function allNights(): Promise<{ exports: number; checks: number }[]> {
    night += DAY_MS;
    const results = [];
    for (const [name, dir, format] of runs) {
      const { summary, exports, checks } = await runNight(name, dir, format);
      await expectExact(name, dir, format, summary);
      results.push({ exports, checks });
    }
    return results;
  }

  describe('a folder pulled night after night', () => {
    it('night 1: the first pull equals the store for each caller', async () => {
      const results = await allNights();
      // Four months, each exported once (and, window by window, confirmed once by its ETag).
      expect(results[0]).toEqual({ exports: 4, checks: 4 * confirms });
    });

    it('night 2: creates in settled months, back-dated and late records, updates without updatedDate, deletes, Drafts, malformed values', async () => {
      const documents = await own.documents('contracts');
      const mine = (month: string) => documents.filter((doc) => doc.createdDate.startsWith(`2024-${month}`) && doc.status !== 'Draft');
      const draft = documents.find((doc) => doc.status === 'Draft')!;
      const first = (month: string) => mine(month)[0]!;
      await own.write('contracts', [
        contract('2024-01-20T00:00:00.000Z'), // back-dated into the oldest month
        contract('2024-04-29T23:59:00.000Z', { updatedDate: '2024-05-01T00:00:00.000Z' }), // late: lands after its day
        { ...first('02'), title: 'renamed, updatedDate left alone' },
        { ...draft, status: 'Published', title: 'no longer a Draft' },
        { ...first('03'), status: 'Draft' }, // leaves the view of a client without Drafts
        { ...first('04'), expirationDate: 'not a date' }, // malformed: answered as null
      ]);
      await own.remove('contracts', [first('01').id]);
      await allNights();
    });

    it('night 3: nothing changed: one check per window, nothing exported', async () => {
      const results = await allNights();
      for (const result of results) expect(result).toEqual({ exports: 0, checks: 4 });
    });

    it('night 4: one change in one settled month (the malformed value fixed) exports exactly that window', async () => {
      const record = (await own.documents('contracts')).find((doc) => doc.expirationDate === 'not a date')!;
      await own.write('contracts', [{ ...record, title: 'fixed on night 4', expirationDate: '2027-01-31' }]);
      const results = await allNights();
      // Parquet: one export of April; JSON Lines (pages of 2): April's pages, the rest checked.
      expect(results[0]).toEqual({ exports: 1, checks: 3 + confirms });
      expect(results[1]).toEqual({ exports: 1, checks: 3 + confirms });
      expect(results[2]!.checks).toBe(3 + 1);
    });

    it('night 5: the roles-to-datapoints configuration narrows a view: that caller\'s folder is rewritten into one schema', async () => {
      await serve(WITHOUT_AMOUNTS);
      const [name, dir, format] = runs[0];
      night += DAY_MS;
      const { summary, exports } = await runNight(name, dir, format);
      expect(summary.rewritten).toBe('schema');
      // Window by window, January's check answered the new columns, then every window again, into
      // hidden files first; a job's manifest names the new columns, and its windows are all exported.
      expect(exports).toBe(confirms + 4);
      await expectExact(name, dir, format, summary);
      expect((await readFolder(dir, format)).columns).not.toContain('contractAmount');
      // The basic caller's columns did not change: nothing to pull.
      expect((await runNight('contoso-basic', folders.basic, 'parquet')).exports).toBe(0);
    }, RESTART_NIGHT_MS);

    it('night 6: the view widens again and the column comes back in every file', async () => {
      await serve(DATAPOINTS);
      const results = await allNights();
      expect(results[0]!.exports).toBe(confirms + 4);
      expect(results[1]!.exports).toBe(0);
      expect((await readFolder(folders.full, 'parquet')).columns).toContain('contractAmount');
    }, RESTART_NIGHT_MS);

    it('night 7: a role taken away from the client (the identity provider restarted) rewrites its folder', async () => {
      await serve(DATAPOINTS, client('contoso-full').roles.filter((role) => role !== 'Data.Read.Financials'));
      const taken = await allNights();
      expect(taken[0]!.exports).toBe(confirms + 4);
      expect((await readFolder(folders.full, 'parquet')).columns).not.toContain('contractAmount');
    }, RESTART_NIGHT_MS);

    it('night 8: the role granted again rewrites the folder once more', async () => {
      await serve(DATAPOINTS);
      const granted = await allNights();
      expect(granted[0]!.exports).toBe(confirms + 4);
      expect((await readFolder(folders.full, 'parquet')).columns).toContain('contractAmount');
    }, RESTART_NIGHT_MS);
  });

  describe('a folder under random writes', () => {
    it('equals the store after every night, whatever was written', async () => {
      const dir = outDir();
      await randomContractNights(own, {
        contract, kinds: ['rename', 'delete', 'draft', 'publish', 'move'], numRuns: 6,
        check: async () => {
          night += DAY_MS;
          const { summary } = await runNight('contoso-basic', dir, 'parquet');
          await expectExact('contoso-basic', dir, 'parquet', summary);
        },
      });
    }, 240_000);
  });

  describe('an invoices folder night after night', () => {
    it('keeps both tables with their invoice: a line changed and an invoice deleted in settled months, a night with nothing changed', async () => {
      const dir = outDir();
      const invoice = (await own.documents('invoices'))[0]!;
      const lines = (count: number) => Array.from({ length: count }, (_, index) => ({ ...invoice.lines[0], lineNumber: index + 1, description: `line ${index + 1}` }));
      const made = ['01', '02', '03'].map((month, index) => ({ ...invoice, id: `INV-NIGHT-${index}`, invoiceId: `INV-NIGHT-${index}`, contractId: null, contractWorkspaceID: null, contractStatus: null, createdDate: `2024-${month}-10T00:00:00.000Z`, lines: lines(index + 1) }));
      await own.write('invoices', made);
      const settings = readSettings(clientSettings({ baseUrl: service.baseUrl, authUrl: service.idp!.url, identities, caFile: stack.caFile }, 'contoso-full'));
      const run = async () => {
        night += DAY_MS;
        const before = service.logs.length;
        const summary = await pull(summaryApi(settings), { dataset: 'invoices', ...RANGE, by: 'created', format: 'parquet', filters: {}, out: dir, source: { service: settings.baseUrl, client: settings.client }, now: () => night, via });
        expect({ complete: isComplete(summary), moving: summary.moving }).toEqual({ complete: true, moving: [] });
        const exports = service.logs.slice(before).map((line) => JSON.parse(line) as Doc).filter((line) => ['invoices.summary', 'invoices.exports.window'].includes(line.operation) && line.status === 200).length;
        const stored = (await own.documents('invoices')).filter((doc) => doc.createdDate < '2024-05');
        const folder = await withDuckDb(async (query) => ({
          invoices: (await query(`SELECT invoiceId FROM read_parquet('${dir}/invoices/*.parquet') ORDER BY 1`)).map((row) => String(row.invoiceId)),
          lines: (await query(`SELECT invoiceId, count(*)::INTEGER AS n FROM read_parquet('${dir}/invoice_tables/*.parquet') GROUP BY 1 ORDER BY 1`)).map((row) => [String(row.invoiceId), Number(row.n)]),
        }));
        expect(folder).toEqual({
          invoices: stored.map((doc) => String(doc.invoiceId)).sort(),
          lines: stored.filter((doc) => doc.lines.length > 0).map((doc) => [String(doc.invoiceId), doc.lines.length]).sort(([a], [b]) => String(a).localeCompare(String(b))),
        });
        return exports;
      };
      expect(await run()).toBe(4);
      await own.write('invoices', [{ ...made[1], lines: lines(5) }]);
      await own.remove('invoices', [made[2]!.id]);
      expect(await run()).toBe(2);
      expect(await run()).toBe(0);
    });
  });
}
