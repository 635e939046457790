import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../dev/project-root.js';
import { EXPORT_JOB_INTRO, PYTHON_LOADER, walkthrough } from '../../dev/walkthrough.js';
import { readParquet } from '../support/parquet.js';
import { identities, stack } from '../support/stack.js';
import { runChild } from '../support/run-child.js';
import { storeRecords } from '../support/store-records.js';
import { tempDirs } from '../support/temp-dirs.js';

// What `npm start` prints is what the README shows, and it works: its client part, pasted into a
// shell in the project folder, pulls a year of contracts and invoices from the running stack.
const root = projectRoot();
const out = tempDirs('walkthrough')();

/** The lines of the printed walkthrough a user pastes: the exports, the client commands and the query. */
function clientLines(text: string): string[] {
  return text.split('\n').filter((line) => line.startsWith('export ') || line.startsWith('npx summary-client ') || line.startsWith('npm run sql '));
}

describe('the walkthrough', () => {
  it('is in the README as npm start prints it on the default ports', () => {
    const printed = walkthrough({ baseUrl: 'https://127.0.0.1:7071/api', authUrl: 'https://127.0.0.1:7072', identities, caFile: join(root, '.local', 'ca.pem') });
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const lines = clientLines(printed);
    expect(lines.length).toBeGreaterThanOrEqual(11);
    // The CA file is printed absolute (a pasted line works from any folder): the README shows where it is.
    const caLine = `export SUMMARY_CA_FILE=${join(root, '.local', 'ca.pem')}`;
    expect(lines).toContain(caLine);
    for (const line of lines.filter((candidate) => candidate !== caLine)) expect(readme).toContain(line);
    expect(readme).toContain('export SUMMARY_CA_FILE=/path/to/this/checkout/.local/ca.pem');
    expect(readme).not.toMatch(/^export NODE_EXTRA_CA_CERTS/m);
    // The Python loader's three lines, beside the CLI (test/system/python-client.test.ts runs them).
    expect(printed).toContain(PYTHON_LOADER.join('\n'));
    expect(readme).toContain(['```python', ...PYTHON_LOADER, '```'].join('\n'));
    expect(readme).toContain(EXPORT_JOB_INTRO);
  });

  it('runs an export job with its curl lines: December\'s file, fetched by its URL alone, holds December\'s contracts', async () => {
    const printed = walkthrough({ ...stack, identities });
    const curl = printed.slice(printed.indexOf('TOKEN=$('), printed.indexOf('\nCtrl-C'));
    expect(curl).toContain(EXPORT_JOB_INTRO);
    const result = await runChild('bash', ['-euo', 'pipefail', '-c', `cd ${out}\n${curl}`], { HOME: process.env.HOME ?? '' }, 120_000);
    expect([result.code, result.stderr.includes('curl:')]).toEqual([0, false]);
    const file = await readParquet(readFileSync(join(out, 'pulls', 'contracts-2025-12-job.parquet')));
    const stored = (await storeRecords('contracts', 'contoso')).filter((record) => String(record.createdDate).startsWith('2025-12'));
    expect(file.numRows).toBe(stored.length);
    expect(file.rows.map((row) => row.contractId).sort()).toEqual(stored.map((record) => record.contractId).sort());
  });

  it('pulls a year of contracts and of invoices and queries them when its client lines run in a shell', async () => {
    const printed = walkthrough({ ...stack, identities });
    const script = clientLines(printed).map((line) => line.replaceAll('--out pulls/', `--out ${out}/`).replaceAll("'pulls/", `'${out}/`)).join('\n');
    const result = await runChild('bash', ['-euo', 'pipefail', '-c', script], { HOME: process.env.HOME ?? '' }, 120_000);
    expect(result.stderr).toMatch(/^complete: 12 windows \(12 pulled, 0 unchanged\).*contracts$/m);
    expect(result.stderr).toMatch(/^complete: 12 windows \(12 pulled, 0 unchanged\).*invoices$/m);
    expect(result.code).toBe(0);
    expect(readdirSync(join(out, 'contracts'))).toContain('contracts-2025-06.parquet');
    expect(readdirSync(join(out, 'invoices', 'invoice_tables'))).toContain('invoice_tables-2025-06.parquet');
    // Step 3's table: a count per status, adding up to the year's contracts.
    const rows = result.stdout.split('\n').filter((line) => /^\w+\s+\d+$/.test(line));
    const counted = rows.reduce((total, line) => total + Number(line.split(/\s+/)[1]), 0);
    const stored = (await storeRecords('contracts', 'contoso')).filter((record) => String(record.createdDate).startsWith('2025-'));
    expect(result.stdout).toMatch(/^status\s+contracts$/m);
    expect(counted).toBe(stored.length);
  });
});
