import { beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { EXPORT_STORAGE } from '../../shared/exports/export-storage.js';
import { DELTA_BLOB_KINDS, DELTA_CONTAINER } from '../../shared/delta/delta-blobs.js';
import { DELTA_PAGES_HOURS } from '../../shared/model/delta-operations.js';
import { settingDefaults } from '../../shared/config/load-config.js';
import { assignedValue, at, declaration, deployables, INFRA, literalString, parseBicepFile, properties, resourcesOfType, type BicepFile } from './bicep-tree.js';


let module: BicepFile;
let main: BicepFile;

beforeAll(async () => {
  module = await parseBicepFile(join(INFRA, 'modules/export-storage.bicep'));
  main = await parseBicepFile(join(INFRA, 'main.bicep'));
});

describe('the export storage account', () => {
  it('names its container and queues as the service does', () => {
    const names = Object.fromEntries([...properties(assignedValue(declaration(module, 'variable_declaration', 'storage'))!)].map(([key, value]) => [key, literalString(value)]));
    expect(names).toEqual({ ...EXPORT_STORAGE });
  });

  it('keeps the delta feed\'s states and pages in a container of the service\'s name, each kind deleted by its own rule after its life', () => {
    const names = Object.fromEntries([...properties(assignedValue(declaration(module, 'variable_declaration', 'delta'))!)].map(([key, value]) => [key, literalString(value)]));
    expect(names).toEqual({ container: DELTA_CONTAINER, ...DELTA_BLOB_KINDS });
    const [policy] = resourcesOfType(module, 'Microsoft.Storage/storageAccounts/managementPolicies');
    expect(policy?.body.text).toContain("'${delta.container}/${delta.states}'");
    expect(policy?.body.text).toContain('daysAfterModificationGreaterThan: deltaTokenDays + 1');
    expect(policy?.body.text).toContain("'${delta.container}/${delta.pages}'");
    // Pages are answered 24 hours (DELTA_PAGES_HOURS): deleted after a day.
    expect(DELTA_PAGES_HOURS).toBeLessThanOrEqual(24);
    const days = declaration(module, 'parameter_declaration', 'deltaTokenDays');
    expect(Number(/= (\d+)$/.exec(days?.text ?? '')?.[1])).toBe(settingDefaults().DELTA_TOKEN_DAYS);
    const modules = deployables(main, 'module_declaration').filter((candidate) => candidate.type === 'modules/export-storage.bicep');
    expect(modules.map((candidate) => at(candidate.body, 'params', 'deltaTokenDays')?.text)).toEqual(['serviceLimits.?deltaTokenDays ?? 30', 'serviceLimits.?deltaTokenDays ?? 30']);
  });

  it('takes no account key (shared-key access off, Entra ID by default), https and TLS 1.2 only, no anonymous blobs', () => {
    const [account] = resourcesOfType(module, 'Microsoft.Storage/storageAccounts');
    expect(at(account?.body, 'properties', 'allowSharedKeyAccess')?.text).toBe('false');
    expect(at(account?.body, 'properties', 'defaultToOAuthAuthentication')?.text).toBe('true');
    expect(at(account?.body, 'properties', 'allowBlobPublicAccess')?.text).toBe('false');
    expect(at(account?.body, 'properties', 'supportsHttpsTrafficOnly')?.text).toBe('true');
    expect(literalString(at(account?.body, 'properties', 'minimumTlsVersion'))).toBe('TLS1_2');
    expect(module.source).not.toMatch(/listKeys|AccountKey|listServiceSas|listAccountSas/);
  });

  it('deletes files by a lifecycle rule on the container, after more days than a job may live (7)', () => {
    const [policy] = resourcesOfType(module, 'Microsoft.Storage/storageAccounts/managementPolicies');
    expect(policy?.body.text).toContain("'${storage.container}/'");
    expect(policy?.body.text).toContain('daysAfterModificationGreaterThan: fileRetentionDays');
    const retention = declaration(module, 'parameter_declaration', 'fileRetentionDays');
    expect(Number(/= (\d+)$/.exec(retention?.text ?? '')?.[1])).toBeGreaterThan(7);
  });

  it('grants the slot identity blob data on the two containers, queue data on the two queues and the delegator role, nothing more', () => {
    const assignments = resourcesOfType(module, 'Microsoft.Authorization/roleAssignments');
    expect(assignments.map((assignment) => [assignment.symbol, at(assignment.body, 'scope')?.text])).toEqual([
      ['fileWriter', 'container'],
      ['deltaWriter', 'deltaContainer'],
      ['queueWorkers', 'queues[index]'],
      ['delegator', 'storageAccount'],
    ]);
    const role = (name: string) => literalString(assignedValue(declaration(module, 'variable_declaration', name)));
    expect([role('storageBlobDataContributorRoleDefinitionId'), role('storageQueueDataContributorRoleDefinitionId'), role('storageBlobDelegatorRoleDefinitionId')])
      .toEqual(['ba92f5b4-2d11-453d-a403-e96b0029c9fe', '974c5e8b-45b9-4653-ba55-5f855dd0fb88', 'db58b8e5-c6ad-4a2a-8342-4190687cbf4a']);
  });

  it('is one account per slot, each given only to its slot\'s identity', () => {
    const modules = deployables(main, 'module_declaration').filter((candidate) => candidate.type === 'modules/export-storage.bicep');
    expect(modules.map((candidate) => at(candidate.body, 'params', 'principalId')?.text)).toEqual(['functionApp.outputs.principalId', 'functionApp.outputs.slotPrincipalId']);
    expect(new Set(modules.map((candidate) => at(candidate.body, 'params', 'name')?.text)).size).toBe(2);
  });
});
