import { filterMembers } from '../shared/filters/filter-members.js';
import type { ResourceDefinition } from '../shared/model/resource-definition.js';
import type { ApiModel } from './api-model.js';
import { filterMemberSchema } from './filter-member-schema.js';
import type { JsonObject } from './json-schema.js';
import type { ServiceDefaults } from './service-defaults.js';

/**
 * The query-string equivalents of the filter members, as `in: query` parameters: the same names
 * and rules, values as text, and the body's value wins when a member is in both.
 */
export function filterParameters(model: ApiModel, resource: ResourceDefinition, defaults: ServiceDefaults): JsonObject[] {
  return Object.keys(filterMembers(resource)).map((name) => {
    const schema = filterMemberSchema(model, resource, name, 'query', defaults);
    const description = `Query-string form of the body member \`${name}\`; when the body has ${name} too, the body wins. Give it at most once (twice is 400 \`INVALID_FILTER\`). ${String(schema.description)}`;
    delete schema.description;
    return { name, in: 'query', required: false, description, schema };
  });
}
