import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { accessToken, identities, stack } from '../support/stack.js';
import { readParquet } from '../support/parquet.js';

// The deploy artifact serves: its bundle (package/, built by `npm run package`, which `npm test`
// runs) loaded in a fresh Node process with the stack's settings, behind the local gateway and
// host, answers JSON and Parquet from the embedded store — its lazily loaded chunks (the Cosmos
// SDK, the Parquet writer) included.
const root = new URL('../../', import.meta.url);
const bundle = new URL('package/dist/functions/summary-operations.js', root);
let child: ChildProcess;
let baseUrl: string;

beforeAll(async () => {
  expect(existsSync(bundle)).toBe(true);
  const launcher = `
    const { startService } = await import(${JSON.stringify(new URL('dist/dev/start-service.js', root).href)});
    const { registrations } = await import(${JSON.stringify(bundle.href)});
    const service = await startService({ registrations, subscriptionKeys: ${JSON.stringify(identities.subscriptionKeys)}, port: 0, logRequest: () => {} });
    console.log(JSON.stringify({ baseUrl: service.baseUrl }));
  `;
  // The artifact in Azure trusts Entra's public CA; here the local identity provider's CA, as a caller would.
  child = spawn(process.execPath, ['--input-type=module', '-e', launcher], { env: { ...process.env, LOG_REQUESTS: 'false', NODE_EXTRA_CA_CERTS: stack.caFile }, stdio: ['ignore', 'pipe', 'pipe'] });
  baseUrl = await new Promise<string>((resolve, reject) => {
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => { errors += chunk.toString(); });
    child.once('exit', (code) => reject(new Error(`the artifact's service exited with ${code}: ${errors}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('{"baseUrl"')) resolve((JSON.parse(line) as { baseUrl: string }).baseUrl);
    });
  });
});

afterAll(() => {
  child?.kill();
});

async function call(accept: string): Promise<Response> {
  return fetch(`${baseUrl}/v1/contracts/summary`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await accessToken('contoso-full')}`, 'ocp-apim-subscription-key': identities.subscriptionKeys[0]!, 'x-api-key': identities.apiKeys[0]!,
      'content-type': 'application/json', accept,
    },
    body: JSON.stringify({ createdFrom: '2025-03-01', createdTo: '2025-03-31' }),
  });
}

describe('the deploy artifact', () => {
  it('answers a JSON page', async () => {
    const response = await call('application/json');
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
  });

  it('answers a Parquet export whose created_by names the commit the artifact was built from', async () => {
    const response = await call('application/vnd.apache.parquet');
    expect(response.status).toBe(200);
    const file = await readParquet(new Uint8Array(await response.arrayBuffer()));
    expect(file.numRows).toBeGreaterThan(0);
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root }).toString().trim();
    expect(file.createdBy).toMatch(new RegExp(` \\(build ${commit}\\)$`));
  });
});
