/**
 * The bootstrap script and the runbook (docs/deploy.md). No az or gh here: the script runs against
 * a stand-in for the two CLIs (the edge it talks to), in its dry-run form and with a stand-in that
 * finds everything already there (the second run).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { DATAPOINTS } from '../../shared/access/datapoints.js';
import {
  UAT_SLOT_ACTIONS,
  ASSIGNABLE_ROLES,
  ENVIRONMENTS,
  OUTPUTS_READ,
  afterInfra,
  appRoles,
  assignableRolesCondition,
  beforeInfra,
  parseCommandLine,
  type Inputs,
} from '../../infra/scripts/bootstrap.js';
import { dryRunCli, type ChangeOptions, type Cli } from '../../infra/scripts/cli-edge.js';
import { INFRA, ROOT } from './bicep-tree.js';

const INPUTS: Inputs = {
  repo: 'contoso/summary', subscriptionId: '00000000-0000-0000-0000-00000000abcd', resourceGroup: 'rg-summary', location: 'westeurope',
  publisherEmail: 'team@example.com', reviewers: ['alice'], smokeTenant: 'contoso', apiAppName: 'summary-api', smokeAppName: 'summary-smoke-uat',
};
const deployDoc = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');
const mainBicep = readFileSync(join(INFRA, 'main.bicep'), 'utf8');
const workflowSource = readFileSync(join(ROOT, '.github/workflows/deploy-uat.yml'), 'utf8');

interface Change { command: readonly string[]; options: ChangeOptions }

/** A stand-in for az and gh: lookups answer `answer(command)`, changes are recorded. */
function standIn(answer: (command: readonly string[]) => string): Cli & { changes: Change[]; printed: string[] } {
  const printed: string[] = [];
  const dry = dryRunCli((line) => printed.push(line));
  const changes: Change[] = [];
  return {
    changes,
    printed,
    read: (command) => { dry.read(command); return answer(command); },
    change: (command, options = {}) => { changes.push({ command, options }); return dry.change(command, options); },
  };
}

/** `gh secret set` / `gh variable set` calls: name → the environments they set it in ('repository' when none). */
function settings(changes: readonly Change[], kind: 'secret' | 'variable'): Map<string, string[]> {
  const set = new Map<string, string[]>();
  for (const { command } of changes) {
    if (command[0] !== 'gh' || command[1] !== kind || command[2] !== 'set') continue;
    const environment = command.includes('--env') ? command[command.indexOf('--env') + 1]! : 'repository';
    set.set(command[3]!, [...(set.get(command[3]!) ?? []), environment].sort());
  }
  return set;
}

/** docs/deploy.md's table of that heading: name → the scopes its row names. */
function documentedScopes(heading: string): Map<string, string[]> {
  const section = deployDoc.split(/^### /m).find((part) => part.toLowerCase().startsWith(heading)) ?? '';
  return new Map([...section.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]*) \|/gm)].map((match) => {
    const environments = [...match[2]!.matchAll(/`([a-z-]+)`/g)].map((environment) => environment[1]!);
    return [match[1]!, environments.length > 0 ? environments.sort() : ['repository']];
  }));
}

