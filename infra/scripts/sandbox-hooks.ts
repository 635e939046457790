/**
 * The azd hooks of the sandbox (azure.yaml). Before provisioning: the settings the templates need,
 * and the public address azd runs from (the Cosmos DB firewall lets it through to seed). After
 * provisioning: the package deployed the way the pipeline deploys it (uploaded to the package
 * container, both slots pointed at its URL), the dev data set seeded into both slots' Cosmos
 * accounts with the deployer's Entra identity, and the walkthrough printed. `azd deploy` is
 * refused with the reason: its zip deploy needs the SCM site and Azure Files, which these
 * templates close (docs/deploy.md, "A sandbox with azd").
 *
 *   npm run sandbox -- preprovision | postprovision | predeploy
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DefaultAzureCredential } from '@azure/identity';
import type { CosmosClient } from '@azure/cosmos';
import { z } from 'zod';
import { LOCAL_COSMOS_KEY } from '../../dev/cosmos-server.js';
import { DEV_DATA_SET, seedStore, type SeedStoreResult } from '../../dev/seed-store.js';
import { createCosmosClient } from '../../shared/store/create-cosmos-client.js';
import { isLoopbackUrl } from '../../shared/util/is-loopback-url.js';
import { realCli, type Cli } from './cli-edge.js';
import { PACKAGE_ZIP } from './package-app.js';

/** What the developer sets once with `azd env set` (the templates read them: sandbox.bicepparam). */
export const REQUIRED_SETTINGS = ['SUMMARY_API_APP_ID', 'SUMMARY_BACKEND_API_KEYS', 'SUMMARY_UAT_BACKEND_API_KEYS', 'SUMMARY_PUBLISHER_EMAIL'] as const;

/** The outputs of infra/sandbox.bicep the postprovision hook reads (azd puts them in its environment). */
export const SANDBOX_OUTPUTS = [
  'AZURE_RESOURCE_GROUP',
  'SUMMARY_BASE_URL',
  'AZURE_API_MANAGEMENT_NAME',
  'AZURE_FUNCTION_APP_NAME',
  'AZURE_FUNCTION_APP_SLOT_NAME',
  'AZURE_PACKAGE_CONTAINER_URL',
  'AZURE_COSMOS_ENDPOINT',
  'AZURE_UAT_COSMOS_ENDPOINT',
] as const;

/** The azd environment value the preprovision hook fills in and sandbox.bicepparam reads. */
export const DEPLOYER_IP_SETTING = 'SUMMARY_DEPLOYER_IP_ADDRESS';

/** Where the preprovision hook asks for the address azd runs from, unless SUMMARY_IP_ECHO_URL says otherwise. */
const IP_ECHO_URL = 'https://api.ipify.org';

/** main.bicep's limit on environmentName (every resource name carries it). */
const MAX_ENVIRONMENT_NAME = 12;

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** A client registry as the service reads it (CLIENT_REGISTRY): client id to lower-case data tenant. */
const clientRegistry = z.record(z.string().min(1), z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'data tenants are lower-case names'));

type Environment = Readonly<Record<string, string | undefined>>;

