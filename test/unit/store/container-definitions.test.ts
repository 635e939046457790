import { describe, expect, it } from '@jest/globals';
import { CONTAINER_IDS, RESOURCES, SORTABLE_FIELDS } from '../../../shared/model/resources.js';
import { CONTAINER_DEFINITIONS, containerDefinition } from '../../../shared/store/container-definitions.js';

describe('CONTAINER_DEFINITIONS', () => {
  it.each(RESOURCES)('names the %s container after the model and partitions it by tenant', (resource) => {
    const definition = containerDefinition(resource);
    expect(definition.id).toBe(CONTAINER_IDS[resource]);
    expect(definition.partitionKey).toEqual({ paths: ['/tenantId'], kind: 'Hash', version: 2 });
  });

  it.each(RESOURCES)('has (field, id) composite indexes in both directions for every sortable %s field', (resource) => {
    const expected = SORTABLE_FIELDS[resource].flatMap((field) => [
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
    expect(JSON.parse(JSON.stringify(CONTAINER_DEFINITIONS))).toEqual(CONTAINER_DEFINITIONS);
  });

  it('cannot be changed at run time', () => {
    const definition = containerDefinition('invoices');
    expect(Object.isFrozen(CONTAINER_DEFINITIONS)).toBe(true);
    expect(() => {
      (definition.indexingPolicy.compositeIndexes as unknown[]).push([]);
    }).toThrow(TypeError);
  });
});
