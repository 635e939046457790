import { unreachable } from '../shared/util/unreachable.js';
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
  // A From without its To (or the reverse) is 400 DATE_RANGE_INCOMPLETE: said in the schema too.
  const dependentRequired: JsonObject = {};
  for (const filter of resource.filters) {
    switch (filter.kind) {
      case 'dayRange':
        dependentRequired[filter.from] = [filter.to];
        dependentRequired[filter.to] = [filter.from];
        break;
      case 'equals':
        break;
      default:
        unreachable(filter, 'filter kind');
    }
  }
  return {
    type: 'object',
    description: 'Filters, all optional; an empty body (or none) means no filters. Names are case-sensitive: '
      + 'any other member is 400 `UNKNOWN_FILTER` (the message suggests the right-cased name). '
      + 'Every member may also be sent as a query-string parameter of the same name; when both are given, the body wins. '
      + 'Date filters are YYYY-MM-DD, go in From/To pairs with From ≤ To, and span at most one calendar month.',
    properties,
    ...(Object.keys(dependentRequired).length > 0 ? { dependentRequired } : {}),
    additionalProperties: false,
  };
}