function registryOf(env: Environment, name: 'SUMMARY_CLIENT_REGISTRY' | 'SUMMARY_UAT_CLIENT_REGISTRY'): Record<string, string> {
  const text = env[name];
  if (text === undefined || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${name} is not JSON; set it to {"<client application id>": "<data tenant>"} with azd env set ${name} '…'`);
  }
  const result = clientRegistry.safeParse(parsed);
  if (!result.success) throw new Error(`${name} must map client application ids to data tenants (lower-case names): ${result.error.issues[0]?.message ?? 'invalid'}`);
  return result.data;
}

/** The tenants a sandbox account gets: the dev data set's and every tenant its slot's registry names. */
function seedTenants(registry: Readonly<Record<string, string>>): string[] {
  return [...new Set([...DEV_DATA_SET.tenants, ...Object.values(registry)])].sort();
}

/**
 * Before provisioning: stops with the `azd env set` lines for what is missing or malformed, then
 * records the public IPv4 address azd runs from (asked of an echo service unless already set).
 */
export async function preprovision(env: Environment, cli: Cli, log: (line: string) => void = console.log, platform: string = process.platform): Promise<void> {
  const problems: string[] = [];
  if (platform === 'win32') problems.push('the hooks run in a POSIX shell with the Azure CLI on its PATH: run azd from WSL (or Linux, macOS)');
  const missing = REQUIRED_SETTINGS.filter((name) => !env[name]);
  if (missing.length > 0) problems.push(`missing settings of the azd environment:\n${missing.map((name) => `  azd env set ${name} <value>`).join('\n')}`);
  const name = env.AZURE_ENV_NAME ?? '';
  if (name.length > MAX_ENVIRONMENT_NAME) problems.push(`the azd environment name "${name}" is longer than ${MAX_ENVIRONMENT_NAME} characters (main.bicep's limit: the resource group is named after it and every resource name derives from it): azd env new <shorter name>`);
  for (const registry of ['SUMMARY_CLIENT_REGISTRY', 'SUMMARY_UAT_CLIENT_REGISTRY'] as const) {
    try {
      registryOf(env, registry);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) throw new Error(`the sandbox cannot be provisioned yet (docs/deploy.md, "A sandbox with azd"):\n${problems.join('\n')}`);

  // Asked on every run (a laptop's address changes); the last one is kept when nobody answers.
  const previous = env[DEPLOYER_IP_SETTING]?.trim() ?? '';
  const url = env.SUMMARY_IP_ECHO_URL ?? IP_ECHO_URL;
  let address: string;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    address = (await response.text()).trim();
    if (!response.ok) throw new Error(`it answered ${response.status}`);
  } catch (error) {
    if (previous === '') throw new Error(`could not ask ${url} for this machine's public address (${(error as Error).message}): azd env set ${DEPLOYER_IP_SETTING} <your public IPv4 address>`);
    log(`could not ask ${url} for this machine's public address (${(error as Error).message}); keeping ${previous}`);
    address = previous;
  }
  if (!IPV4.test(address)) throw new Error(`"${address.slice(0, 64)}" is not an IPv4 address (the Cosmos DB firewall takes IPv4 only): azd env set ${DEPLOYER_IP_SETTING} <your public IPv4 address>, and SUMMARY_IP_ECHO_URL to a service that answers it`);
  cli.change(['azd', 'env', 'set', DEPLOYER_IP_SETTING, address]);
  log(`The Cosmos DB firewall of the sandbox will let ${address} through (the postprovision hook seeds from here).`);
}

/** What the postprovision hook needs besides the environment. */
export interface PostprovisionOptions {
  /** The package `npm run package` wrote (azd package runs it). */
  readonly packageZip: string;
  /** Names the uploaded blob; the time keeps every upload apart (the container keeps versions). */
  readonly now?: Date;
  /** A Cosmos client for an account endpoint (the deployer's Entra identity in Azure). */
  readonly cosmosClient?: (endpoint: string) => CosmosClient;
  /** Records per tenant (the dev data set's by default; the tests seed fewer). */
  readonly recordsPerTenant?: number;
  /** How often and how long a step is tried again while new role assignments apply (default 10 × 30 s). */
  readonly propagation?: { readonly attempts: number; readonly waitMs: number };
  readonly log?: (line: string) => void;
}

/**
 * Entra ID in Azure (the developer's azd or az sign-in); the local server's key for a loopback
 * endpoint, so the hook runs against the local stack in the tests exactly as it runs in Azure.
 */
function defaultCosmosClient(endpoint: string): CosmosClient {
  return isLoopbackUrl(endpoint)
    ? createCosmosClient({ endpoint, key: LOCAL_COSMOS_KEY, allowSelfSignedTls: true })
    : createCosmosClient({ endpoint, credential: new DefaultAzureCredential() });
}

/**
 * Runs a step again while it fails, for as long as new role assignments may take to apply (the
 * deployer's upload and seeding rights are created by the same provisioning, minutes before they
 * hold); the last failure names the step and how to run the hook again.
 */
async function whileRolesApply<T>(step: string, run: () => Promise<T> | T, propagation: { attempts: number; waitMs: number }, log: (line: string) => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 200) : String(error);
      if (attempt >= propagation.attempts) throw new Error(`${step} failed ${attempt} times, last: ${reason}. New role assignments can take several minutes to apply: run azd hooks run postprovision again`);
      log(`${step} failed (${reason}); trying again in ${propagation.waitMs / 1000} s while the new role assignments apply (${attempt}/${propagation.attempts})`);
      await new Promise((resolve) => setTimeout(resolve, propagation.waitMs));
    }
  }
}

