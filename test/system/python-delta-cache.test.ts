import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { clientSettings } from '../../dev/client-settings.js';
import { projectRoot } from '../../dev/project-root.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { pythonEnv } from '../support/python-env.js';
import { runChild } from '../support/run-child.js';
import { client, identities, stack } from '../support/stack.js';
import { buildAllowlist } from '../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../shared/access/datapoints.js';
import { CONTRACTS } from '../../shared/model/contracts.js';

// The Python loader's cache kept by the service's delta (issue 52, part 2), against a service of a
// tenant of the test's own whose records it changes through the real SDK between loads: after each
// night the loaded tables equal the store, for contracts (two callers: contoso-full, and
// contoso-basic, who sees no Drafts) and for invoices' lines, and every load after the first asks
// the delta since its token (the loader's log says so); a load killed as it writes its copy leaves
// no half copy to the next.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

const RANGE = ['2024-01-01', '2024-04-30'] as const;
let own: OwnTenant;
let python: string;
let cache: string;
/** The cache of a second caller, contoso-basic (no Drafts): its own view kept by its own deltas. */
let basicCache: string;
let serial = 0;

/** Loads `dataset` (`table`) of the range with the cache, printing its rows' id, title, status and line counts as JSON; the log on stderr. */
const LOAD = `
import json, logging, sys
import summary_client
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
dataset, table, cache = sys.argv[1], sys.argv[2], sys.argv[3]
rows = summary_client.load_as_arrow(dataset, "${RANGE[0]}", "${RANGE[1]}", table=None if table == "-" else table, cache=cache).to_pylist()
if dataset == "contracts":
    shown = [[row["contractId"], row["title"], row["status"]] for row in rows]
elif table == "invoice_tables":
    shown = [[row["invoiceId"], row["lineNumber"]] for row in rows]
else:
    shown = [[row["invoiceId"], row["status"]] for row in rows]
print(json.dumps(sorted(shown)))
`;

beforeAll(async () => {
  python = await pythonEnv('python-delta-cache', ['requests', 'pyarrow', 'pytest'], { local: [join(projectRoot(), 'python')] });
  own = await startOwnTenant(1, { clients: ['contoso-full', 'contoso-basic'], service: { exports: { triggers: false } } });
  cache = mkdtempSync(join(tmpdir(), 'delta-cache-'));
  basicCache = mkdtempSync(join(tmpdir(), 'delta-cache-basic-'));
  await own.remove('contracts', (await own.documents('contracts')).map((doc) => doc.id));
}, 900_000);

afterAll(async () => {
  await own?.stop();
  if (cache) rmSync(cache, { recursive: true, force: true });
  if (basicCache) rmSync(basicCache, { recursive: true, force: true });
});

function settingsOf(as = 'contoso-full'): Record<string, string> {
  return { ...clientSettings({ baseUrl: own.service.baseUrl, authUrl: own.service.idp!.url, identities, caFile: stack.caFile }, as), SUMMARY_CA_FILE: stack.caFile, HOME: process.env.HOME ?? '' };
}

async function load(dataset: 'contracts' | 'invoices', table = '-', as = 'contoso-full'): Promise<{ rows: unknown[]; log: string }> {
  const result = await runChild(python, ['-c', LOAD, dataset, table, as === 'contoso-full' ? cache : basicCache], settingsOf(as), 300_000);
  expect([result.code, result.code === 0 ? '' : result.stderr.slice(-3000)]).toEqual([0, '']);
  return { rows: JSON.parse(result.stdout) as unknown[], log: result.stderr };
}

/** What the store holds of the range for `as` (Drafts as its roles say): the rows a load must give. */
async function truth(dataset: 'contracts' | 'invoices', lines = false, as = 'contoso-full'): Promise<unknown[]> {
  const drafts = buildAllowlist(DATAPOINTS).view(CONTRACTS, client(as).roles).drafts;
  const documents = (await own.documents(dataset)).filter((doc) => doc.createdDate >= RANGE[0] && doc.createdDate < '2024-05' && (dataset !== 'contracts' || drafts || doc.status !== 'Draft'));
  if (dataset === 'contracts') return documents.map((doc) => [doc.contractId, doc.title, doc.status]).sort(byText);
  if (lines) return documents.flatMap((doc) => (doc.lines as Doc[]).map((line) => [doc.invoiceId, line.lineNumber])).sort(byText);
  return documents.map((doc) => [doc.invoiceId, doc.status]).sort(byText);
}