describe('npm run bootstrap -- before-infra', () => {
  it('sets every secret and variable of docs/deploy.md in exactly the scopes it names, and the workflow reads no other', () => {
    const cli = standIn(() => '');
    beforeInfra(cli, INPUTS);
    expect(settings(cli.changes, 'secret')).toEqual(documentedScopes('secrets'));
    expect(settings(cli.changes, 'variable')).toEqual(documentedScopes('variables'));
    const used = (context: string) => [...new Set([...workflowSource.matchAll(new RegExp(`\\$\\{\\{\\s*${context}\\.([A-Z0-9_]+)`, 'g'))].map((match) => match[1]!))].sort();
    expect(used('secrets')).toEqual([...documentedScopes('secrets').keys()].sort());
    expect(used('vars')).toEqual([...documentedScopes('variables').keys()].sort());
  });

  it('trusts each deployment identity for its own GitHub environment only, through one federated credential', () => {
    const cli = standIn(() => '');
    beforeInfra(cli, INPUTS);
    const credentials = cli.changes.filter(({ command }) => command.slice(0, 4).join(' ') === 'az identity federated-credential create');
    const flag = (command: readonly string[], name: string) => command[command.indexOf(name) + 1];
    expect(credentials.map(({ command }) => [flag(command, '--identity-name'), flag(command, '--subject')])).toEqual(
      ENVIRONMENTS.map((environment) => [`id-summary-deploy-${environment}`, `repo:contoso/summary:environment:${environment}`]));
    for (const { command } of credentials) {
      expect(flag(command, '--issuer')).toBe('https://token.actions.githubusercontent.com');
      expect(flag(command, '--audiences')).toBe('api://AzureADTokenExchange');
    }
    expect(cli.changes.some(({ command }) => command.includes('--client-secret') || command.includes('--password'))).toBe(false);
  });

  it('never prints or passes as an argument a secret it generates: they reach gh on stdin', () => {
    const cli = standIn(() => '');
    beforeInfra(cli, INPUTS);
    const secrets = cli.changes.filter(({ options }) => options.secret === true);
    expect(secrets.length).toBeGreaterThanOrEqual(8);
    const keys = secrets.filter(({ command }) => /BACKEND_API_KEYS|SMOKE_API_KEY/.test(command[3] ?? '')).map(({ options }) => options.input!);
    expect(keys).toHaveLength(3);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{64}$/);
    // The uat key the smoke test presents is the one the uat slot accepts; production's is another.
    expect(new Set(keys).size).toBe(2);
    const printed = cli.printed.join('\n');
    for (const key of keys) expect(printed).not.toContain(key);
    for (const { command } of secrets) expect(command.slice(0, 3)).toEqual(['gh', 'secret', 'set']);
    expect(cli.changes.filter(({ command }) => command[1] === 'secret').every(({ command }) => !command.includes('--body'))).toBe(true);
  });

  it('gives the production identity Contributor and a role-assignment right limited to the roles the templates assign', () => {
    const used = new Set<string>();
    for (const file of ['main.bicep', ...readFileSync(join(INFRA, 'main.bicep'), 'utf8').matchAll(/'modules\/([\w-]+\.bicep)'/g)].map((entry) => typeof entry === 'string' ? entry : `modules/${entry[1]}`)) {
      for (const match of readFileSync(join(INFRA, file), 'utf8').matchAll(/RoleDefinitionId = '([0-9a-f-]{36})'/g)) used.add(match[1]!);
    }
    const cosmosDataPlane = [...used].filter((guid) => guid.startsWith('00000000-0000-0000-0000-'));
    expect(cosmosDataPlane.length).toBe(2);
    expect(Object.values(ASSIGNABLE_ROLES).sort()).toEqual([...used].filter((guid) => !cosmosDataPlane.includes(guid)).sort());
    const cli = standIn(() => '');
    beforeInfra(cli, INPUTS);
    const administrator = cli.changes.find(({ command }) => command.includes('Role Based Access Control Administrator'))!.command;
    expect(administrator[administrator.indexOf('--condition') + 1]).toBe(assignableRolesCondition());
    for (const guid of Object.values(ASSIGNABLE_ROLES)) expect(assignableRolesCondition().split(guid)).toHaveLength(3);
  });

  it('declares the app roles of the datapoints configuration, keeping the ids of roles that exist', () => {
    const roles = appRoles(new Map([['Data.Read', '11111111-1111-1111-1111-111111111111']])) as { value: string; id: string; allowedMemberTypes: string[] }[];
    expect(roles.map((role) => role.value)).toEqual(Object.keys(DATAPOINTS));
    expect(roles[0]!.id).toBe('11111111-1111-1111-1111-111111111111');
    for (const role of roles) expect(role.allowedMemberTypes).toEqual(['Application']);
  });

  it('changes nothing that is already there when run again: no create, no new secret, no new key', () => {
    // The second run: every lookup finds something (an id, a name, a role assignment).
    const cli = standIn((command) => {
      if (command.includes('[clientId, principalId]')) return 'client-id\tprincipal-id';
      if (command.includes('{roles: appRoles}')) return JSON.stringify({ roles: [{ value: 'Data.Read', id: '11111111-1111-1111-1111-111111111111' }] });
      return 'found';
    });
    beforeInfra(cli, INPUTS);
    const changed = cli.changes.map(({ command }) => command.join(' '));
    expect(changed.filter((line) => / create | reset |POST/.test(line) && !line.startsWith('az group create'))).toEqual([]);
    expect(changed.filter((line) => /BACKEND_API_KEYS|SMOKE_API_KEY|SMOKE_CLIENT_SECRET|CLIENT_REGISTRY/.test(line))).toEqual([]);
    // What it re-applies is declarative: the group, the app registration (keeping the role ids), environments, ids.
    expect(changed.length).toBeGreaterThan(5);
    const update = cli.changes.find(({ command }) => command.slice(0, 4).join(' ') === 'az ad app update')!.command;
    const roles = JSON.parse(update[update.indexOf('--app-roles') + 1]!) as { id: string; isEnabled: boolean; value: string }[];
    expect(roles.find((role) => role.value === 'Data.Read')).toMatchObject({ id: '11111111-1111-1111-1111-111111111111', isEnabled: true });
  });
});

