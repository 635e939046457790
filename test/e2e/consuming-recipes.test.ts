import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { clientSettings } from '../../dev/client-settings.js';
import { projectRoot } from '../../dev/project-root.js';
import { identities, stack } from '../support/stack.js';
import { storeRecords } from '../support/store-records.js';
import { withDuckDb } from '../support/duckdb.js';
import { runChild } from '../support/run-child.js';
import { tempDirs } from '../support/temp-dirs.js';

// docs/consuming.md's DuckDB recipe, its SQL block as written, over a year the pull client pulled
// from the local stack into `pulls/` (a temporary folder here), checked against the store.
const root = projectRoot();
const pulls = tempDirs('pulls')();

function duckDbBlock(): string[] {
  const doc = readFileSync(join(root, 'docs', 'consuming.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## DuckDB'), doc.indexOf('\n## ', doc.indexOf('## DuckDB') + 1));
  const block = /```sql\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/consuming.md has no ```sql block under ## DuckDB');
  return block.split(';').map((statement) => statement.trim()).filter(Boolean).map((statement) => statement.replaceAll("'pulls/", `'${pulls}/`));
}

beforeAll(async () => {
  const env = clientSettings({ ...stack, identities });
  for (const dataset of ['contracts', 'invoices']) {
    const result = await runChild(process.execPath, [join(root, 'client/bin/summary-client.js'), 'pull', dataset, '--from', '2025-01-01', '--to', '2025-12-31', '--out', join(pulls, dataset)], env, 120_000);
    if (result.code !== 0) throw new Error(`the pull of ${dataset} failed: ${result.stderr}`);
  }
}, 120_000);

describe('docs/consuming.md', () => {
  it('DuckDB: the recipe runs as written and its answers match the store, amounts exact', async () => {
    const statements = duckDbBlock();
    expect(statements).toHaveLength(5);
    const [perMonth, perInvoice] = await withDuckDb(async (query) => {
      for (const statement of statements.slice(0, 3)) await query(statement);
      return [await query(statements[3]!), await query(statements[4]!)];
    });
    const contracts = (await storeRecords('contracts', 'contoso')).filter((record) => String(record.createdDate).startsWith('2025-'));
    expect(perMonth!.length).toBe(12);
    expect(perMonth!.reduce((total, row) => total + Number(row.contracts), 0)).toBe(contracts.length);
    const cents = (value: unknown) => Math.round(Number(value) * 100);
    const storedCents = contracts.reduce((total, record) => total + cents(record.contractAmount ?? 0), 0);
    expect(perMonth!.reduce((total, row) => total + cents(row.amount ?? 0), 0)).toBe(storedCents);

    const invoices = (await storeRecords('invoices', 'contoso')).filter((record) => String(record.createdDate).startsWith('2025-'));
    expect(perInvoice!.map((row) => row.invoiceId)).toEqual(invoices.map((record) => String(record.invoiceId)).sort());
    const byId = new Map(invoices.map((record) => [String(record.invoiceId), record]));
    for (const row of perInvoice!) expect(Number(row.lines)).toBe((byId.get(String(row.invoiceId))!.lines as unknown[]).length);
  });
});
