import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { COSMOS_CONTAINERS_PATH, renderCosmosContainers } from '../../infra/scripts/render-cosmos-containers.js';
import { containerDefinition } from '../../shared/store/container-definitions.js';
import { PARTITION_KEY_PATHS } from '../../shared/model/resource-definition.js';
import { DATABASE_ID, RESOURCES } from '../../shared/model/resources.js';
import {
  INFRA,
  ROOT,
  assignedValue,
  at,
  declaration,
  declarations,
  declaredName,
  deployables,
  filesUnder,
  literalString,
  parseBicepFile,
  resourcesOfType,
  stringArgumentsOf,
  type BicepFile,
} from './bicep-tree.js';

interface ContainersDocument {
  databaseId: string;
  containers: { id: string; partitionKey: { paths: string[] }; indexingPolicy: { compositeIndexes: { path: string; order: string }[][] } }[];
}

const committed = readFileSync(join(ROOT, COSMOS_CONTAINERS_PATH), 'utf8');
const document = JSON.parse(committed) as ContainersDocument;
let cosmos: BicepFile;
let main: BicepFile;

beforeAll(async () => {
  cosmos = await parseBicepFile(join(INFRA, 'modules/cosmos-db-account.bicep'));
  main = await parseBicepFile(join(INFRA, 'main.bicep'));
});

describe('the committed Cosmos container document', () => {
  it('is exactly what `npm run infra:containers` writes from the code\'s container definitions', () => {
    // When this fails: run `npm run infra:containers` and commit infra/generated/cosmos-containers.json.
    expect(committed).toBe(renderCosmosContainers());
  });

  it('holds database summary with the contracts and invoices containers, partitioned by tenant then id, and the page cursors by tenant', () => {
    expect(document.databaseId).toBe(DATABASE_ID);
    expect(document.databaseId).toBe('summary');
    expect(document.containers.map((container) => container.id)).toEqual(['contracts', 'invoices', 'pageCursors', 'exportJobs']);
    for (const container of document.containers.slice(0, 2)) expect(container.partitionKey).toEqual({ paths: [...PARTITION_KEY_PATHS], kind: 'MultiHash', version: 2 });
    expect(PARTITION_KEY_PATHS).toEqual(['/tenantId', '/id']);
    expect(document.containers[2]).toMatchObject({ partitionKey: { paths: ['/tenantId'], kind: 'Hash' }, defaultTtl: expect.any(Number) });
    // Export jobs: every document sets its own ttl (-1: on, no default).
    expect(document.containers[3]).toMatchObject({ partitionKey: { paths: ['/tenantId'], kind: 'Hash' }, defaultTtl: -1 });
  });

  it('has a (field, id) composite index in both directions for every sortable field', () => {
    for (const container of document.containers.slice(0, 2)) {
      const resource = RESOURCES.find((candidate) => candidate.containerId === container.id)!;
      const indexed = container.indexingPolicy.compositeIndexes.map((pair) => pair.map((path) => `${path.path} ${path.order}`).join(', '));
      const expected = resource.sortable.flatMap((field) => [
        `/${field} ascending, /id ascending`,
        `/${field} descending, /id descending`,
      ]);
      expect(indexed).toEqual(expected);
      expect(container).toEqual(JSON.parse(JSON.stringify(containerDefinition(resource))));
    }
  });
});