describe('npm run bootstrap -- after-infra', () => {
  it('reads only outputs main.bicep declares and grants the uat identity the slot and the smoke subscription only', () => {
    for (const name of OUTPUTS_READ) expect([name, new RegExp(`^output ${name} `, 'm').test(mainBicep)]).toEqual([name, true]);
    const outputs = { functionAppName: { value: 'func-summary-x' }, functionAppSlotName: { value: 'uat' }, apiManagementName: { value: 'apim-summary-x' }, uatSubscriptionNames: { value: { 'smoke-app': 'uat-smoke-app' } } };
    const cli = standIn((command) => {
      const line = command.join(' ');
      if (line.startsWith('az deployment group list')) return 'deployment-7';
      if (line.startsWith('az deployment group show')) return JSON.stringify(outputs);
      if (line.startsWith('az identity show')) return 'uat-principal';
      if (line.startsWith("az ad app list --filter displayName eq 'summary-smoke-uat'")) return 'smoke-app';
      if (line.startsWith('az role definition list')) return line.includes('slot deployer') ? 'slot-deployer-role' : 'key-reader-role';
      return '';
    });
    afterInfra(cli, INPUTS);
    const grants = cli.changes.filter(({ command }) => command.slice(0, 4).join(' ') === 'az role assignment create').map(({ command }) => [
      command[command.indexOf('--assignee-object-id') + 1], command[command.indexOf('--role') + 1], command[command.indexOf('--scope') + 1]]);
    const group = '/subscriptions/00000000-0000-0000-0000-00000000abcd/resourceGroups/rg-summary';
    expect(grants).toEqual([
      ['uat-principal', 'slot-deployer-role', `${group}/providers/Microsoft.Web/sites/func-summary-x/slots/uat`],
      ['uat-principal', 'Reader', `${group}/providers/Microsoft.Web/sites/func-summary-x`],
      ['uat-principal', 'key-reader-role', `${group}/providers/Microsoft.ApiManagement/service/apim-summary-x/subscriptions/uat-smoke-app`],
    ]);
  });
});

