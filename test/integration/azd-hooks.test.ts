/**
 * `azd up` (issue 20): azure.yaml against azd's published schema, the facts azure.yaml, the
 * templates and the hooks share, and the hooks themselves: preprovision against a real echo server
 * on loopback, postprovision seeding a real embedded Cosmos server (the local stack's store) with
 * the local stack's seed code. az and azd cannot exist here: they are a recording stand-in behind
 * the same interface the real CLIs are reached through (infra/scripts/cli-edge.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Ajv2019 from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { startCosmosServer, type RunningCosmosServer } from '../../dev/cosmos-server.js';
import { DEV_DATA_SET } from '../../dev/seed-store.js';
import { PACKAGE_DIR } from '../../infra/scripts/package-app.js';
import {
  DEPLOYER_IP_SETTING,
  REQUIRED_SETTINGS,
  SANDBOX_OUTPUTS,
  postprovision,
  predeploy,
  preprovision,
} from '../../infra/scripts/sandbox-hooks.js';
import { dryRunCli, type Cli } from '../../infra/scripts/cli-edge.js';
import { DATABASE_ID, RESOURCES } from '../../shared/model/resources.js';
import { createCosmosClient } from '../../shared/store/create-cosmos-client.js';
import { ensureContainers } from '../../dev/ensure-containers.js';
import { INFRA, ROOT, declarations, declaredName, parseBicepFile } from '../infra/bicep-tree.js';

const azureYaml = parse(readFileSync(join(ROOT, 'azure.yaml'), 'utf8')) as Record<string, any>;
const schema = JSON.parse(readFileSync(join(ROOT, 'test/infra/fixtures/azd/azure.yaml.json'), 'utf8')) as object;
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/**
 * The schema refers to the config schemas of azd's AI extensions (hosts azure.ai.*), applied only
 * under those hosts: they stand here as schemas that accept anything (fixtures/azd/README.md).
 */
