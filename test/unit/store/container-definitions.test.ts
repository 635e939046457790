import { describe, expect, it } from '@jest/globals';
import { INVOICES } from '../../../shared/model/invoices.js';
import { RESOURCES } from '../../../shared/model/resources.js';
import { containerDefinition } from '../../../shared/store/container-definitions.js';

const named = RESOURCES.map((resource) => [resource.name, resource] as const);

describe('containerDefinition', () => {
  it.each(named)('names the %s container after the definition and partitions it by tenant', (_name, resource) => {
    const definition = containerDefinition(resource);
    expect(definition.id).toBe(resource.containerId);
    expect(definition.partitionKey).toEqual({ paths: ['/tenantId', '/id'], kind: 'MultiHash', version: 2 });
  });

  it.each(named)('has (field, id) composite indexes in both directions for every sortable %s field', (_name, resource) => {
    const expected = resource.sortable.flatMap((field) => [
      [{ path: `/${field}`, order: 'ascending' }, { path: '/id', order: 'ascending' }],
      [{ path: `/${field}`, order: 'descending' }, { path: '/id', order: 'descending' }],
    ]);
    expect(containerDefinition(resource).indexingPolicy.compositeIndexes).toEqual(expected);
  });

  it('indexes every other path with the default consistent policy', () => {
    for (const resource of RESOURCES) {
      const policy = containerDefinition(resource).indexingPolicy;
      expect(policy).toMatchObject({ indexingMode: 'consistent', automatic: true, includedPaths: [{ path: '/*' }] });
    }
  });

  it('is plain JSON data, so Bicep can be compared with it', () => {
    const definitions = RESOURCES.map(containerDefinition);
    expect(JSON.parse(JSON.stringify(definitions))).toEqual(definitions);
  });

  it('cannot be changed at run time', () => {
    const definition = containerDefinition(INVOICES);
    expect(Object.isFrozen(definition)).toBe(true);
    expect(() => {
      (definition.indexingPolicy.compositeIndexes as unknown[]).push([]);
    }).toThrow(TypeError);
  });
});
