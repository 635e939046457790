import { z } from 'zod';
import type { JsonObject } from './json-value.js';

/**
 * A zod schema as a JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1), without the
 * `$schema` member: inside an OpenAPI document the dialect is the document's. `io: 'input'`
 * describes what a caller sends (before transforms), `'output'` what the service produces.
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io });
  // zod's JSONSchema type is structurally JSON; this is where the library's type enters ours.
  return rest as JsonObject;
}