function validator() {
  const Ajv = Ajv2019 as unknown as typeof Ajv2019.default;
  const ajv = new Ajv({ strict: false, allErrors: true });
  const external = new Set([...JSON.stringify(schema).matchAll(/"\$ref":"(https:[^"]+)"/g)].map((match) => match[1]!));
  expect([...external].every((url) => url.includes('/cli/azd/extensions/azure.ai.'))).toBe(true);
  for (const url of external) ajv.addSchema({ $id: url }, url);
  return ajv.compile(schema);
}

/** A stand-in for az and azd: every change is recorded, lookups find nothing. */
function recordingCli(): Cli & { changes: (readonly string[])[] } {
  const changes: (readonly string[])[] = [];
  const dry = dryRunCli(() => {});
  return { changes, read: dry.read, change: (command, options) => { changes.push(command); return dry.change(command, options); } };
}

describe('azure.yaml', () => {
  it('is valid against azd\'s published schema (draft 2019-09), which refuses a broken copy', () => {
    const validate = validator();
    expect([validate(azureYaml), validate.errors ?? []]).toEqual([true, []]);
    const broken = structuredClone(azureYaml);
    broken.services.api.host = 'functions';
    broken.hooks.postprovision.shell = 'bash';
    expect(validate(broken)).toBe(false);
    // remoteBuild is allowed only on hosts that build (function among them); sh and pwsh are the shells.
    expect((validate.errors ?? []).map((error) => error.instancePath)).toEqual(expect.arrayContaining(['/services/api/remoteBuild', '/hooks/postprovision/shell']));
  });

  it('declares service api on a function app, built here (remoteBuild false) from what npm run package writes', () => {
    expect(Object.keys(azureYaml.services)).toEqual(['api']);
    expect(azureYaml.services.api).toMatchObject({ project: '.', language: 'ts', host: 'function', remoteBuild: false, dist: PACKAGE_DIR });
    expect(azureYaml.services.api.hooks.prepackage).toEqual({ shell: 'sh', run: 'npm run package' });
    expect(packageJson.scripts.package).toMatch(/package-app\.js$/);
  });

  it('provisions infra/sandbox.bicep with its parameter file, and up is package + provision (never azd\'s zip deploy)', () => {
    expect(azureYaml.infra).toEqual({ provider: 'bicep', path: 'infra', module: 'sandbox' });
    expect(readFileSync(join(INFRA, 'sandbox.bicepparam'), 'utf8')).toMatch(/^using '\.\/sandbox\.bicep'$/m);
    expect(azureYaml.workflows.up.steps).toEqual([{ azd: 'package --all' }, { azd: 'provision' }]);
  });

  it('runs each hook of the project through npm run sandbox in a POSIX shell', () => {
    expect(Object.keys(azureYaml.hooks).sort()).toEqual(['postprovision', 'predeploy', 'preprovision']);
    for (const [name, hook] of Object.entries(azureYaml.hooks as Record<string, unknown>)) {
      expect(hook).toEqual({ shell: 'sh', run: `npm run --silent sandbox -- ${name}` });
    }
    expect(packageJson.scripts.sandbox).toBe('npm run build && node dist/infra/scripts/sandbox-hooks.js');
  });
});

describe('the facts the hooks share with the templates', () => {
  it('reads exactly the outputs infra/sandbox.bicep declares', async () => {
    const sandbox = await parseBicepFile(join(INFRA, 'sandbox.bicep'));
    expect([...SANDBOX_OUTPUTS].sort()).toEqual(declarations(sandbox, 'output_declaration').map(declaredName).sort());
  });

  it('checks every setting sandbox.bicepparam needs and azd does not set', () => {
    const source = readFileSync(join(INFRA, 'sandbox.bicepparam'), 'utf8');
    const withoutDefault = [...source.matchAll(/readEnvironmentVariable\('([A-Z_]+)'\)/g)].map((match) => match[1]!);
    const fromAzd = ['AZURE_LOCATION', 'AZURE_PRINCIPAL_ID'];
    expect(withoutDefault.filter((name) => !fromAzd.includes(name)).sort()).toEqual([...REQUIRED_SETTINGS, DEPLOYER_IP_SETTING].sort());
  });
});

describe('the preprovision hook', () => {
  let echo: Server;
  let echoUrl: string;
  let answer = '203.0.113.7\n';
  beforeAll(async () => {
    echo = createServer((_request, response) => response.end(answer));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => echo.close(resolve));
  });

  const settings = Object.fromEntries(REQUIRED_SETTINGS.map((name) => [name, `value-of-${name}`]));

  it('records the address the echo service sees in the azd environment', async () => {
    const cli = recordingCli();
    const lines: string[] = [];
    await preprovision({ ...settings, AZURE_ENV_NAME: 'dev-ana', SUMMARY_IP_ECHO_URL: echoUrl }, cli, (line) => lines.push(line));
    expect(cli.changes).toEqual([['azd', 'env', 'set', DEPLOYER_IP_SETTING, '203.0.113.7']]);
    expect(lines.join('\n')).toContain('203.0.113.7');
  });

  it('asks again on every run (a laptop moves), and keeps the last address when nobody answers', async () => {
    const cli = recordingCli();
    await preprovision({ ...settings, [DEPLOYER_IP_SETTING]: '198.51.100.4', SUMMARY_IP_ECHO_URL: echoUrl }, cli, () => {});
    await preprovision({ ...settings, [DEPLOYER_IP_SETTING]: '198.51.100.4', SUMMARY_IP_ECHO_URL: 'http://127.0.0.1:1/' }, cli, () => {});
    expect(cli.changes).toEqual([['azd', 'env', 'set', DEPLOYER_IP_SETTING, '203.0.113.7'], ['azd', 'env', 'set', DEPLOYER_IP_SETTING, '198.51.100.4']]);
    await expect(preprovision({ ...settings, SUMMARY_IP_ECHO_URL: 'http://127.0.0.1:1/' }, cli, () => {})).rejects.toThrow(/azd env set SUMMARY_DEPLOYER_IP_ADDRESS/);
  });

  it('says on Windows to run azd from WSL (the hooks need a POSIX shell and the az command)', async () => {
    await expect(preprovision({ ...settings, SUMMARY_IP_ECHO_URL: echoUrl }, recordingCli(), () => {}, 'win32')).rejects.toThrow(/WSL/);
  });

  it('stops before provisioning on missing settings, a long name or a malformed registry, naming the fix and no value', async () => {
    const cli = recordingCli();
    const failure = preprovision({
      SUMMARY_API_APP_ID: 'x', SUMMARY_BACKEND_API_KEYS: 'secret-key-value', AZURE_ENV_NAME: 'much-too-long-name',
      SUMMARY_CLIENT_REGISTRY: '{"c1": "Contoso"}', SUMMARY_UAT_CLIENT_REGISTRY: 'not json', SUMMARY_IP_ECHO_URL: echoUrl,
    }, cli, () => {});
    await expect(failure).rejects.toThrow(/azd env set SUMMARY_UAT_BACKEND_API_KEYS <value>\n {2}azd env set SUMMARY_PUBLISHER_EMAIL <value>/);
    await expect(failure).rejects.toThrow(/longer than 12 characters/);
    await expect(failure).rejects.toThrow(/SUMMARY_CLIENT_REGISTRY must map client application ids to data tenants/);
    await expect(failure).rejects.toThrow(/SUMMARY_UAT_CLIENT_REGISTRY is not JSON/);
    await expect(failure).rejects.not.toThrow(/secret-key-value/);
    expect(cli.changes).toEqual([]);
  });

  it('refuses an answer that is not an IPv4 address (Cosmos DB firewall rules are IPv4)', async () => {
    answer = '<html>rate limited</html>';
    const cli = recordingCli();
    await expect(preprovision({ ...settings, SUMMARY_IP_ECHO_URL: echoUrl }, cli, () => {})).rejects.toThrow(/is not an IPv4 address.*azd env set SUMMARY_DEPLOYER_IP_ADDRESS/);
    answer = '2001:db8::1';
    await expect(preprovision({ ...settings, SUMMARY_IP_ECHO_URL: echoUrl }, cli, () => {})).rejects.toThrow(/is not an IPv4 address/);
    expect(cli.changes).toEqual([]);
  });
});

