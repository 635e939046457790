import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ROOT } from '../infra/bicep-tree.js';

// The pipeline's smoke test (.github/scripts/smoke-test.mjs) run against the local stack, which
// has the same contract as Azure: an Entra-shaped token endpoint, a gateway that checks and strips
// the subscription key, the compiled functions. The stack runs in its own process (from dist/, as
// `npm start` runs it), with a small seed.

interface Identities {
  tenantId: string;
  appId: string;
  subscriptionKeys: string[];
  apiKeys: string[];
  clients: { name: string; clientId: string; clientSecret: string }[];
}

const identities = JSON.parse(readFileSync(join(ROOT, 'dev/identities.json'), 'utf8')) as Identities;
const client = identities.clients.find((candidate) => candidate.name === 'contoso-full')!;
const script = join(ROOT, '.github/scripts/smoke-test.mjs');

const launcher = `
  const { startLocalStack } = await import('./dist/dev/local-stack.js');
  const stack = await startLocalStack({ port: 0, cosmosPort: 0, authPort: 0, azuritePorts: { blob: 0, queue: 0, table: 0 }, seedRecords: 40, settings: { LOG_REQUESTS: 'false' }, logRequest: () => {} });
  console.log(JSON.stringify({ baseUrl: stack.baseUrl, authUrl: stack.authUrl, caFile: stack.caFile }));
  process.stdin.resume();
  process.stdin.on('end', async () => { await stack.stop(); process.exit(0); });
`;

let stack: ChildProcess;
let urls: { baseUrl: string; authUrl: string; caFile: string };

beforeAll(async () => {
  stack = spawn(process.execPath, ['--input-type=module', '-e', launcher], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let errors = '';
  stack.stderr!.on('data', (chunk: Buffer) => { errors += chunk.toString(); });
  const lines = createInterface({ input: stack.stdout! });
  urls = await new Promise((resolveUrls, reject) => {
    stack.once('exit', (code) => reject(new Error(`the local stack exited with ${code}: ${errors}`)));
    lines.on('line', (line) => {
      if (line.startsWith('{"baseUrl"')) resolveUrls(JSON.parse(line) as typeof urls);
    });
  });
});

afterAll(async () => {
  if (stack.exitCode === null) {
    const exited = new Promise((resolveExit) => stack.once('exit', resolveExit));
    stack.stdin!.end();
    await exited;
  }
});

async function runSmokeTest(overrides: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    // The local identity provider's certificate comes from the local CA, which the pipeline's
    // runner would not know; in Azure the authority is Entra's public one.
    NODE_EXTRA_CA_CERTS: urls.caFile,
    SMOKE_BASE_URL: urls.baseUrl,
    SMOKE_AUTHORITY_HOST: urls.authUrl,
    SMOKE_TENANT_ID: identities.tenantId,
    SMOKE_API_APP_ID: identities.appId,
    SMOKE_CLIENT_ID: client.clientId,
    SMOKE_CLIENT_SECRET: client.clientSecret,
    SMOKE_SUBSCRIPTION_KEY: identities.subscriptionKeys[0]!,
    SMOKE_API_KEY: identities.apiKeys[0]!,
    SMOKE_FILTERS: JSON.stringify({ createdFrom: '2025-03-01', createdTo: '2025-03-31' }),
    ...overrides,
  };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script], { env, cwd: ROOT });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

function secretsIn(output: string): string[] {
  const secrets = [client.clientSecret, ...identities.subscriptionKeys, ...identities.apiKeys];
  return [...secrets.filter((secret) => output.includes(secret)), ...(output.match(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g) ?? [])];
}

describe('the pipeline smoke test script', () => {
  it('passes against a working gateway: token, refused call, one JSON call, one Parquet call', async () => {
    const { code, output } = await runSmokeTest();
    expect(output).toContain('smoke test passed');
    expect(output.match(/^ok {2}/gm)).toHaveLength(4);
    expect(code).toBe(0);
  });

  it('prints no secret and no token, and masks the token in GitHub Actions', async () => {
    const { output } = await runSmokeTest({ GITHUB_ACTIONS: 'true' });
    const masked = output.split('\n').filter((line) => line.startsWith('::add-mask::'));
    expect(masked).toHaveLength(1);
    expect(secretsIn(output.split('\n').filter((line) => !line.startsWith('::add-mask::')).join('\n'))).toEqual([]);
  });

  it('fails, without echoing the key, when the backend API key is wrong', async () => {
    const { code, output } = await runSmokeTest({ SMOKE_API_KEY: 'wrong-api-key-000000000000' });
    expect(code).toBe(1);
    expect(output).toMatch(/FAIL JSON: .*status 401.*code INVALID_API_KEY/);
    expect(output).not.toContain('wrong-api-key-000000000000');
    expect(secretsIn(output)).toEqual([]);
  });

  it('fails on a wrong client secret without printing it', async () => {
    const { code, output } = await runSmokeTest({ SMOKE_CLIENT_SECRET: 'not-the-secret-1234' });
    expect(code).toBe(1);
    expect(output).toContain('FAIL access token by client credentials');
    expect(output).not.toContain('not-the-secret-1234');
  });

  it('refuses to start without its settings', async () => {
    const { code, output } = await runSmokeTest({ SMOKE_API_KEY: '' });
    expect(code).toBe(2);
    expect(output).toContain('missing settings SMOKE_API_KEY');
  });
});
