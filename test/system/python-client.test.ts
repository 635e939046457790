import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { clientSettings } from '../../dev/client-settings.js';
import { projectRoot } from '../../dev/project-root.js';
import { pythonEnv } from '../support/python-env.js';
import { leakedSecrets, runChild, type ChildResult } from '../support/run-child.js';
import { identities, stack } from '../support/stack.js';
import { storedYear } from '../support/stored-year.js';
import { PYTHON_LOADER } from '../../dev/walkthrough.js';

// The Python loader (python/, summary-data-client), installed from the folder into two virtual
// environments: one with requests, pyarrow, pandas, polars and pytest from the local index and no
// MSAL (the plain token request), one made by Debian's python3 that sees its python3-msal (the MSAL
// path). Its pytest suites run there: against a scripted fake server (retries, fail-fast, halving,
// the safety rules) and against this local stack (rows and exact decimals equal to the store).
const root = projectRoot();
const SYSTEM_PYTHON = process.env.SYSTEM_PYTHON ?? '/usr/bin/python3';
let plain: string;
let withMsal: string;

beforeAll(async () => {
  const local = [join(root, 'python')];
  plain = await pythonEnv('python-client', ['requests', 'pyarrow', 'pandas', 'polars', 'pytest'], { local });
  withMsal = await pythonEnv('python-client-msal', ['pyarrow', 'pandas', 'polars', 'pytest'], { python: SYSTEM_PYTHON, systemSitePackages: true, local });
}, 900_000);


/** pytest's tally: passed, failed, skipped, errors (none of the last three may be there). */
function tally(result: ChildResult): Record<string, number> {
  const line = result.stdout.trim().split('\n').at(-1) ?? '';
  return Object.fromEntries([...line.matchAll(/(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)/g)].map((match) => [match[2]!.replace(/s$/, ''), Number(match[1])]));
}

/** How many tests pytest collects from `tests` (each must then pass: none skipped, none failed). */
async function collected(python: string, tests: readonly string[]): Promise<number> {
  const result = await runChild(python, ['-m', 'pytest', '--collect-only', '-q', '-p', 'no:cacheprovider', ...tests.map((test) => join('python', 'tests', test))], { HOME: process.env.HOME ?? '' });
  const count = Number(/^(\d+) tests? collected/m.exec(result.stdout)?.[1] ?? Number.NaN);
  expect(count).toBeGreaterThan(5);
  return count;
}

async function pytest(python: string, tests: readonly string[], tokenPath: string): Promise<ChildResult> {
  const settings = { ...clientSettings({ ...stack, identities }), SUMMARY_CA_FILE: stack.caFile };
  const env = { ...settings, HOME: process.env.HOME ?? '', SUMMARY_TEST_EXPECTED: JSON.stringify(await storedYear()), SUMMARY_TEST_TOKEN_PATH: tokenPath };
  const result = await runChild(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...tests.map((test) => join('python', 'tests', test))], env, 300_000);
  expect(leakedSecrets(result.stdout + result.stderr, settings)).toEqual([]);
  return result;
}

describe('the Python loader (python/)', () => {
  it('passes its pytest suites, against the fake server and this stack, with the plain token request', async () => {
    const suites = ['test_fake_server.py', 'test_local_stack.py', 'test_month_windows.py', 'test_arrow_memory.py'];
    const result = await pytest(plain, suites, 'plain');
    expect([tally(result), result.code, result.code === 0 ? '' : result.stdout.slice(-4000)]).toEqual([{ passed: await collected(plain, suites) }, 0, '']);
  }, 300_000);

  it('runs the walkthrough\'s three lines (README): the year\'s contracts counted by status', async () => {
    const settings = { ...clientSettings({ ...stack, identities }), SUMMARY_CA_FILE: stack.caFile, HOME: process.env.HOME ?? '' };
    const result = await runChild(plain, ['-c', PYTHON_LOADER.join('\n')], settings, 120_000);
    expect([result.code, result.stderr]).toEqual([0, '']);
    const counts = result.stdout.split('\n').map((line) => /^(\w+)\s+(\d+)$/.exec(line.trim())).filter((match) => match !== null);
    expect(counts.length).toBeGreaterThanOrEqual(2);
    expect(counts.reduce((total, match) => total + Number(match![2]), 0)).toBe((await storedYear()).contracts);
  }, 120_000);

  it('passes against this stack through Debian\'s MSAL (a virtual environment that sees the system packages)', async () => {
    const probe = await runChild(withMsal, ['-c', 'import msal, summary_client._token as t; print(t.msal is not None)'], {});
    expect(probe.stdout.trim()).toBe('True');
    const result = await pytest(withMsal, ['test_local_stack.py'], 'msal');
    expect([tally(result), result.code, result.code === 0 ? '' : result.stdout.slice(-4000)]).toEqual([{ passed: await collected(withMsal, ['test_local_stack.py']) }, 0, '']);
  }, 300_000);
});
