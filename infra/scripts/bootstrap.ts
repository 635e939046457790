/**
 * `npm run bootstrap -- <phase> [--dry-run] …`: what a new subscription needs before and after the
 * first infrastructure run (docs/deploy.md, "Runbook"), as Azure CLI and GitHub CLI calls.
 *
 * - `before-infra`: the resource group; the API's app registration (v2 tokens, `idtyp`, the app
 *   roles of `DATAPOINTS`); one user-assigned deployment identity per GitHub environment with one
 *   federated credential for that environment only, and its roles; the environments (reviewers,
 *   `main` only); the smoke-test client; every secret and variable the workflow reads.
 * - `after-infra`: the uat identity's rights on what the first run created (the `uat` slot, the
 *   smoke client's UAT subscription), read from the last successful deployment's outputs.
 *
 * Idempotent: every step looks first and creates only what is missing, so a second run changes
 * nothing and a half-finished one can simply be run again. Generated secrets (backend keys, the
 * smoke client's secret) go from memory to `gh secret set` on stdin: never printed, never in an
 * argument. `--dry-run` prints the commands instead of running them (lookups find nothing there,
 * so every creating command is shown); it is the mode `npm test` runs, as no az or gh is here.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BASE_ROLE, DATAPOINTS } from '../../shared/access/datapoints.js';
import { dryRunCli, realCli, type Cli } from './cli-edge.js';

/** The GitHub environments of `.github/workflows/deploy-uat.yml`, each with its own identity. */
export const ENVIRONMENTS = ['infra-preview', 'production', 'uat'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Environments whose jobs wait for reviewers (infra-preview changes nothing and holds no secret). */
export const REVIEWED: readonly Environment[] = ['production', 'uat'];

/**
 * Built-in roles the templates assign (infra/modules): the only ones the production identity may
 * hand out (Role Based Access Control Administrator, constrained by a condition).
 */
export const ASSIGNABLE_ROLES: Readonly<Record<string, string>> = {
  'Storage Blob Data Owner': 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b',
  'Storage Blob Data Reader': '2a2b9908-6ea1-4ae2-8e65-a410df84e7d1',
  'Storage Blob Data Contributor': 'ba92f5b4-2d11-453d-a403-e96b0029c9fe',
  'Storage Table Data Contributor': '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3',
  'Storage Queue Data Contributor': '974c5e8b-45b9-4653-ba55-5f855dd0fb88',
  'Storage Blob Delegator': 'db58b8e5-c6ad-4a2a-8342-4190687cbf4a',
  'Key Vault Secrets User': '4633458b-17de-408a-b874-0445c86b69e6',
  'Monitoring Metrics Publisher': '3913510d-42f4-4e42-8a64-420c390055eb',
};

/** The deployment outputs `after-infra` reads (declared by infra/main.bicep; a test checks). */
export const OUTPUTS_READ = ['functionAppName', 'functionAppSlotName', 'apiManagementName', 'uatSubscriptionNames'] as const;

/** What the script needs. */
export interface Inputs {
  readonly repo: string;
  readonly subscriptionId: string;
  readonly resourceGroup: string;
  readonly location: string;
  readonly publisherEmail: string;
  /** GitHub logins of the reviewers of production and uat. */
  readonly reviewers: readonly string[];
  /** The UAT data tenant the smoke client reads. */
  readonly smokeTenant: string;
  readonly apiAppName: string;
  readonly smokeAppName: string;
}

const tsv = ['--output', 'tsv'];

/**
 * The app id of the app registration with exactly this display name ('' when none). `az ad app
 * list --display-name` matches by prefix, so the filter is an exact one, and two matches stop.
 */
function appIdNamed(cli: Cli, displayName: string): string {
  const found = cli.read(['az', 'ad', 'app', 'list', '--filter', `displayName eq '${displayName.replaceAll("'", "''")}'`, '--query', '[].appId', ...tsv]);
  const ids = found.split(/\s+/).filter(Boolean);
  if (ids.length > 1) throw new Error(`${ids.length} app registrations are named ${displayName}: rename or remove all but one, or pass another name`);
  return ids[0] ?? '';
}

/** Looks something up and creates it when missing; answers what was found or created. */
function ensure(cli: Cli, lookup: readonly string[], create: readonly string[], name: string): string {
  return cli.read(lookup) || cli.change(create, { name });
}

/**
 * The uat pipeline identity's rights on the uat slot: read it and its app settings, and point it
 * at a new package (`az functionapp config appsettings set --slot`, which restarts it). Not Website
 * Contributor: its `Microsoft.Web/sites/*` includes `slots/slotsswap/action`, with which the uat
 * identity could swap UAT into production past the production environment's approval.
 */
export const UAT_SLOT_ACTIONS = [
  'Microsoft.Web/sites/slots/read',
  'Microsoft.Web/sites/slots/config/read',
  'Microsoft.Web/sites/slots/config/list/action',
  'Microsoft.Web/sites/slots/config/write',
] as const;

/** The API app registration's app roles: one per role of the datapoints configuration. */
export function appRoles(existing: ReadonlyMap<string, string> = new Map()): object[] {
  return Object.keys(DATAPOINTS).map((value) => ({
    allowedMemberTypes: ['Application'],
    description: value === BASE_ROLE ? 'Read the summary data of the caller\'s tenant.' : `Adds the datapoints of ${value} (docs/roles).`,
    displayName: value,
    id: existing.get(value) ?? randomUUID(),
    isEnabled: true,
    value,
  }));
}

/** The condition that lets the production identity assign (and remove) only ASSIGNABLE_ROLES. */
export function assignableRolesCondition(): string {
  const guids = Object.values(ASSIGNABLE_ROLES).join(', ');
  return [
    `((!(ActionMatches{'Microsoft.Authorization/roleAssignments/write'})) OR (@Request[Microsoft.Authorization/roleAssignments:RoleDefinitionId] ForAnyOfAnyValues:GuidEquals {${guids}}))`,
    `((!(ActionMatches{'Microsoft.Authorization/roleAssignments/delete'})) OR (@Resource[Microsoft.Authorization/roleAssignments:RoleDefinitionId] ForAnyOfAnyValues:GuidEquals {${guids}}))`,
  ].join(' AND ');
}

const identityName = (environment: Environment) => `id-summary-deploy-${environment}`;

function assignRole(cli: Cli, principalId: string, role: string, scope: string, extra: readonly string[] = []): void {
  const found = cli.read(['az', 'role', 'assignment', 'list', '--assignee', principalId, '--role', role, '--scope', scope, '--query', '[0].id', ...tsv]);
  if (found === '') cli.change(['az', 'role', 'assignment', 'create', '--assignee-object-id', principalId, '--assignee-principal-type', 'ServicePrincipal', '--role', role, '--scope', scope, ...extra, '--output', 'none']);
}

function customRole(cli: Cli, name: string, actions: readonly string[], scope: string): string {
  const definition = JSON.stringify({ Name: name, IsCustom: true, Description: `${name} (summary service bootstrap)`, Actions: actions, NotActions: [], AssignableScopes: [scope] });
  return ensure(cli, ['az', 'role', 'definition', 'list', '--name', name, '--scope', scope, '--query', '[0].name', ...tsv],
    ['az', 'role', 'definition', 'create', '--role-definition', definition, '--query', 'name', ...tsv], `${name} id`);
}

/** Whether GitHub holds the secret (its name only: values cannot be read back). */
function secretExists(cli: Cli, inputs: Inputs, name: string, environment: Environment | undefined): boolean {
  const scope = environment === undefined ? [] : ['--env', environment];
  return cli.read(['gh', 'secret', 'list', '--repo', inputs.repo, ...scope, '--json', 'name', '--jq', `.[] | select(.name == "${name}") | .name`]) !== '';
}

function setSecret(cli: Cli, inputs: Inputs, name: string, environment: Environment | undefined, value: string, onlyIfMissing: boolean): void {
  if (onlyIfMissing && secretExists(cli, inputs, name, environment)) return;
  cli.change(['gh', 'secret', 'set', name, '--repo', inputs.repo, ...(environment === undefined ? [] : ['--env', environment])], { input: value, secret: true });
}

function setVariable(cli: Cli, inputs: Inputs, name: string, environments: readonly (Environment | undefined)[], value: string, onlyIfMissing = false): void {
  for (const environment of environments) {
    const scope = environment === undefined ? [] : ['--env', environment];
    if (onlyIfMissing && cli.read(['gh', 'variable', 'get', name, '--repo', inputs.repo, ...scope]) !== '') continue;
    cli.change(['gh', 'variable', 'set', name, '--repo', inputs.repo, ...scope, '--body', value]);
  }
}

/** A backend API key: 32 random bytes, hex (64 characters, well over the 16 the service requires). */
const newApiKey = () => randomBytes(32).toString('hex');

/** Everything before the first infrastructure run. */
export function beforeInfra(cli: Cli, inputs: Inputs): void {
  const group = `/subscriptions/${inputs.subscriptionId}/resourceGroups/${inputs.resourceGroup}`;
  cli.change(['az', 'account', 'set', '--subscription', inputs.subscriptionId]);
  const tenantId = cli.read(['az', 'account', 'show', '--query', 'tenantId', ...tsv]) || '<tenantId>';
  cli.change(['az', 'group', 'create', '--name', inputs.resourceGroup, '--location', inputs.location, '--output', 'none']);

  // The API's app registration: v2 app-only tokens with idtyp, the app roles, api://<appId>.
  const apiAppId = appIdNamed(cli, inputs.apiAppName)
    || cli.change(['az', 'ad', 'app', 'create', '--display-name', inputs.apiAppName, '--sign-in-audience', 'AzureADMyOrg', '--query', 'appId', ...tsv], { name: 'apiAppId' });
  const roleIds = new Map<string, string>(Object.entries(JSON.parse(
    cli.read(['az', 'ad', 'app', 'show', '--id', apiAppId, '--query', '{roles: appRoles}', '--output', 'json']) || '{"roles":[]}',
  ).roles.reduce((ids: Record<string, string>, role: { value: string; id: string }) => ({ ...ids, [role.value]: role.id }), {})));
  cli.change(['az', 'ad', 'app', 'update', '--id', apiAppId,
    '--identifier-uris', `api://${apiAppId}`,
    '--app-roles', JSON.stringify(appRoles(roleIds)),
    '--optional-claims', JSON.stringify({ accessToken: [{ name: 'idtyp', essential: false }] }),
    '--set', 'api.requestedAccessTokenVersion=2']);
  const apiServicePrincipal = ensure(cli, ['az', 'ad', 'sp', 'show', '--id', apiAppId, '--query', 'id', ...tsv],
    ['az', 'ad', 'sp', 'create', '--id', apiAppId, '--query', 'id', ...tsv], 'apiServicePrincipalId');

  // One identity per GitHub environment, trusted for that environment only.
  const identities = {} as Record<Environment, { clientId: string; principalId: string }>;
  for (const environment of ENVIRONMENTS) {
    const name = identityName(environment);
    const show = ['az', 'identity', 'show', '--resource-group', inputs.resourceGroup, '--name', name, '--query', '[clientId, principalId]', ...tsv];
    if (cli.read(show) === '') cli.change(['az', 'identity', 'create', '--resource-group', inputs.resourceGroup, '--name', name, '--output', 'none']);
    const [clientId, principalId] = cli.read(show).split(/\s+/);
    identities[environment] = { clientId: clientId || `<${environment} clientId>`, principalId: principalId || `<${environment} principalId>` };
    const credential = `github-${environment}`;
    if (cli.read(['az', 'identity', 'federated-credential', 'show', '--resource-group', inputs.resourceGroup, '--identity-name', name, '--name', credential, '--query', 'name', ...tsv]) === '') {
      cli.change(['az', 'identity', 'federated-credential', 'create', '--resource-group', inputs.resourceGroup, '--identity-name', name, '--name', credential,
        '--issuer', 'https://token.actions.githubusercontent.com', '--subject', `repo:${inputs.repo}:environment:${environment}`,
        '--audiences', 'api://AzureADTokenExchange', '--output', 'none']);
    }
  }

  // infra-preview reads and validates; production deploys and hands out only the templates' roles.
  assignRole(cli, identities['infra-preview'].principalId, 'Reader', group);
  // The templates read the slots' current package setting (list on config/appsettings): the what-if does too.
  const whatIf = customRole(cli, 'Summary deployment what-if', [
    'Microsoft.Resources/deployments/validate/action', 'Microsoft.Resources/deployments/whatIf/action',
    'Microsoft.Web/sites/config/list/action', 'Microsoft.Web/sites/slots/config/list/action',
  ], group);
  assignRole(cli, identities['infra-preview'].principalId, whatIf, group);
  assignRole(cli, identities.production.principalId, 'Contributor', group);
  assignRole(cli, identities.production.principalId, 'Role Based Access Control Administrator', group,
    ['--condition', assignableRolesCondition(), '--condition-version', '2.0']);

  // The environments: reviewers on production and uat, every one deployable from main only.
  const reviewerIds = inputs.reviewers.map((login) => cli.read(['gh', 'api', `users/${login}`, '--jq', '.id']) || `<id of ${login}>`);
  for (const environment of ENVIRONMENTS) {
    const settings = {
      reviewers: REVIEWED.includes(environment) ? reviewerIds.map((id) => ({ type: 'User', id: Number(id) || id })) : [],
      deployment_branch_policy: { protected_branches: false, custom_branch_policies: true },
    };
    cli.change(['gh', 'api', '--method', 'PUT', `repos/${inputs.repo}/environments/${environment}`, '--input', '-', '--silent'], { input: JSON.stringify(settings) });
    const policies = cli.read(['gh', 'api', `repos/${inputs.repo}/environments/${environment}/deployment-branch-policies`, '--jq', '.branch_policies[] | select(.name == "main") | .name']);
    if (policies === '') cli.change(['gh', 'api', '--method', 'POST', `repos/${inputs.repo}/environments/${environment}/deployment-branch-policies`, '-f', 'name=main', '-f', 'type=branch', '--silent']);
    setSecret(cli, inputs, 'AZURE_CLIENT_ID', environment, identities[environment].clientId, false);
  }

  // The smoke-test client: Data.Read on the API, a secret straight into the uat environment.
  const smokeAppId = appIdNamed(cli, inputs.smokeAppName)
    || cli.change(['az', 'ad', 'app', 'create', '--display-name', inputs.smokeAppName, '--sign-in-audience', 'AzureADMyOrg', '--query', 'appId', ...tsv], { name: 'smokeAppId' });
  const smokeServicePrincipal = ensure(cli, ['az', 'ad', 'sp', 'show', '--id', smokeAppId, '--query', 'id', ...tsv],
    ['az', 'ad', 'sp', 'create', '--id', smokeAppId, '--query', 'id', ...tsv], 'smokeServicePrincipalId');
  const dataRead = cli.read(['az', 'ad', 'app', 'show', '--id', apiAppId, '--query', `appRoles[?value=='${BASE_ROLE}'].id | [0]`, ...tsv]) || `<${BASE_ROLE} role id>`;
  const assignments = `https://graph.microsoft.com/v1.0/servicePrincipals/${apiServicePrincipal}/appRoleAssignedTo`;
  if (cli.read(['az', 'rest', '--method', 'GET', '--uri', assignments, '--query', `value[?principalId=='${smokeServicePrincipal}' && appRoleId=='${dataRead}'].id | [0]`, ...tsv]) === '') {
    cli.change(['az', 'rest', '--method', 'POST', '--uri', assignments, '--body', JSON.stringify({ principalId: smokeServicePrincipal, resourceId: apiServicePrincipal, appRoleId: dataRead }), '--output', 'none']);
  }
  if (!secretExists(cli, inputs, 'SMOKE_CLIENT_SECRET', 'uat')) {
    // The new secret goes from the reset's output straight on to gh's stdin, never printed.
    const password = cli.change(['az', 'ad', 'app', 'credential', 'reset', '--id', smokeAppId, '--append', '--display-name', 'github-smoke-test', '--years', '1', '--query', 'password', ...tsv], { name: 'smoke client secret' });
    setSecret(cli, inputs, 'SMOKE_CLIENT_SECRET', 'uat', password, false);
  }

  // Secrets and variables of the workflow (docs/deploy.md, "Secrets", "Variables").
  setSecret(cli, inputs, 'AZURE_TENANT_ID', undefined, tenantId, false);
  setSecret(cli, inputs, 'AZURE_SUBSCRIPTION_ID', undefined, inputs.subscriptionId, false);
  if (!secretExists(cli, inputs, 'SUMMARY_UAT_BACKEND_API_KEYS', 'production')) {
    const uatKey = newApiKey();
    setSecret(cli, inputs, 'SUMMARY_UAT_BACKEND_API_KEYS', 'production', uatKey, false);
    setSecret(cli, inputs, 'SMOKE_API_KEY', 'uat', uatKey, false);
  }
  setSecret(cli, inputs, 'SUMMARY_BACKEND_API_KEYS', 'production', newApiKey(), true);
  setVariable(cli, inputs, 'AZURE_RESOURCE_GROUP', [undefined], inputs.resourceGroup);
  setVariable(cli, inputs, 'AZURE_LOCATION', [undefined], inputs.location);
  setVariable(cli, inputs, 'SUMMARY_API_APP_ID', ENVIRONMENTS, apiAppId);
  setVariable(cli, inputs, 'SUMMARY_PUBLISHER_EMAIL', ['infra-preview', 'production'], inputs.publisherEmail);
  setVariable(cli, inputs, 'SUMMARY_UAT_DEPLOYER_PRINCIPAL_ID', ['infra-preview', 'production'], identities.uat.principalId);
  setVariable(cli, inputs, 'SMOKE_CLIENT_ID', ['uat'], smokeAppId);
  // Registries are kept once set: they list the customers' clients, edited by hand from then on.
  setVariable(cli, inputs, 'SUMMARY_CLIENT_REGISTRY', ['infra-preview', 'production'], '{}', true);
  setVariable(cli, inputs, 'SUMMARY_UAT_CLIENT_REGISTRY', ['infra-preview', 'production'], JSON.stringify({ [smokeAppId]: inputs.smokeTenant }), true);
}

/** The uat identity's rights on what the first infrastructure run created. */
export function afterInfra(cli: Cli, inputs: Inputs): void {
  const group = `/subscriptions/${inputs.subscriptionId}/resourceGroups/${inputs.resourceGroup}`;
  cli.change(['az', 'account', 'set', '--subscription', inputs.subscriptionId]);
  const deployment = cli.read(['az', 'deployment', 'group', 'list', '--resource-group', inputs.resourceGroup,
    '--query', "sort_by([?properties.provisioningState=='Succeeded'], &properties.timestamp)[-1].name", ...tsv]) || '<last deployment>';
  const outputs = JSON.parse(cli.read(['az', 'deployment', 'group', 'show', '--resource-group', inputs.resourceGroup, '--name', deployment,
    '--query', 'properties.outputs', '--output', 'json']) || 'null') as Record<string, { value: unknown }> | null;
  const output = (name: (typeof OUTPUTS_READ)[number]) => outputs?.[name]?.value ?? `<output ${name}>`;
  const uatPrincipal = cli.read(['az', 'identity', 'show', '--resource-group', inputs.resourceGroup, '--name', identityName('uat'), '--query', 'principalId', ...tsv]) || '<uat principalId>';
  const smokeAppId = appIdNamed(cli, inputs.smokeAppName) || '<smokeAppId>';

  const site = `${group}/providers/Microsoft.Web/sites/${String(output('functionAppName'))}`;
  // What deploying to the slot needs, on the slot only (UAT_SLOT_ACTIONS); Reader on the app
  // itself, which `az functionapp config appsettings set --slot` reads first (a slot-only right
  // answers that read 403).
  const slotDeployer = customRole(cli, 'Summary UAT slot deployer', UAT_SLOT_ACTIONS, group);
  assignRole(cli, uatPrincipal, slotDeployer, `${site}/slots/${String(output('functionAppSlotName'))}`);
  assignRole(cli, uatPrincipal, 'Reader', site);
  const subscriptions = output('uatSubscriptionNames');
  const smokeSubscription = (typeof subscriptions === 'object' && subscriptions !== null ? (subscriptions as Record<string, string>)[smokeAppId] : undefined) ?? `uat-${smokeAppId}`;
  const keyReader = customRole(cli, 'Summary UAT smoke subscription key reader', ['Microsoft.ApiManagement/service/subscriptions/listSecrets/action'], group);
  assignRole(cli, uatPrincipal, keyReader, `${group}/providers/Microsoft.ApiManagement/service/${String(output('apiManagementName'))}/subscriptions/${smokeSubscription}`);
}

const USAGE = `usage: npm run bootstrap -- before-infra|after-infra [--dry-run]
  --repo owner/name --subscription <id> --resource-group <name> --location <region>
  --publisher-email <address> --reviewers <login,login> [--smoke-tenant contoso]
  [--api-app-name summary-api] [--smoke-app-name summary-smoke-uat]`;

/** Reads the command line; throws with the usage on anything missing or unknown. */
export function parseCommandLine(args: readonly string[]): { phase: 'before-infra' | 'after-infra'; dryRun: boolean; inputs: Inputs } {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      'dry-run': { type: 'boolean', default: false },
      repo: { type: 'string' }, subscription: { type: 'string' }, 'resource-group': { type: 'string' }, location: { type: 'string' },
      'publisher-email': { type: 'string' }, reviewers: { type: 'string' }, 'smoke-tenant': { type: 'string', default: 'contoso' },
      'api-app-name': { type: 'string', default: 'summary-api' }, 'smoke-app-name': { type: 'string', default: 'summary-smoke-uat' },
    },
  });
  const [phase] = positionals;
  if ((phase !== 'before-infra' && phase !== 'after-infra') || positionals.length !== 1) throw new Error(`name one phase, before-infra or after-infra\n${USAGE}`);
  const required = phase === 'before-infra' ? ['repo', 'subscription', 'resource-group', 'location', 'publisher-email', 'reviewers'] as const : ['subscription', 'resource-group'] as const;
  const missing = required.filter((name) => !values[name]);
  if (missing.length > 0) throw new Error(`missing ${missing.map((name) => `--${name}`).join(', ')}\n${USAGE}`);
  if (values.repo !== undefined && !/^[\w.-]+\/[\w.-]+$/.test(values.repo)) throw new Error(`--repo must be owner/name, not ${values.repo}`);
  return {
    phase,
    dryRun: values['dry-run'],
    inputs: {
      repo: values.repo ?? '', subscriptionId: values.subscription!, resourceGroup: values['resource-group']!, location: values.location ?? '',
      publisherEmail: values['publisher-email'] ?? '', reviewers: (values.reviewers ?? '').split(',').filter(Boolean), smokeTenant: values['smoke-tenant'],
      apiAppName: values['api-app-name'], smokeAppName: values['smoke-app-name'],
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const { phase, dryRun, inputs } = parseCommandLine(process.argv.slice(2));
    const cli = dryRun ? dryRunCli() : realCli();
    if (phase === 'before-infra') beforeInfra(cli, inputs);
    else afterInfra(cli, inputs);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
  }
}