describe('the uat identity\'s rights on the slot', () => {
  /** Whether an Azure RBAC action pattern (with `*` wildcards, case-insensitive) covers `action`. */
  const covers = (pattern: string, action: string) => new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.\\/]/g, '\\$&')).join('.*')}$`, 'i').test(action);

  it('are what pointing the slot at a package needs, and never a swap into production, a slot write or a delete', () => {
    const forbidden = ['Microsoft.Web/sites/slots/slotsswap/action', 'Microsoft.Web/sites/slotsswap/action', 'Microsoft.Web/sites/slots/write', 'Microsoft.Web/sites/slots/delete', 'Microsoft.Web/sites/slots/publishxml/action', 'Microsoft.Web/sites/write'];
    for (const action of forbidden) expect([action, UAT_SLOT_ACTIONS.filter((pattern) => covers(pattern, action))]).toEqual([action, []]);
    // The wildcard check itself: Website Contributor's pattern would have covered the swap.
    expect(covers('Microsoft.Web/sites/*', 'Microsoft.Web/sites/slots/slotsswap/action')).toBe(true);
    // What the pipeline's `az functionapp config appsettings set --slot` calls on the slot.
    for (const action of ['Microsoft.Web/sites/slots/read', 'Microsoft.Web/sites/slots/config/list/action', 'Microsoft.Web/sites/slots/config/write']) {
      expect([action, UAT_SLOT_ACTIONS.some((pattern) => covers(pattern, action))]).toEqual([action, true]);
    }
    expect(workflowSource).toMatch(/az functionapp config appsettings set \\\n(.*\\\n)*\s+--slot "\$SLOT_NAME"/);
  });

  it('are granted as a custom role whose actions are exactly those, assignable in the resource group only', () => {
    const cli = standIn((command) => (command.join(' ').startsWith('az deployment group show') ? JSON.stringify({ functionAppName: { value: 'f' }, functionAppSlotName: { value: 'uat' }, apiManagementName: { value: 'a' }, uatSubscriptionNames: { value: {} } }) : ''));
    afterInfra(cli, INPUTS);
    const created = cli.changes.map(({ command }) => command).filter((command) => command.slice(0, 4).join(' ') === 'az role definition create')
      .map((command) => JSON.parse(command[command.indexOf('--role-definition') + 1]!) as { Name: string; Actions: string[]; AssignableScopes: string[] });
    const deployer = created.find((definition) => definition.Name === 'Summary UAT slot deployer')!;
    expect(deployer.Actions).toEqual([...UAT_SLOT_ACTIONS]);
    expect(deployer.AssignableScopes).toEqual(['/subscriptions/00000000-0000-0000-0000-00000000abcd/resourceGroups/rg-summary']);
  });
});

describe('finding the app registrations', () => {
  it('matches the display name exactly and stops when two registrations carry it', () => {
    const cli = standIn((command) => (command.includes('list') && command.includes('app') ? 'app-one\napp-two' : ''));
    expect(() => beforeInfra(cli, INPUTS)).toThrow(/2 app registrations are named summary-api/);
    const lookup = cli.printed.find((line) => line.startsWith('? az ad app list'))!;
    expect(lookup).toContain("--filter 'displayName eq '\\''summary-api'\\'''");
    expect(lookup).not.toContain('--display-name');
  });
});

describe('the command line', () => {
  it('names what is missing and refuses an unknown phase or a malformed repository', () => {
    expect(() => parseCommandLine(['before-infra', '--subscription', 's'])).toThrow(/missing --repo, --resource-group, --location, --publisher-email, --reviewers/);
    expect(() => parseCommandLine(['everything'])).toThrow(/before-infra or after-infra/);
    expect(() => parseCommandLine(['after-infra', '--subscription', 's', '--resource-group', 'g', '--repo', 'not a repo'])).toThrow(/owner\/name/);
    expect(parseCommandLine(['after-infra', '--dry-run', '--subscription', 's', '--resource-group', 'g'])).toMatchObject({ phase: 'after-infra', dryRun: true });
  });
});

describe('the runbook (docs/deploy.md)', () => {
  const runbook = deployDoc.slice(deployDoc.indexOf('## Runbook'), deployDoc.indexOf('\n## ', deployDoc.indexOf('## Runbook') + 3));
  const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
  const workflow = parse(workflowSource) as { on: { workflow_dispatch: { inputs: Record<string, unknown> } } };

  it('is there, in order: bootstrap, the first infrastructure run, the uat rights, the pipeline', () => {
    const steps = ['npm run bootstrap -- before-infra', 'infrastructure_only=true', 'npm run bootstrap -- after-infra', 'gh workflow run deploy-uat.yml --ref main`'];
    const positions = steps.map((step) => runbook.indexOf(step));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('names only outputs main.bicep declares, npm scripts package.json has, workflow inputs and files that exist', () => {
    const outputs = [...runbook.matchAll(/`(\w+)`/g)].map((match) => match[1]!).filter((name) => /^[a-z]+[A-Z]\w*$/.test(name) && !name.startsWith('id'));
    expect(outputs.length).toBeGreaterThanOrEqual(6);
    for (const name of outputs) expect([name, new RegExp(`^output ${name} `, 'm').test(mainBicep)]).toEqual([name, true]);
    for (const [, script] of runbook.matchAll(/npm run ([\w:-]+)/g)) expect(scripts).toContain(script);
    for (const [, input] of runbook.matchAll(/-f (\w+)=/g)) expect(Object.keys(workflow.on.workflow_dispatch.inputs)).toContain(input);
    for (const [, file] of runbook.matchAll(/`((?:infra|shared)\/[\w./-]+)`/g)) expect(() => readFileSync(join(ROOT, file!))).not.toThrow();
    for (const [, flag] of runbook.matchAll(/ (--[a-z-]+) </g)) expect(['--repo', '--subscription', '--resource-group', '--location', '--publisher-email', '--reviewers', '--slot', '--name', '--body']).toContain(flag);
  });
});
