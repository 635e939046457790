import { filterMembers } from '../shared/filters/filter-members.js';
import type { ResourceDefinition } from '../shared/model/resource-definition.js';
import type { ApiModel } from './api-model.js';
import { filterMemberSchema } from './filter-member-schema.js';
import type { JsonObject } from './json-schema.js';
import type { ServiceDefaults } from './service-defaults.js';

/**
 * The request body of a summary operation: the endpoint's filter members (their JSON-body
 * variants), all optional, nothing else allowed.
 */
export function filterBodySchema(model: ApiModel, resource: ResourceDefinition, defaults: ServiceDefaults): JsonObject {
  const properties: JsonObject = {};
  for (const name of Object.keys(filterMembers(resource))) {
    properties[name] = filterMemberSchema(model, resource, name, 'body', defaults);
  }
  return {
    type: 'object',
    description: 'Filters, all optional; an empty body (or none) means no filters. Names are case-sensitive: '
      + 'any other member is 400 `UNKNOWN_FILTER` (the message suggests the right-cased name). '
      + 'Every member may also be sent as a query-string parameter of the same name; when both are given, the body wins. '
      + 'Date filters are YYYY-MM-DD, go in From/To pairs with From ≤ To, and span at most one calendar month.',
    properties,
    additionalProperties: false,
  };
}
