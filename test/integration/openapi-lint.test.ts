import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { OPENAPI_FILE } from '../../openapi/build-openapi.js';

// The document as the tools integration engineers and API Management import it with see it:
// Spectral (`spectral:oas`) and Redocly CLI (`recommended`), both fail the test on any error.
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = (path: string) => join(root, 'node_modules', path);
const work = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
const ruleset = join(work, '.spectral.yaml');
writeFileSync(ruleset, 'extends: ["spectral:oas"]\n');

afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Finding { rule: string; severity: 'error' | 'warning' | 'other'; where: string }

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // Exit codes say "found errors"; the JSON on stdout says which, so both outcomes are read.
    execFile(process.execPath, args, { cwd: work, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' } }, (error, stdout) => {
      if (stdout.trim().startsWith('[') || stdout.trim().startsWith('{')) resolve(stdout);
      else reject(error ?? new Error(`no JSON output: ${stdout}`));
    });
  });
}

async function spectral(file: string): Promise<Finding[]> {
  const out = JSON.parse(await run([bin('@stoplight/spectral-cli/dist/index.js'), 'lint', file, '--ruleset', ruleset, '--format', 'json', '--quiet'])) as { code: string; severity: number; path: string[] }[];
  return out.map((item) => ({ rule: item.code, severity: item.severity === 0 ? 'error' : item.severity === 1 ? 'warning' : 'other', where: item.path.join('.') }));
}

async function redocly(file: string): Promise<Finding[]> {
  const out = JSON.parse(await run([bin('@redocly/cli/bin/cli.js'), 'lint', file, '--format', 'json', '--extends', 'recommended'])) as { problems: { ruleId: string; severity: string; location: { pointer: string }[] }[] };
  return out.problems.map((item) => ({ rule: item.ruleId, severity: item.severity === 'error' ? 'error' : item.severity === 'warn' ? 'warning' : 'other', where: item.location[0]?.pointer ?? '' }));
}

const errors = (findings: Finding[]) => findings.filter((finding) => finding.severity === 'error');

describe(`${OPENAPI_FILE} under the linters`, () => {
  const document = join(root, OPENAPI_FILE);

  it('has no Spectral error (spectral:oas)', async () => {
    expect(errors(await spectral(document))).toEqual([]);
  });

  it('has no Redocly error (recommended)', async () => {
    expect(errors(await redocly(document))).toEqual([]);
  });

  it('would fail on a broken document: an unencoded placeholder in tokenUrl, a response without description', async () => {
    const broken = JSON.parse(readFileSync(document, 'utf8')) as Record<string, any>;
    broken.components.securitySchemes.accessToken.flows.clientCredentials.tokenUrl = 'https://login.example/<TENANT_ID>/token';
    const operation = broken.paths['/v1/contracts/summary'].post;
    delete operation.responses['200'].description;
    const file = join(work, 'broken.json');
    writeFileSync(file, JSON.stringify(broken));
    expect(errors(await spectral(file)).length).toBeGreaterThan(0);
    expect(errors(await redocly(file)).length).toBeGreaterThan(0);
  });
});
