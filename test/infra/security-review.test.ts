import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { INFRA, assignedValue, at, declaration, deployables, literalString, parseBicepFile, resourcesOfType, type BicepFile } from './bicep-tree.js';

// The review's template findings (issue 10, points 5 and 8), held offline: storage rights and
// immutable packages; logs of every data store and the gateway in Log Analytics, telemetry only
// with Entra ID, the deployment endpoint closed, the data stores firewalled.
const modules: Record<string, BicepFile> = {};
let main: BicepFile;

beforeAll(async () => {
  for (const name of ['storage-account', 'key-vault', 'cosmos-db-account', 'api-management-service', 'function-app', 'application-insights', 'application-insights-publishers', 'api-management-api', 'function-app-settings']) {
    modules[name] = await parseBicepFile(join(INFRA, `modules/${name}.bicep`));
  }
  main = await parseBicepFile(join(INFRA, 'main.bicep'));
});

const roleAssignments = (file: BicepFile) => resourcesOfType(file, 'Microsoft.Authorization/roleAssignments');
const roleIdOf = (file: BicepFile, assignment: { body: import('web-tree-sitter').Node }) => {
  const variable = at(assignment.body, 'properties', 'roleDefinitionId')?.text.match(/'Microsoft\.Authorization\/roleDefinitions', (\w+)\)$/)?.[1];
  return variable ? literalString(assignedValue(declaration(file, 'variable_declaration', variable))) : undefined;
};

describe('storage (point 5)', () => {
  const OWNER = 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b';
  const READER = '2a2b9908-6ea1-4ae2-8e65-a410df84e7d1';
  const CONTRIBUTOR = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe';

  it('gives no identity blob ownership of the whole account: the host owns its two containers only', () => {
    const storage = modules['storage-account']!;
    const blobOwners = roleAssignments(storage).filter((assignment) => roleIdOf(storage, assignment) === OWNER);
    expect(blobOwners.map((assignment) => at(assignment.body, 'scope')?.text)).toEqual(['hostContainers[assignment.containerIndex]']);
    expect(assignedValue(declaration(storage, 'variable_declaration', 'hostContainerNames'))?.namedChildren.map((node) => literalString(node))).toEqual(['azure-webjobs-hosts', 'azure-webjobs-secrets']);
    for (const assignment of roleAssignments(storage)) {
      if (at(assignment.body, 'scope')?.text === 'storageAccount') expect(roleIdOf(storage, assignment)).toBe('0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3');
    }
  });

  it('lets the slots read the packages and only the uat pipeline identity add them', () => {
    const storage = modules['storage-account']!;
    const onPackages = roleAssignments(storage).filter((assignment) => at(assignment.body, 'scope')?.text === 'packageContainer');
    expect(onPackages.map((assignment) => [assignment.loop?.text.match(/in (\w+):/)?.[1], roleIdOf(storage, assignment)])).toEqual([
      ['packageReaderPrincipalIds', READER],
      ['packageWriterPrincipalIds', CONTRIBUTOR],
    ]);
    const module = deployables(main, 'module_declaration').find((candidate) => candidate.type === 'modules/storage-account.bicep');
    expect(at(module?.body, 'params', 'packageWriterPrincipalIds')?.namedChildren.map((node) => node.text)).toEqual(['packageUploaderPrincipalId']);
    // No role goes to whoever deploys: no call of deployer() anywhere in the template.
    const called = main.root.descendantsOfType('call_expression').map((call) => call.childForFieldName('function')?.text);
    expect(called.length).toBeGreaterThan(5);
    expect(called).not.toContain('deployer');
  });

  it('makes deployed packages immutable: a retention policy on their container and blob versioning', () => {
    const storage = modules['storage-account']!;
    const [policy] = resourcesOfType(storage, 'Microsoft.Storage/storageAccounts/blobServices/containers/immutabilityPolicies');
    expect(at(policy?.body, 'parent')?.text).toBe('packageContainer');
    expect(at(policy?.body, 'properties', 'immutabilityPeriodSinceCreationInDays')?.text).toBe('packageRetentionDays');
    expect(at(policy?.body, 'properties', 'allowProtectedAppendWrites')?.text).toBe('false');
    const [blobService] = resourcesOfType(storage, 'Microsoft.Storage/storageAccounts/blobServices');
    expect(at(blobService?.body, 'properties', 'isVersioningEnabled')?.text).toBe('true');
  });
});

