/**
 * Creates the database and containers the local stack needs. In Azure, Bicep creates them from the
 * same `CONTAINER_DEFINITIONS`, and the service's identity has no right to create anything.
 */
import {
  PartitionKeyDefinitionVersion,
  PartitionKeyKind,
  type ContainerRequest,
  type CosmosClient,
} from '@azure/cosmos';
import type { ResourceDefinition } from '../shared/model/resource-definition.js';
import { DATABASE_ID, RESOURCES } from '../shared/model/resources.js';
import { containerDefinition, EXPORT_JOBS_CONTAINER, PAGE_CURSORS_CONTAINER, type ContainerDefinition } from '../shared/store/container-definitions.js';

/** Our frozen, SDK-free definition, copied into the mutable shape the SDK's request type wants. */
function toContainerRequest(definition: ContainerDefinition): ContainerRequest {
  const { indexingPolicy: policy } = definition;
  return {
    id: definition.id,
    partitionKey: {
      paths: [...definition.partitionKey.paths],
      kind: definition.partitionKey.kind === 'MultiHash' ? PartitionKeyKind.MultiHash : PartitionKeyKind.Hash,
      version: PartitionKeyDefinitionVersion.V2,
    },
    ...(definition.defaultTtl !== undefined ? { defaultTtl: definition.defaultTtl } : {}),
    indexingPolicy: {
      indexingMode: policy.indexingMode,
      automatic: policy.automatic,
      includedPaths: policy.includedPaths.map((p) => ({ path: p.path })),
      excludedPaths: policy.excludedPaths.map((p) => ({ path: p.path })),
      compositeIndexes: policy.compositeIndexes.map((index) => index.map((p) => ({ ...p }))),
    },
  };
}

/**
 * Creates database `summary`, the container of every resource, the page-cursor and the export-job containers with
 * their definitions, each only if absent. An existing container keeps whatever policy it has: the embedded server starts empty
 * every time, so there is nothing to migrate locally.
 */
export async function ensureContainers(client: CosmosClient, resources: readonly ResourceDefinition[] = RESOURCES): Promise<void> {
  const { database } = await client.databases.createIfNotExists({ id: DATABASE_ID });
  for (const definition of [...resources.map(containerDefinition), PAGE_CURSORS_CONTAINER, EXPORT_JOBS_CONTAINER]) {
    await database.containers.createIfNotExists(toContainerRequest(definition));
  }
}
