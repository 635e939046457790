import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { parse as shellWords } from 'shell-quote';
import { ROOT } from '../infra/bicep-tree.js';

interface Step { uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, string>; name?: string }
interface Job {
  needs?: string | string[];
  if?: string;
  environment?: string;
  permissions?: Record<string, string>;
  env?: Record<string, string>;
  strategy?: { matrix?: Record<string, unknown[]> };
  steps: Step[];
}
interface Workflow { on: unknown; permissions?: Record<string, string>; env?: Record<string, string>; jobs: Record<string, Job> }

const source = readFileSync(join(ROOT, '.github/workflows/deploy-uat.yml'), 'utf8');
const workflow = parse(source) as Workflow;
const jobs = workflow.jobs;
const deployDoc = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');

const runOf = (job: string) => jobs[job]!.steps.map((step) => step.run ?? '').join('\n');

/** Words that start a shell construct rather than a command. */
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'for', 'in', 'do', 'done', 'while', '!']);

/**
 * The commands a job's scripts run, in order, as the shell splits them into words (shell-quote:
 * quotes removed, variables kept as `$NAME`; shell-quote, because a regular expression over the
 * text would restate it rather than read it): one per line (continuations joined) and per `;`,
 * `&&`, `|` or `$(`, without leading environment assignments and shell keywords.
 */
function commandsOf(job: string): string[][] {
  const commands: string[][] = [];
  for (const step of jobs[job]!.steps) {
    for (const line of (step.run ?? '').replace(/\\\n/g, ' ').split('\n')) {
      let words: string[] = [];
      // Bash's own expansions (`${KEYS//,/ }`) read as the variable they expand.
      for (const token of shellWords(line.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}/g, '$$$1'), (name) => `$${name}`)) {
        // A glob is a word of its command (`infra/modules/*.bicep`), an operator ends the command.
        if (typeof token === 'object' && 'op' in token && token.op === 'glob') {
          words.push(token.pattern);
          continue;
        }
        if (typeof token !== 'string') {
          if (words.length > 0) commands.push(words);
          words = [];
          if ('comment' in token) break;
          continue;
        }
        if (words.length === 0 && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(token) || KEYWORDS.has(token))) continue;
        words.push(token);
      }
      if (words.length > 0) commands.push(words);
    }
  }
  return commands;
}

/** The commands of a job that start with these words. */
const invoked = (job: string, ...prefix: string[]) => commandsOf(job).filter((words) => prefix.every((word, i) => words[i] === word));
/** The value a command gives an option (`--name value`). */
const optionOf = (words: readonly string[], name: string) => (words.includes(name) ? words[words.indexOf(name) + 1] : undefined);
/** Where a job first runs a command starting with these words (-1: never). */
const positionOf = (job: string, ...prefix: string[]) => commandsOf(job).findIndex((words) => prefix.every((word, i) => words[i] === word));
const needsOf = (job: string) => [jobs[job]!.needs ?? []].flat();
const used = (context: 'secrets' | 'vars') => [...new Set([...source.matchAll(new RegExp(`\\$\\{\\{\\s*${context}\\.([A-Z0-9_]+)\\s*\\}\\}`, 'g'))].map((match) => match[1]!))].sort();
/** Names in the first column of the docs/deploy.md table whose heading mentions the word. */
function documented(heading: string): string[] {
  const section = deployDoc.split(/^### /m).find((part) => part.toLowerCase().startsWith(heading));
  return [...(section ?? '').matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]!).sort();
}

/** Secret name → the environments its docs/deploy.md row names (empty when scoped to the repository). */
function secretScopes(): Record<string, string[]> {
  const section = deployDoc.split(/^### /m).find((part) => part.toLowerCase().startsWith('secrets')) ?? '';
  return Object.fromEntries([...section.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]*) \|/gm)]
    .map((match) => [match[1]!, [...match[2]!.matchAll(/`([a-z-]+)`/g)].map((environment) => environment[1]!)]));
}

