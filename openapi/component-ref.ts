import type { JsonObject } from './json-schema.js';

/** A section of `components` that the document refers into. */
export type ComponentSection = 'schemas' | 'responses' | 'parameters' | 'headers';

/** A `$ref` to a named entry of a `components` section. */
export function componentRef(section: ComponentSection, name: string): JsonObject {
  return { $ref: `#/components/${section}/${name}` };
}

/** A `$ref` to a schema under `components.schemas`. */
export function schemaRef(name: string): JsonObject {
  return componentRef('schemas', name);
}