function byText(a: unknown, b: unknown): number {
  const [x, y] = [JSON.stringify(a), JSON.stringify(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

function sorted(rows: readonly unknown[]): unknown[] {
  return [...rows].sort(byText);
}

describe('the Python loader with cache= kept by the delta', () => {
  it('equals the store after each night of writes, asking only what changed since its token', async () => {
    const template = (await startOwnTenantTemplate())!;
    const contract = (createdDate: string, overrides: Doc = {}): Doc => {
      const id = `CON-PYD-${String(++serial).padStart(4, '0')}`;
      return { ...template, id, contractId: id, title: `contract ${id}`, status: 'Published', createdDate, updatedDate: createdDate, ...overrides };
    };
    const made = ['01', '02', '03', '04'].flatMap((month) => [contract(`2024-${month}-05T10:00:00.000Z`), contract(`2024-${month}-06T10:00:00.000Z`, { status: 'Draft' })]);
    await own.write('contracts', made);
    const first = await load('contracts');
    expect(first.log).toContain('kept by the delta: the whole range');
    expect(sorted(first.rows)).toEqual(await truth('contracts'));
    expect(sorted((await load('contracts', '-', 'contoso-basic')).rows)).toEqual(await truth('contracts', false, 'contoso-basic'));

    // A night: a rename without updatedDate, a record moved to another month, one deleted, one created, a Draft published.
    await own.write('contracts', [
      { ...made[0], title: 'renamed, updatedDate left alone' },
      { ...made[2], createdDate: '2024-04-20T00:00:00.000Z' },
      { ...made[3], status: 'Published' },
      contract('2024-03-30T23:00:00.000Z'),
    ]);
    await own.remove('contracts', [made[4]!.id]);
    const second = await load('contracts');
    expect(second.log).toMatch(/kept by the delta: \d+ rows changed or removed/);
    expect(sorted(second.rows)).toEqual(await truth('contracts'));
    // The caller without Drafts: the Draft published comes in, the hidden Drafts never do.
    const basic = await load('contracts', '-', 'contoso-basic');
    expect(basic.log).toMatch(/kept by the delta: \d+ rows changed or removed/);
    expect(sorted(basic.rows)).toEqual(await truth('contracts', false, 'contoso-basic'));

    // A record moved out of the range, and nothing else.
    await own.write('contracts', [{ ...made[6], createdDate: '2023-12-31T00:00:00.000Z' }]);
    const third = await load('contracts');
    expect(third.log).toMatch(/kept by the delta: \d+ rows changed or removed/);
    expect(sorted(third.rows)).toEqual(await truth('contracts'));
    // A Published record turned Draft leaves the basic caller's table only.
    await own.write('contracts', [{ ...made[0], status: 'Draft' }]);
    expect(sorted((await load('contracts', '-', 'contoso-basic')).rows)).toEqual(await truth('contracts', false, 'contoso-basic'));
    expect(sorted((await load('contracts')).rows)).toEqual(await truth('contracts'));
  }, 300_000);

  it('keeps an invoice\'s lines with it: lines added, an invoice deleted, for both tables', async () => {
    const seed = (await own.documents('invoices')).find((doc) => Array.isArray(doc.lines) && doc.lines.length > 0)!;
    await own.remove('invoices', (await own.documents('invoices')).map((doc) => doc.id));
    const lines = (count: number) => Array.from({ length: count }, (_, index) => ({ ...seed.lines[0], lineNumber: index + 1, description: `line ${index + 1}` }));
    const made = ['01', '02', '03'].map((month, index) => ({ ...seed, id: `INV-PYD-${index}`, invoiceId: `INV-PYD-${index}`, contractId: null, contractWorkspaceID: null, contractStatus: null, status: 'Approved', createdDate: `2024-${month}-12T00:00:00.000Z`, lines: lines(index + 1) }));
    await own.write('invoices', made);
    expect(sorted((await load('invoices', 'invoice_tables')).rows)).toEqual(await truth('invoices', true));
    await own.write('invoices', [{ ...made[0], lines: lines(4) }]);
    await own.remove('invoices', [made[2]!.id]);
    const night = await load('invoices', 'invoice_tables');
    expect(night.log).toMatch(/kept by the delta: \d+ rows changed or removed/);
    expect(sorted(night.rows)).toEqual(await truth('invoices', true));
    // The invoices' own table, from the same copy: one delta keeps both.
    const invoices = await load('invoices');
    expect(sorted(invoices.rows)).toEqual(await truth('invoices'));

    // A load killed as it writes its copy, one table of the two written: the next load takes no
    // half copy (the files are checked against the copy's record of them) and equals the store.
    await own.write('invoices', [{ ...made[1], status: 'Paid', lines: lines(5) }]);
    const killed = await runChild(python, ['-c', KILL_AFTER_FIRST_TABLE + LOAD, 'invoices', 'invoice_tables', cache], settingsOf(), 300_000);
    expect(killed.signal).toBe('SIGKILL');
    const after = await load('invoices', 'invoice_tables');
    expect(after.log).toContain('kept by the delta: the whole range');
    expect(sorted(after.rows)).toEqual(await truth('invoices', true));
    expect(sorted((await load('invoices')).rows)).toEqual(await truth('invoices'));
  }, 300_000);
});

/** Run before LOAD: the process kills itself (SIGKILL) once the first table of its copy is in place. */
const KILL_AFTER_FIRST_TABLE = `
import os, signal
_replace = os.replace
def _replace_then_die(source, target):
    _replace(source, target)
    if str(target).endswith(".delta"):
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = _replace_then_die
`;

/** A contract of the tenant's seed to make the test's contracts from (the seed's own were removed). */
async function startOwnTenantTemplate(): Promise<Doc | undefined> {
  const { generateTenantDocuments } = await import('../../dev/seed-data.js');
  return generateTenantDocuments('pulls', 3).contracts?.[0] as Doc | undefined;
}