describe('the deployment workflow', () => {
  it('chains build → what-if → approved infrastructure → package to uat → smoke test → approved swap', () => {
    expect(Object.keys(jobs)).toEqual(['build', 'validate-infra', 'deploy-infra', 'deploy-app', 'smoke-test', 'promote']);
    expect(needsOf('validate-infra')).toEqual(['build']);
    expect(needsOf('deploy-infra')).toEqual(['validate-infra']);
    expect(needsOf('deploy-app')).toEqual(['build', 'deploy-infra']);
    expect(needsOf('smoke-test')).toEqual(expect.arrayContaining(['deploy-app']));
    expect(needsOf('promote')).toEqual(expect.arrayContaining(['smoke-test']));
    expect(Object.fromEntries(Object.entries(jobs).map(([name, job]) => [name, job.environment]))).toEqual({
      build: undefined, 'validate-infra': 'infra-preview', 'deploy-infra': 'production', 'deploy-app': 'uat', 'smoke-test': 'uat', promote: 'production',
    });
  });

  it('changes production (infrastructure, the swap) only in jobs of the approved production environment', () => {
    const touchesProduction = (job: Job) => /az deployment group create|slot swap/.test(job.steps.map((step) => step.run ?? '').join('\n'));
    const jobsTouching = Object.entries(jobs).filter(([, job]) => touchesProduction(job)).map(([name]) => name);
    expect(jobsTouching).toEqual(['deploy-infra', 'promote']);
    for (const name of jobsTouching) expect([name, jobs[name]!.environment]).toEqual([name, 'production']);
    // The uat job only sets the uat slot's package.
    expect(runOf('deploy-app')).toMatch(/az functionapp config appsettings set[\s\S]*--slot "\$SLOT_NAME"/);
  });

  it('runs npm (install scripts) only in the build job, which cannot mint an Azure token, and hands the package on', () => {
    for (const [name, job] of Object.entries(jobs)) {
      if (job.permissions?.['id-token'] === 'write') expect([name, /\bnpm (ci|install|i|test|run)\b/.test(job.steps.map((step) => step.run ?? '').join('\n'))]).toEqual([name, false]);
    }
    expect(jobs.build!.permissions).toBeUndefined();
    expect(workflow.permissions).toEqual({ contents: 'read' });
    const upload = jobs.build!.steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'));
    const download = jobs['deploy-app']!.steps.find((step) => step.uses?.startsWith('actions/download-artifact@'));
    expect(upload?.with?.name).toBe('package');
    expect(download?.with?.name).toBe('package');
  });

  it('pins every action to a full commit SHA, with its tag in a comment', () => {
    const uses = [...source.matchAll(/^\s*-?\s*uses:\s*(\S+)(.*)$/gm)];
    expect(uses.length).toBeGreaterThan(8);
    for (const [, action, rest] of uses) expect([action, rest]).toEqual([expect.stringMatching(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/), expect.stringMatching(/^ # v\d+(\.\d+)*$/)]);
  });

  it('deploys from main only, whatever triggered the run', () => {
    const signingIn = Object.entries(jobs).filter(([, job]) => job.permissions?.['id-token'] === 'write');
    expect(signingIn.length).toBe(5);
    for (const [name, job] of signingIn) expect([name, job.if]).toEqual([name, expect.stringMatching(/^github\.ref == 'refs\/heads\/main'( && !inputs\.infrastructure_only)?$/)]);
  });

  it('can deploy the infrastructure only (a new subscription\'s first run): the code jobs stand aside, the infrastructure jobs never do', () => {
    const dispatch = (workflow.on as { workflow_dispatch: { inputs: Record<string, { type: string; default: unknown }> } }).workflow_dispatch;
    expect(dispatch.inputs.infrastructure_only).toMatchObject({ type: 'boolean', default: false });
    const skipped = Object.entries(jobs).filter(([, job]) => job.if?.includes('infrastructure_only')).map(([name]) => name);
    expect(skipped).toEqual(['deploy-app', 'smoke-test', 'promote']);
  });

  it('runs the README test command once, on Node 22', () => {
    expect(jobs.build!.strategy).toBeUndefined();
    expect(jobs.build!.steps.find((step) => step.uses?.startsWith('actions/setup-node@'))?.with?.['node-version']).toBe(22);
    expect(invoked('build', 'npm', 'test')).toEqual([['npm', 'test']]);
    expect(positionOf('build', 'npm', 'ci')).toBeGreaterThanOrEqual(0);
    expect(positionOf('build', 'npm', 'ci')).toBeLessThan(positionOf('build', 'npm', 'test'));
  });

  it('builds, lints and what-ifs the Bicep before deploying it', () => {
    expect(invoked('validate-infra', 'az', 'bicep', 'build').map((words) => optionOf(words, '--file'))).toEqual(['infra/main.bicep']);
    expect(invoked('validate-infra', 'az', 'bicep', 'build-params').map((words) => optionOf(words, '--file'))).toEqual(['infra/prod.bicepparam']);
    expect(invoked('validate-infra', 'az', 'bicep', 'lint')).toHaveLength(1);
    const whatIf = positionOf('validate-infra', 'az', 'deployment', 'group', 'what-if');
    expect(whatIf).toBeGreaterThan(positionOf('validate-infra', 'az', 'bicep', 'build-params'));
    expect(whatIf).toBeGreaterThan(positionOf('validate-infra', 'az', 'bicep', 'lint'));
    expect(invoked('deploy-infra', 'az', 'deployment', 'group', 'create')).toHaveLength(1);
  });

  it('deploys the package to the uat slot, smoke-tests the gateway, and swaps in the production environment', () => {
    const slotted = invoked('deploy-app', 'az', 'functionapp').map((words) => optionOf(words, '--slot'));
    expect(slotted.length).toBeGreaterThan(0);
    expect(new Set(slotted)).toEqual(new Set(['$SLOT_NAME']));
    expect(invoked('smoke-test', 'node', '.github/scripts/smoke-test.mjs')).toHaveLength(1);
    expect(existsSync(join(ROOT, '.github/scripts/smoke-test.mjs'))).toBe(true);
    expect(invoked('promote', 'az', 'functionapp', 'deployment', 'slot', 'swap')).toHaveLength(1);
    expect(jobs.promote!.environment).toBe('production');
  });

  it('signs in to Azure with OIDC only: id-token permission, federated client id, no client secret or creds', () => {
    expect(workflow.permissions).toEqual({ contents: 'read' });
    for (const [name, job] of Object.entries(jobs)) {
      const logins = job.steps.filter((step) => step.uses?.startsWith('azure/login@'));
      if (logins.length === 0) {
        expect([name, job.permissions?.['id-token']]).toEqual([name, undefined]);
        continue;
      }
      expect([name, job.permissions]).toEqual([name, { contents: 'read', 'id-token': 'write' }]);
      for (const login of logins) expect(Object.keys(login.with ?? {}).sort()).toEqual(['client-id', 'subscription-id', 'tenant-id']);
    }
  });

  it('never expands a secret inside a script: secrets reach steps through env only', () => {
    const scripts = Object.values(jobs).flatMap((job) => job.steps.map((step) => step.run ?? ''));
    expect(scripts.filter((script) => /\$\{\{\s*secrets\./.test(script))).toEqual([]);
  });

  it('swaps only after checking the uat slot runs the package this run uploaded to the package container', () => {
    const promote = runOf('promote');
    const uploaded = runOf('deploy-app').match(/url="(\$PACKAGE_CONTAINER_URL\/summary-\$\{GITHUB_SHA\}-\$\{GITHUB_RUN_ID\}-)/)?.[1];
    expect(uploaded).toBeDefined();
    expect(promote).toContain(`expected="${uploaded}"`);
    expect(promote.indexOf('WEBSITE_RUN_FROM_PACKAGE')).toBeGreaterThan(-1);
    expect(promote.indexOf('WEBSITE_RUN_FROM_PACKAGE')).toBeLessThan(promote.indexOf('slot swap'));
    expect(jobs.promote!.env?.PACKAGE_CONTAINER_URL).toBe('${{ needs.deploy-infra.outputs.packageContainerUrl }}');
  });

  it('runs that check as bash with Azure CLI stood in by a script: it passes this run\'s package and stops any other URL', () => {
    const check = jobs.promote!.steps.find((step) => step.run?.includes('WEBSITE_RUN_FROM_PACKAGE'))!.run!;
    const bin = mkdtempSync(join(tmpdir(), 'fake-az-'));
    // Azure cannot exist here: this stand-in answers the one query the step makes with FAKE_SETTING.
    // It answers the package query with FAKE_SETTING, the uat slot's other settings with FAKE_UAT, production's with FAKE_PRODUCTION.
    writeFileSync(join(bin, 'az'), [
      '#!/bin/sh',
      'case "$*" in',
      `  *"].value | [0]"*) printf '%s\\n' "$FAKE_SETTING" ;;`,
      `  *--slot*) printf '%s\\n' "$FAKE_UAT" ;;`,
      `  *) printf '%s\\n' "$FAKE_PRODUCTION" ;;`,
      'esac',
      '',
    ].join('\n'), { mode: 0o755 });
    const container = 'https://stsummary.blob.core.windows.net/deployments';
    const same = 'AUTH_APP_ID\tapp\nMAX_PAGE_SIZE\t1000';
    const run = (setting: string, uat = same, production = same) => spawnSync('bash', ['-e', '-c', check], {
      encoding: 'utf8',
      env: { PATH: `${bin}:${process.env.PATH}`, FAKE_SETTING: setting, FAKE_UAT: uat, FAKE_PRODUCTION: production, PACKAGE_CONTAINER_URL: container, GITHUB_SHA: 'abc123', GITHUB_RUN_ID: '42', AZURE_RESOURCE_GROUP: 'rg', FUNCTION_APP_NAME: 'func', SLOT_NAME: 'uat' },
    });
    try {
      expect(run(`${container}/summary-abc123-42-2.zip`).status).toBe(0);
      // A setting that would move into production with the swap, or a changed one: refused, named, its value not printed.
      const added = run(`${container}/summary-abc123-42-2.zip`, `${same}\nNODE_OPTIONS\t--import=data:text/javascript,evil`);
      expect([added.status, added.stdout.includes('NODE_OPTIONS'), added.stdout.includes('evil')]).toEqual([1, true, false]);
      const changed = run(`${container}/summary-abc123-42-2.zip`, 'AUTH_APP_ID\tother\nMAX_PAGE_SIZE\t1000');
      expect([changed.status, changed.stdout.includes('AUTH_APP_ID'), changed.stdout.includes('other')]).toEqual([1, true, false]);
      const sas = run('https://attacker.example/p.zip?sv=2024&sig=SECRETSIG');
      expect([sas.status, sas.stdout.includes('SECRETSIG')]).toEqual([1, false]);
      for (const other of [`${container}/summary-abc123-41-1.zip`, `${container}/summary-def456-42-1.zip`, 'https://attacker.example/summary-abc123-42-1.zip', `${container}/summary-abc123-42-1.zip?sv=x`, `${container}/summary-abc123-42-1/../../other/x.zip`, `${container}/summary-abc123-42-.zip`, '']) {
        const result = run(other);
        expect([other, result.status]).toEqual([other, 1]);
        expect(result.stdout).toContain('not swapping');
      }
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('masks every backend API key and the fetched subscription key before using them', () => {
    const [first] = jobs['deploy-infra']!.steps.filter((step) => step.run !== undefined);
    expect(first?.run).toMatch(/::add-mask::\$key/);
    const smoke = runOf('smoke-test');
    expect(smoke.indexOf('::add-mask::$SMOKE_SUBSCRIPTION_KEY')).toBeGreaterThan(0);
    expect(smoke.indexOf('::add-mask::$SMOKE_SUBSCRIPTION_KEY')).toBeLessThan(smoke.indexOf('node .github/scripts/smoke-test.mjs'));
  });

  it('hands each secret only to jobs of the environments docs/deploy.md scopes it to: production keys to production jobs', () => {
    const scopes = secretScopes();
    expect(scopes.SUMMARY_BACKEND_API_KEYS).toEqual(['production']);
    expect(scopes.SUMMARY_UAT_BACKEND_API_KEYS).toEqual(['production']);
    for (const [name, job] of Object.entries(jobs)) {
      const text = JSON.stringify(job);
      for (const [secret, environments] of Object.entries(scopes)) {
        if (environments.length === 0 || !new RegExp(`secrets\\.${secret}\\b`).test(text)) continue;
        expect([name, secret, environments.includes(job.environment ?? '')]).toEqual([name, secret, true]);
      }
    }
    // The what-if still reads the parameters, with placeholders that are no key at all.
    expect(jobs['validate-infra']!.env?.SUMMARY_BACKEND_API_KEYS).toMatch(/placeholder/);
  });

  it('uses exactly the secrets and variables docs/deploy.md documents', () => {
    expect(used('secrets').length).toBeGreaterThan(3);
    expect(used('secrets')).toEqual(documented('secrets'));
    expect(used('vars')).toEqual(documented('variables'));
  });

  it('feeds prod.bicepparam every environment variable it reads', () => {
    const parameters = readFileSync(join(ROOT, 'infra/prod.bicepparam'), 'utf8');
    const read = [...parameters.matchAll(/readEnvironmentVariable\('([A-Z0-9_]+)'/g)].map((match) => match[1]!);
    expect(read.length).toBeGreaterThan(3);
    for (const job of ['validate-infra', 'deploy-infra']) {
      expect(read.filter((name) => !(name in (jobs[job]!.env ?? {})))).toEqual([]);
    }
  });
});