describe('visibility (point 8)', () => {
  const expectedLogs: [string, string, string[]][] = [
    ['key-vault', 'vault', ['AuditEvent']],
    ['cosmos-db-account', 'account', ['DataPlaneRequests', 'QueryRuntimeStatistics', 'ControlPlaneRequests']],
    ['api-management-service', 'service', ['GatewayLogs']],
    ['function-app', 'functionApp', ['FunctionAppLogs']],
    ['function-app', 'uatSlot', ['FunctionAppLogs']],
    ['storage-account', 'blobService', ['StorageRead', 'StorageWrite', 'StorageDelete']],
  ];

  it.each(expectedLogs)('%s sends the logs of %s to Log Analytics', (module, scope, categories) => {
    const settings = resourcesOfType(modules[module]!, 'Microsoft.Insights/diagnosticSettings').find((setting) => at(setting.body, 'scope')?.text === scope);
    expect(at(settings?.body, 'properties', 'workspaceId')?.text).toBe('logAnalyticsWorkspaceId');
    const logs = at(settings?.body, 'properties', 'logs')?.namedChildren.map((entry) => [literalString(at(entry, 'category')), at(entry, 'enabled')?.text]);
    expect(logs).toEqual(categories.map((category) => [category, 'true']));
  });

  it('gives every module with diagnostics the workspace of main.bicep', () => {
    for (const module of new Set(expectedLogs.map(([name]) => name))) {
      const declared = deployables(main, 'module_declaration').find((candidate) => candidate.type === `modules/${module}.bicep`);
      expect([module, at(declared?.body, 'params', 'logAnalyticsWorkspaceId')?.text]).toEqual([module, 'logAnalyticsWorkspace.outputs.resourceId']);
    }
  });

  it('accepts telemetry only with Entra ID: local auth off, the slots and the gateway sign in with their identities', () => {
    const [component] = resourcesOfType(modules['application-insights']!, 'Microsoft.Insights/components');
    expect(at(component?.body, 'properties', 'DisableLocalAuth')?.text).toBe('true');
    const platform = assignedValue(declaration(modules['function-app-settings']!, 'variable_declaration', 'platformSettings'));
    expect(literalString(at(platform, 'APPLICATIONINSIGHTS_AUTHENTICATION_STRING'))).toBe('Authorization=AAD');
    const [logger] = resourcesOfType(modules['api-management-api']!, 'Microsoft.ApiManagement/service/loggers');
    expect(literalString(at(logger?.body, 'properties', 'credentials', 'identityClientId'))).toBe('SystemAssigned');
    const publishers = deployables(main, 'module_declaration').find((candidate) => candidate.type === 'modules/application-insights-publishers.bicep');
    expect(at(publishers?.body, 'params', 'publisherPrincipalIds')?.namedChildren.map((node) => node.text)).toEqual([
      'functionApp.outputs.principalId', 'functionApp.outputs.slotPrincipalId', 'apiManagementService.outputs.principalId',
    ]);
    expect(literalString(assignedValue(declaration(modules['application-insights-publishers']!, 'variable_declaration', 'monitoringMetricsPublisherRoleDefinitionId')))).toBe('3913510d-42f4-4e42-8a64-420c390055eb');
  });

  it('closes the deployment (SCM) site to everyone', () => {
    const siteConfig = assignedValue(declaration(modules['function-app']!, 'variable_declaration', 'siteConfig'));
    expect(literalString(at(siteConfig, 'scmIpSecurityRestrictionsDefaultAction'))).toBe('Deny');
    expect(at(siteConfig, 'scmIpSecurityRestrictionsUseMain')?.text).toBe('false');
  });

  it('firewalls Cosmos DB and Key Vault to the function app\'s outbound addresses (and any added)', () => {
    const [account] = resourcesOfType(modules['cosmos-db-account']!, 'Microsoft.DocumentDB/databaseAccounts');
    expect(at(account?.body, 'properties', 'ipRules')?.text).toMatch(/^map\(allowedIpAddresses, address => \{\s*ipAddressOrRange: address\s*\}\)$/);
    const [vault] = resourcesOfType(modules['key-vault']!, 'Microsoft.KeyVault/vaults');
    expect(literalString(at(vault?.body, 'properties', 'networkAcls', 'defaultAction'))).toBe('Deny');
    expect(at(vault?.body, 'properties', 'networkAcls', 'ipRules')?.text).toMatch(/^map\(allowedIpAddresses, address => \{\s*value: address\s*\}\)$/);
    expect(assignedValue(declaration(main, 'variable_declaration', 'dataStoreAllowedIpAddresses'))?.text).toBe("union(split(functionApp.outputs.possibleOutboundIpAddresses, ','), additionalAllowedIpAddresses)");
    for (const module of ['cosmos-db-account', 'key-vault']) {
      const declared = deployables(main, 'module_declaration').find((candidate) => candidate.type === `modules/${module}.bicep`);
      expect([module, at(declared?.body, 'params', 'allowedIpAddresses')?.text]).toEqual([module, 'dataStoreAllowedIpAddresses']);
    }
  });

  it('firewalls the storage account when given addresses, and says it is open otherwise', () => {
    const [account] = resourcesOfType(modules['storage-account']!, 'Microsoft.Storage/storageAccounts');
    expect(at(account?.body, 'properties', 'networkAcls', 'defaultAction')?.text).toBe("empty(allowedIpAddresses) ? 'Allow' : 'Deny'");
  });
});
