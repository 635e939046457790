import type { JsonObject } from './json-value.js';

/** A `$ref` to a schema under `components.schemas`. */
export function schemaRef(name: string): JsonObject {
  return { $ref: `#/components/schemas/${name}` };
}
