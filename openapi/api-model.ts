import { DATAPOINTS, type RoleDatapoints } from '../shared/access/datapoints.js';
import type { ResourceDefinition } from '../shared/model/resource-definition.js';
import { RESOURCES } from '../shared/model/resources.js';

/** What the document describes: the resources and the roles → datapoints configuration that gates them. */
export interface ApiModel {
  readonly resources: readonly ResourceDefinition[];
  readonly datapoints: Readonly<Record<string, RoleDatapoints>>;
}

/** The service as it is deployed. */
export const SERVICE_MODEL: ApiModel = { resources: RESOURCES, datapoints: DATAPOINTS };