function outputsOf(env: Environment): Record<(typeof SANDBOX_OUTPUTS)[number], string> {
  const missing = SANDBOX_OUTPUTS.filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`the azd environment lacks ${missing.join(', ')}: outputs of infra/sandbox.bicep; run azd provision`);
  return Object.fromEntries(SANDBOX_OUTPUTS.map((name) => [name, env[name]!])) as Record<(typeof SANDBOX_OUTPUTS)[number], string>;
}

/**
 * After provisioning: deploys the package to both slots, seeds both accounts, prints the
 * walkthrough. Each step is idempotent (a new blob, settings set, upserts), so running the hook
 * again (`azd hooks run postprovision`) deploys a new build over the same sandbox.
 */
export async function postprovision(env: Environment, cli: Cli, options: PostprovisionOptions): Promise<Readonly<Record<string, SeedStoreResult>>> {
  const log = options.log ?? console.log;
  const outputs = outputsOf(env);
  if (!existsSync(options.packageZip)) throw new Error(`no package at ${options.packageZip}: run npm run package (azd package runs it)`);

  const stamp = (options.now ?? new Date()).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const url = `${outputs.AZURE_PACKAGE_CONTAINER_URL.replace(/\/$/, '')}/sandbox-${stamp}.zip`;
  const propagation = options.propagation ?? { attempts: 10, waitMs: 30_000 };
  await whileRolesApply('uploading the package', () => cli.change(['az', 'storage', 'blob', 'upload', '--auth-mode', 'login', '--blob-url', url, '--file', options.packageZip, '--output', 'none']), propagation, log);
  for (const slot of [undefined, outputs.AZURE_FUNCTION_APP_SLOT_NAME]) {
    cli.change([
      'az', 'functionapp', 'config', 'appsettings', 'set',
      '--resource-group', outputs.AZURE_RESOURCE_GROUP, '--name', outputs.AZURE_FUNCTION_APP_NAME,
      ...(slot === undefined ? [] : ['--slot', slot]),
      '--settings', `WEBSITE_RUN_FROM_PACKAGE=${url}`, '--output', 'none',
    ]);
  }

  const cosmosClient = options.cosmosClient ?? defaultCosmosClient;
  const accounts = [
    { slot: 'production', endpoint: outputs.AZURE_COSMOS_ENDPOINT, registry: registryOf(env, 'SUMMARY_CLIENT_REGISTRY') },
    { slot: outputs.AZURE_FUNCTION_APP_SLOT_NAME, endpoint: outputs.AZURE_UAT_COSMOS_ENDPOINT, registry: registryOf(env, 'SUMMARY_UAT_CLIENT_REGISTRY') },
  ];
  const seeded: Record<string, SeedStoreResult> = {};
  for (const account of accounts) {
    const client = cosmosClient(account.endpoint);
    try {
      const tenants = seedTenants(account.registry);
      seeded[account.slot] = await whileRolesApply(`seeding the ${account.slot} slot's data`, () => seedStore(client, { tenants, recordsPerTenant: options.recordsPerTenant ?? DEV_DATA_SET.recordsPerTenant, createContainers: false }), propagation, log);
      log(`seeded the ${account.slot} slot's data: ${tenants.join(', ')} (${Object.entries(seeded[account.slot]!).map(([name, count]) => `${count} ${name}`).join(', ')})`);
    } finally {
      client.dispose();
    }
  }
  log(sandboxWalkthrough(env, outputs, registryOf(env, 'SUMMARY_CLIENT_REGISTRY')));
  return seeded;
}