describe('the postprovision hook, against the local stack\'s store', () => {
  let production: RunningCosmosServer;
  let uat: RunningCosmosServer;
  let folder: string;
  beforeAll(async () => {
    [production, uat] = await Promise.all([startCosmosServer({ port: 0 }), startCosmosServer({ port: 0 })]);
    // What Bicep creates in Azure: the hook itself creates nothing (createContainers: false).
    for (const server of [production, uat]) {
      const client = createCosmosClient({ endpoint: server.endpoint, key: server.key, allowSelfSignedTls: true });
      await ensureContainers(client);
      client.dispose();
    }
    folder = mkdtempSync(join(tmpdir(), 'sandbox-hooks-'));
    writeFileSync(join(folder, 'package.zip'), 'PK');
  });
  afterAll(async () => {
    await Promise.all([production?.stop(), uat?.stop()]);
    rmSync(folder, { recursive: true, force: true });
  });

  const outputs = (): Record<string, string> => ({
    AZURE_RESOURCE_GROUP: 'rg-dev-ana', SUMMARY_BASE_URL: 'https://apim-summary-abc.azure-api.net/summary', AZURE_API_MANAGEMENT_NAME: 'apim-summary-abc',
    AZURE_FUNCTION_APP_NAME: 'func-summary-abc', AZURE_FUNCTION_APP_SLOT_NAME: 'uat',
    AZURE_PACKAGE_CONTAINER_URL: 'https://stabc.blob.core.windows.net/deployments/',
    AZURE_COSMOS_ENDPOINT: production.endpoint, AZURE_UAT_COSMOS_ENDPOINT: uat.endpoint,
  });

  async function countsByTenant(server: RunningCosmosServer): Promise<Record<string, Record<string, number>>> {
    const client = createCosmosClient({ endpoint: server.endpoint, key: server.key, allowSelfSignedTls: true });
    try {
      const result: Record<string, Record<string, number>> = {};
      for (const resource of RESOURCES) {
        const { resources } = await client.database(DATABASE_ID).container(resource.containerId).items
          .query<{ tenantId: string }>('SELECT c.tenantId FROM c').fetchAll();
        const counts: Record<string, number> = {};
        for (const { tenantId } of resources) counts[tenantId] = (counts[tenantId] ?? 0) + 1;
        result[resource.name] = counts;
      }
      return result;
    } finally {
      client.dispose();
    }
  }

  it('deploys the package to both slots by URL, seeds each account for its slot\'s tenants, and prints the walkthrough without a secret', async () => {
    const cli = recordingCli();
    const lines: string[] = [];
    const env = {
      ...outputs(), AZURE_ENV_NAME: 'dev-ana', AZURE_TENANT_ID: 'tenant-1', AZURE_SUBSCRIPTION_ID: 'sub-1', SUMMARY_API_APP_ID: 'api-app',
      SUMMARY_BACKEND_API_KEYS: 'never-print-this-key', SUMMARY_CLIENT_REGISTRY: '{"client-1": "northwind"}', SUMMARY_UAT_CLIENT_REGISTRY: '{}',
    };
    const seeded = await postprovision(env, cli, { packageZip: join(folder, 'package.zip'), now: new Date('2026-11-24T09:30:05.123Z'), recordsPerTenant: 12, log: (line) => lines.push(line), propagation: { attempts: 3, waitMs: 0 } });

    const url = 'https://stabc.blob.core.windows.net/deployments/sandbox-20261124T093005Z.zip';
    expect(cli.changes).toEqual([
      ['az', 'storage', 'blob', 'upload', '--auth-mode', 'login', '--blob-url', url, '--file', join(folder, 'package.zip'), '--output', 'none'],
      ['az', 'functionapp', 'config', 'appsettings', 'set', '--resource-group', 'rg-dev-ana', '--name', 'func-summary-abc', '--settings', `WEBSITE_RUN_FROM_PACKAGE=${url}`, '--output', 'none'],
      ['az', 'functionapp', 'config', 'appsettings', 'set', '--resource-group', 'rg-dev-ana', '--name', 'func-summary-abc', '--slot', 'uat', '--settings', `WEBSITE_RUN_FROM_PACKAGE=${url}`, '--output', 'none'],
    ]);

    const perTenant = (tenants: string[]) => Object.fromEntries(tenants.map((tenant) => [tenant, 12]));
    expect(await countsByTenant(production)).toEqual(Object.fromEntries(RESOURCES.map((resource) => [resource.name, perTenant(['contoso', 'fabrikam', 'northwind'])])));
    expect(await countsByTenant(uat)).toEqual(Object.fromEntries(RESOURCES.map((resource) => [resource.name, perTenant([...DEV_DATA_SET.tenants])])));
    expect(seeded).toEqual({ production: Object.fromEntries(RESOURCES.map((resource) => [resource.name, 36])), uat: Object.fromEntries(RESOURCES.map((resource) => [resource.name, 24])) });

    const printed = lines.join('\n');
    expect(printed).toContain('export SUMMARY_BASE_URL=https://apim-summary-abc.azure-api.net/summary');
    expect(printed).toContain('export SUMMARY_CLIENT_ID=client-1');
    expect(printed).toContain('/subscriptions/sub-1/resourceGroups/rg-dev-ana/providers/Microsoft.ApiManagement/service/apim-summary-abc/subscriptions/client-client-1/listSecrets');
    expect(printed).not.toContain('never-print-this-key');
  });

  it('seeds again without a duplicate (upserts): a second run over the same sandbox changes no count', async () => {
    const before = await countsByTenant(production);
    await postprovision({ ...outputs(), SUMMARY_CLIENT_REGISTRY: '{"client-1": "northwind"}' }, recordingCli(), { packageZip: join(folder, 'package.zip'), recordsPerTenant: 12, log: () => {}, propagation: { attempts: 1, waitMs: 0 } });
    expect(await countsByTenant(production)).toEqual(before);
  });

  it('tries the upload again while the new role assignments apply, and says how to go on when they never do', async () => {
    let uploads = 0;
    const cli: Cli = {
      read: () => '',
      change: (command) => {
        if (command[1] === 'storage' && ++uploads < 3) throw new Error('ERROR: AuthorizationPermissionMismatch (403)');
        return '';
      },
    };
    const lines: string[] = [];
    await postprovision({ ...outputs() }, cli, { packageZip: join(folder, 'package.zip'), recordsPerTenant: 2, log: (line) => lines.push(line), propagation: { attempts: 3, waitMs: 0 } });
    expect(uploads).toBe(3);
    expect(lines.filter((line) => line.startsWith('uploading the package failed (ERROR: AuthorizationPermissionMismatch (403)); trying again'))).toHaveLength(2);
    const never: Cli = { read: () => '', change: () => { throw new Error('ERROR: AuthorizationPermissionMismatch (403)'); } };
    await expect(postprovision({ ...outputs() }, never, { packageZip: join(folder, 'package.zip'), log: () => {}, propagation: { attempts: 2, waitMs: 0 } }))
      .rejects.toThrow(/uploading the package failed 2 times.*run azd hooks run postprovision again/);
  });

  it('stops, having changed nothing, without the outputs or the package', async () => {
    const cli = recordingCli();
    const { AZURE_COSMOS_ENDPOINT: _dropped, ...partial } = outputs();
    await expect(postprovision(partial, cli, { packageZip: join(folder, 'package.zip') })).rejects.toThrow(/lacks AZURE_COSMOS_ENDPOINT: outputs of infra\/sandbox\.bicep; run azd provision/);
    await expect(postprovision(outputs(), cli, { packageZip: join(folder, 'missing.zip') })).rejects.toThrow(/run npm run package/);
    expect(cli.changes).toEqual([]);
  });
});

describe('the predeploy hook', () => {
  it('refuses azd deploy and says what to run instead', () => {
    expect(() => predeploy()).toThrow(/npm run package && azd hooks run postprovision/);
  });
});
