import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../dev/project-root.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { runChild } from '../support/run-child.js';
import { stack } from '../support/stack.js';
import { storeRecords } from '../support/store-records.js';
import { tempDirs } from '../support/temp-dirs.js';
import { withDuckDb } from '../support/duckdb.js';

// `npm run record` (dev/put-record.ts), the README's way to try a change: it writes through the
// real SDK into the store a pull reads, and the next nightly pull brings the change.
const ROOT = projectRoot();
const CLI = join(ROOT, 'client', 'bin', 'summary-client.js');
const outDir = tempDirs('record');
let own: OwnTenant;

beforeAll(async () => {
  own = await startOwnTenant(30);
});

afterAll(async () => {
  await own?.stop();
});

function record(args: readonly string[]) {
  return runChild(process.execPath, [join(ROOT, 'dist', 'dev', 'put-record.js'), ...args, '--tenant', own.tenant], { COSMOS_ENDPOINT: stack.cosmosEndpoint });
}

describe('npm run record', () => {
  it('changes a record and adds one; the next pull of the folder brings both', async () => {
    const contract = (await own.documents('contracts')).sort((a, b) => String(a.createdDate).localeCompare(String(b.createdDate)))[0]!;
    const month = String(contract.createdDate).slice(0, 7);
    const dir = outDir();
    const pull = () => runChild(process.execPath, [CLI, 'pull', 'contracts', '--from', month, '--to', month, '--out', dir], own.settings, 120_000);
    expect((await pull()).code).toBe(0);

    const changed = await record(['contracts', JSON.stringify({ contractId: contract.contractId, title: 'Renamed by npm run record' })]);
    expect(changed.code).toBe(0);
    expect(changed.stdout).toMatch(new RegExp(`^changed contracts ${String(contract.contractId)} of ${own.tenant} `));
    const added = await record(['contracts', JSON.stringify({ contractId: 'CON-RECORD-NEW', createdDate: `${month}-15T09:00:00.000Z` })]);
    expect(added.stdout).toMatch(/^added contracts CON-RECORD-NEW /);

    // The store's _ts has whole seconds: wait past the service's quiet period before the next pull.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    const second = await pull();
    expect(second.code).toBe(0);
    const rows = await withDuckDb((query) => query(`SELECT contractId, title FROM '${dir}/*.parquet' WHERE contractId IN ('${String(contract.contractId)}', 'CON-RECORD-NEW') ORDER BY contractId`));
    expect(rows.map((row) => row.contractId)).toEqual(['CON-RECORD-NEW', contract.contractId].sort());
    expect(rows.find((row) => row.contractId === contract.contractId)!.title).toBe('Renamed by npm run record');
  }, 180_000);

  it('documents an example that changes a seeded record, not one that adds a new one', async () => {
    // The examples that rename a record (docs/store.md also shows one that adds a new one).
    const examples = ['docs/store.md', 'docs/local-stack.md', 'dev/put-record.ts'].flatMap((file) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(/npm run record -- contracts '(\{[^']+"title":"Renamed"\})'/g)].map((match) => JSON.parse(match[1]!) as { contractId: string }));
    expect(examples.length).toBeGreaterThanOrEqual(3);
    const seeded = new Set((await storeRecords('contracts', 'contoso')).map((record) => String(record.contractId)));
    expect(examples.filter((example) => !seeded.has(example.contractId))).toEqual([]);
  });

  it('refuses what it cannot write, saying how to call it', async () => {
    expect((await record(['contracts', '{"title":"no id"}'])).stderr).toMatch(/must name the record by contractId/);
    const usage = await record(['nothing', '{}']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^usage: npm run record -- <contracts\|invoices> '<JSON>'/);
  });
});