/** The walkthrough for the sandbox: the client's settings, secrets named where they live, never printed. */
export function sandboxWalkthrough(env: Environment, outputs: Record<(typeof SANDBOX_OUTPUTS)[number], string>, registry: Readonly<Record<string, string>>): string {
  const [clientId, tenant] = Object.entries(registry)[0] ?? ['<client application id>', 'contoso'];
  const subscriptionId = env.AZURE_SUBSCRIPTION_ID ?? '<subscription id>';
  const listSecrets = `https://management.azure.com/subscriptions/${subscriptionId}/resourceGroups/${outputs.AZURE_RESOURCE_GROUP}`
    + `/providers/Microsoft.ApiManagement/service/${outputs.AZURE_API_MANAGEMENT_NAME}/subscriptions/client-${clientId}/listSecrets?api-version=2022-08-01`;
  return `
Sandbox ready: ${env.AZURE_ENV_NAME ?? ''} (resource group ${outputs.AZURE_RESOURCE_GROUP})
  base_url  ${outputs.SUMMARY_BASE_URL}
  data      the dev data set (${DEV_DATA_SET.recordsPerTenant} contracts and as many invoices per tenant) in both slots' accounts
  client    ${clientId} reads ${tenant} (SUMMARY_CLIENT_REGISTRY)

The pull client's settings (secrets are read where they live, never printed):
export SUMMARY_BASE_URL=${outputs.SUMMARY_BASE_URL}
export SUMMARY_TENANT_ID=${env.AZURE_TENANT_ID ?? '<tenant id>'}
export SUMMARY_CLIENT_ID=${clientId}
export SUMMARY_CLIENT_SECRET=<that client application's secret>
export SUMMARY_SCOPE=api://${env.SUMMARY_API_APP_ID ?? '<api app id>'}/.default
export SUMMARY_SUBSCRIPTION_KEY=$(az rest --method post --url '${listSecrets}' --query primaryKey --output tsv)
export SUMMARY_API_KEY=$(azd env get-value SUMMARY_BACKEND_API_KEYS | cut -d, -f1)

# 1. A year of contracts, one Parquet file per calendar month (run it again: it resumes)
npx summary-client pull contracts --from 2025-01-01 --to 2025-12-31 --out pulls/contracts
# 2. The same in a notebook (python/README.md): one table
python3 -c "import summary_client as s; print(s.load_as_arrow('contracts', '2025-01-01', '2025-12-31').num_rows)"

A new build: npm run package && azd hooks run postprovision (azd deploy is refused: docs/deploy.md).
`;
}

/** `azd deploy` would zip deploy through the SCM site, which these templates close: say so and stop. */
export function predeploy(): never {
  throw new Error([
    'azd deploy is not how the sandbox gets its code: azd zip deploys an Elastic Premium app through its',
    'SCM site, which these templates close to everyone, and zip deploy without Azure Files (no account',
    'keys here) is refused. The sandbox runs from a package URL, as production does:',
    '  npm run package && azd hooks run postprovision',
    'uploads the new package and points both slots at it (azd up does this for you).',
  ].join('\n'));
}

// Run as a script: compiled to dist/infra/scripts/, so the repository root is three levels up.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
  const phase = process.argv[2];
  try {
    if (phase === 'preprovision') await preprovision(process.env, realCli());
    else if (phase === 'postprovision') await postprovision(process.env, realCli(), { packageZip: join(root, PACKAGE_ZIP) });
    else if (phase === 'predeploy') predeploy();
    else throw new Error('usage: npm run sandbox -- preprovision | postprovision | predeploy');
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
  }
}