describe('the Cosmos DB Bicep module', () => {
  it('loads the generated document, and nothing else defines containers', () => {
    const loaded = stringArgumentsOf(cosmos, 'loadJsonContent').map((path) => resolve(INFRA, 'modules', path));
    expect(loaded).toEqual([join(ROOT, COSMOS_CONTAINERS_PATH)]);
    expect(assignedValue(declaration(cosmos, 'variable_declaration', 'definition'))?.text).toBe("loadJsonContent('../generated/cosmos-containers.json')");
  });

  it('creates the database and one container per definition, with the definition\'s partition key and indexing policy', () => {
    const [database] = resourcesOfType(cosmos, 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases');
    expect(at(database?.body, 'name')?.text).toBe('definition.databaseId');
    const [containers] = resourcesOfType(cosmos, 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers');
    expect(containers?.loop?.text).toMatch(/^\[for container in definition\.containers:/);
    const resource = at(containers?.body, 'properties', 'resource');
    expect(resource?.text).toMatch(/^union\(\{\s*id: container\.id\s*partitionKey: container\.partitionKey\s*indexingPolicy: container\.indexingPolicy\s*\}, contains\(container, 'defaultTtl'\) \? \{ defaultTtl: container\.defaultTtl \} : \{\}\)$/);
  });

  it('disables key (local) auth', () => {
    const [account] = resourcesOfType(cosmos, 'Microsoft.DocumentDB/databaseAccounts');
    expect(at(account?.body, 'properties', 'disableLocalAuth')?.text).toBe('true');
    expect(at(account?.body, 'properties', 'disableKeyBasedMetadataWriteAccess')?.text).toBe('true');
  });

  it('grants the built-in Data Reader role (data plane) on the database, Data Contributor on the page cursors and export jobs only, and no other role', () => {
    const [readers, writers, jobWriters, seeders, ...others] = resourcesOfType(cosmos, 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments');
    expect(jobWriters?.loop?.text).toMatch(/^\[for principalId in readerPrincipalIds:/);
    expect(at(jobWriters?.body, 'properties', 'roleDefinitionId')?.text).toBe("'${account.id}/sqlRoleDefinitions/${dataContributorRoleDefinitionId}'");
    expect(at(jobWriters?.body, 'properties', 'scope')?.text).toBe("'${account.id}/dbs/${definition.databaseId}/colls/${definition.exportJobsContainerId}'");
    expect((JSON.parse(committed) as { exportJobsContainerId: string }).exportJobsContainerId).toBe('exportJobs');
    expect(others.length).toBe(0);
    // The sandbox's deployer (and nobody by default): Data Contributor on the database, to seed it.
    expect(seeders?.loop?.text).toMatch(/^\[for principalId in writerPrincipalIds:/);
    expect(at(seeders?.body, 'properties', 'roleDefinitionId')?.text).toBe("'${account.id}/sqlRoleDefinitions/${dataContributorRoleDefinitionId}'");
    expect(at(seeders?.body, 'properties', 'scope')?.text).toBe("'${account.id}/dbs/${definition.databaseId}'");
    expect(declarations(cosmos, 'parameter_declaration').find((node) => declaredName(node) === 'writerPrincipalIds')?.text).toMatch(/= \[\]$/);
    expect(writers?.loop?.text).toMatch(/^\[for principalId in readerPrincipalIds:/);
    expect(literalString(assignedValue(declaration(cosmos, 'variable_declaration', 'dataContributorRoleDefinitionId')))).toBe('00000000-0000-0000-0000-000000000002');
    expect(at(writers?.body, 'properties', 'roleDefinitionId')?.text).toBe("'${account.id}/sqlRoleDefinitions/${dataContributorRoleDefinitionId}'");
    expect(at(writers?.body, 'properties', 'scope')?.text).toBe("'${account.id}/dbs/${definition.databaseId}/colls/${definition.pageCursorsContainerId}'");
    expect((JSON.parse(committed) as { pageCursorsContainerId: string }).pageCursorsContainerId).toBe('pageCursors');
    expect(readers?.loop?.text).toMatch(/^\[for principalId in readerPrincipalIds:/);
    expect(literalString(assignedValue(declaration(cosmos, 'variable_declaration', 'dataReaderRoleDefinitionId')))).toBe('00000000-0000-0000-0000-000000000001');
    expect(at(readers?.body, 'properties', 'roleDefinitionId')?.text).toBe("'${account.id}/sqlRoleDefinitions/${dataReaderRoleDefinitionId}'");
    expect(at(readers?.body, 'properties', 'scope')?.text).toBe("'${account.id}/dbs/${definition.databaseId}'");
    expect(resourcesOfType(cosmos, 'Microsoft.DocumentDB/databaseAccounts/sqlRoleDefinitions')).toEqual([]);
    expect(resourcesOfType(cosmos, 'Microsoft.Authorization/roleAssignments')).toEqual([]);
  });

  it('is deployed twice, production data and UAT data, each read by one slot\'s identity only (a swap moves code, never data access)', () => {
    const accounts = deployables(main, 'module_declaration').filter((candidate) => candidate.type === 'modules/cosmos-db-account.bicep');
    const readersOf = Object.fromEntries(accounts.map((account) => [account.symbol, at(account.body, 'params', 'readerPrincipalIds')?.namedChildren.map((node) => node.text)]));
    expect(readersOf).toEqual({ cosmosDbAccount: ['functionApp.outputs.principalId'], uatCosmosDbAccount: ['functionApp.outputs.slotPrincipalId'] });
    const names = accounts.map((account) => at(account.body, 'params', 'name')?.text);
    expect(new Set(names).size).toBe(2);
  });

  it('is the only template that touches Cosmos DB roles', async () => {
    const others = filesUnder(INFRA, ['.bicep']).filter((path) => !path.endsWith('cosmos-db-account.bicep'));
    for (const path of others) {
      const file = await parseBicepFile(path);
      expect(resourcesOfType(file, 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments')).toEqual([]);
    }
  });
});
