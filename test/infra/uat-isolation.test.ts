import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { INFRA, assignedValue, at, declaration, deployables, literalString, parseBicepFile, resourcesOfType, type BicepFile } from './bicep-tree.js';

// UAT is its own environment behind the slot (issue 20, point 1): what each slot reads follows the
// slot, not the code, so a swap moves code and never data access. Held offline over the templates.
let main: BicepFile;
let settings: BicepFile;

beforeAll(async () => {
  main = await parseBicepFile(join(INFRA, 'main.bicep'));
  settings = await parseBicepFile(join(INFRA, 'modules/function-app-settings.bicep'));
});

describe('UAT apart from production', () => {
  it('points each slot at its own data through a sticky COSMOS_ENDPOINT', () => {
    const sticky = resourcesOfType(settings, 'Microsoft.Web/sites/config').find((resource) => at(resource.body, 'name')?.text === "'slotConfigNames'");
    const names = at(sticky?.body, 'properties', 'appSettingNames')?.namedChildren.map((node) => literalString(node));
    expect(names).toContain('COSMOS_ENDPOINT');
    expect(at(assignedValue(declaration(settings, 'variable_declaration', 'productionSlotSettings')), 'COSMOS_ENDPOINT')?.text).toBe('cosmosEndpoint');
    expect(at(assignedValue(declaration(settings, 'variable_declaration', 'uatSlotSettings')), 'COSMOS_ENDPOINT')?.text).toBe('uatCosmosEndpoint');
    expect(at(assignedValue(declaration(settings, 'variable_declaration', 'serviceSettings')), 'COSMOS_ENDPOINT')).toBeUndefined();
  });

  it('gives each slot a host storage of its own (its keys), both reading the packages', () => {
    const storage = deployables(main, 'module_declaration').filter((candidate) => candidate.type === 'modules/storage-account.bicep');
    const param = (symbol: string, name: string) => at(storage.find((candidate) => candidate.symbol === symbol)?.body, 'params', name)?.namedChildren.map((node) => node.text);
    expect(param('storageAccount', 'hostPrincipalIds')).toEqual(['functionApp.outputs.principalId']);
    expect(param('uatStorageAccount', 'hostPrincipalIds')).toEqual(['functionApp.outputs.slotPrincipalId']);
    expect(param('storageAccount', 'packageReaderPrincipalIds')).toEqual(['functionApp.outputs.principalId', 'functionApp.outputs.slotPrincipalId']);
    expect(param('uatStorageAccount', 'packageReaderPrincipalIds')).toBeUndefined();
    expect(at(assignedValue(declaration(settings, 'variable_declaration', 'uatSlotSettings')), 'AzureWebJobsStorage__accountName')?.text).toBe('uatStorageAccountName');
    expect(at(assignedValue(declaration(settings, 'variable_declaration', 'productionSlotSettings')), 'AzureWebJobsStorage__accountName')?.text).toBe('storageAccountName');
  });

  it('takes who may read what (CLIENT_REGISTRY) from a Key Vault secret per slot, as the API keys, each read by its slot only', () => {
    for (const [variable, uri] of [['productionSlotSettings', 'clientRegistrySecretUri'], ['uatSlotSettings', 'uatClientRegistrySecretUri']] as const) {
      expect(at(assignedValue(declaration(settings, 'variable_declaration', variable)), 'CLIENT_REGISTRY')?.text).toBe(`'@Microsoft.KeyVault(SecretUri=\${${uri}})'`);
    }
    const readers = (symbol: string) => at(deployables(main, 'module_declaration').find((candidate) => candidate.symbol === symbol)?.body, 'params', 'readerPrincipalIds')?.namedChildren.map((node) => node.text);
    expect(readers('clientRegistrySecret')).toEqual(['functionApp.outputs.principalId']);
    expect(readers('uatClientRegistrySecret')).toEqual(['functionApp.outputs.slotPrincipalId']);
  });

  it('hands the settings the endpoint of the account each slot may read', () => {
    const module = deployables(main, 'module_declaration').find((candidate) => candidate.symbol === 'functionAppSettings');
    expect(at(module?.body, 'params', 'cosmosEndpoint')?.text).toBe('cosmosDbAccount.outputs.endpoint');
    expect(at(module?.body, 'params', 'uatCosmosEndpoint')?.text).toBe('uatCosmosDbAccount.outputs.endpoint');
    const readers = (name: string) => at(deployables(main, 'module_declaration').find((candidate) => candidate.symbol === name)?.body, 'params', 'readerPrincipalIds')?.namedChildren.map((node) => node.text);
    expect(readers('cosmosDbAccount')).toEqual(['functionApp.outputs.principalId']);
    expect(readers('uatCosmosDbAccount')).toEqual(['functionApp.outputs.slotPrincipalId']);
  });
});
