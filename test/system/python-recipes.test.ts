import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { clientSettings } from '../../dev/client-settings.js';
import { projectRoot } from '../../dev/project-root.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { pythonEnv } from '../support/python-env.js';
import { runChild } from '../support/run-child.js';
import { identities, stack } from '../support/stack.js';
import { storedYear } from '../support/stored-year.js';
import { tempDirs } from '../support/temp-dirs.js';

// docs/consuming.md's pyarrow, pandas and polars recipes, their blocks as written, in a virtual
// environment with those libraries, over a year the pull client pulled from the local stack into
// `pulls/` (a temporary folder here), rows and exact amounts checked against the store. A hidden
// `.partial` left by a killed run sits in the folders: no recipe may read it.
const root = projectRoot();
const CLI = join(root, 'client', 'bin', 'summary-client.js');
const newDir = tempDirs('recipes');
const pulls = newDir();
let python: string;
let own: OwnTenant;

/** The ```python block of a section of docs/consuming.md. */
function recipe(heading: string): string {
  const doc = readFileSync(join(root, 'docs', 'consuming.md'), 'utf8');
  const start = doc.indexOf(`\n## ${heading}\n`);
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const block = /```python\n([\s\S]*?)```/.exec(section)?.[1];
  if (start < 0 || !block) throw new Error(`docs/consuming.md has no python block under ## ${heading}`);
  return block;
}

async function runPython(script: string, folder: string): Promise<Record<string, unknown>> {
  const result = await runChild(python, ['-c', script.replaceAll('"pulls/', `"${folder}/`)], { HOME: process.env.HOME ?? '' }, 120_000);
  if (result.code !== 0) throw new Error(`the recipe failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

beforeAll(async () => {
  python = await pythonEnv('python-recipes', ['pyarrow', 'pandas', 'polars', 'fsspec', 'aiohttp']);
  const env = clientSettings({ ...stack, identities });
  for (const dataset of ['contracts', 'invoices']) {
    const result = await runChild(process.execPath, [CLI, 'pull', dataset, '--from', '2025-01-01', '--to', '2025-12-31', '--out', join(pulls, dataset)], env, 120_000);
    if (result.code !== 0) throw new Error(`the pull of ${dataset} failed: ${result.stderr}`);
  }
  // What a run killed in the middle of writing leaves: complete Parquet, hidden.
  copyFileSync(join(pulls, 'contracts', 'contracts-2025-02.parquet'), join(pulls, 'contracts', '.contracts-2025-02.parquet.partial'));
  copyFileSync(join(pulls, 'invoices', 'invoices', 'invoices-2025-02.parquet'), join(pulls, 'invoices', 'invoices', '.invoices-2025-02.parquet.partial'));
  // The service's clock past the quiet period: a pull right after a write is confirmed at once.
  own = await startOwnTenant(40, { service: { clock: () => Date.now() + (QUIET_SECONDS + 3) * 1000 } });
}, 600_000);

afterAll(async () => {
  await own?.stop();
});


describe('docs/consuming.md in Python', () => {
  it('pyarrow: reads each folder as one table, the decimals exact', async () => {
    const check = '\nimport json\nprint(json.dumps({"contracts": contracts.num_rows, "amount": str(total), "invoices": invoices.num_rows, "lines": lines.num_rows}))\n';
    expect(await runPython(recipe('pyarrow') + check, pulls)).toEqual(await storedYear());
  });

  it('pandas: reads each folder as one frame, the decimals exact', async () => {
    const check = '\nimport json\nprint(json.dumps({"contracts": len(contracts), "amount": str(contracts["contractAmount"].sum()), "invoices": len(invoices), "lines": len(lines), "per_invoice": len(per_invoice)}))\n';
    const answer = await runPython(recipe('pandas') + check, pulls);
    const want = await storedYear();
    expect(answer).toEqual({ ...want, per_invoice: want.invoices });
  });

  it('polars: reads each folder as one frame, the decimals exact', async () => {
    const check = '\nimport json\nprint(json.dumps({"contracts": contracts.height, "amount": str(contracts["contractAmount"].sum()), "invoices": invoices.select(pl.len()).collect().item(), "lines": lines.select(pl.len()).collect().item(), "per_invoice": per_invoice.height}))\n';
    const answer = await runPython(recipe('polars') + check, pulls);
    const want = await storedYear();
    expect(answer).toEqual({ ...want, per_invoice: want.invoices });
  });

  it('reads a job\'s files by its manifest\'s URLs alone (docs/recipes/read_manifest.py): pandas, polars, pyarrow through fsspec', async () => {
    const env = clientSettings({ ...stack, identities });
    const job = await runChild(process.execPath, ['docs/recipes/azure-sdk-poller.mjs', 'contracts', '2025-01-01', '2025-12-31'], { ...env, NODE_EXTRA_CA_CERTS: stack.caFile }, 120_000);
    expect([job.code, job.stderr]).toEqual([0, '']);
    const manifest = join(newDir(), 'job.json');
    writeFileSync(manifest, job.stdout);
    const want = await storedYear();
    for (const reader of ['pandas', 'polars', 'pyarrow']) {
      // Only storage is asked, with no credential of the service's: none is in the environment.
      const read = await runChild(python, ['docs/recipes/read_manifest.py', manifest, 'contracts', reader], { HOME: process.env.HOME ?? '', SSL_CERT_FILE: stack.caFile }, 120_000);
      expect([reader, read.code, read.stderr]).toEqual([reader, 0, '']);
      expect([reader, JSON.parse(read.stdout)]).toEqual([reader, { rows: want.contracts, total: want.amount }]);
    }
  });

  it('pandas: a folder pulled --by updated holds each record once, as last updated, read as it is', async () => {
    const dir = newDir();
    const args = [CLI, 'pull', 'contracts', '--by', 'updated', '--from', '2025-01', '--to', new Date().toISOString().slice(0, 7), '--out', join(dir, 'contracts-by-updated')];
    expect((await runChild(process.execPath, args, own.settings, 120_000)).code).toBe(0);
    const changed = (await own.documents('contracts')).find((document) => String(document.updatedDate) < '2026-01')!;
    await own.write('contracts', [{ ...changed, title: 'Renamed by the writer', updatedDate: new Date().toISOString() }]);
    expect((await runChild(process.execPath, args, own.settings, 120_000)).code).toBe(0);

    const check = `\nimport json\nprint(json.dumps({"rows": len(latest), "ids": int(latest["contractId"].nunique()), "title": str(latest.loc[latest["contractId"] == ${JSON.stringify(changed.contractId)}, "title"].iloc[0])}))\n`;
    const stored = (await own.documents('contracts')).length;
    expect(await runPython(recipe('Change capture') + check, dir)).toEqual({ rows: stored, ids: stored, title: 'Renamed by the writer' });
  });
});
