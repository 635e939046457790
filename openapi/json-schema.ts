import { z } from 'zod';

/** A JSON value: what the OpenAPI document is made of. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

/** A JSON object (a schema, an operation, the document itself). */
export interface JsonObject {
  [key: string]: JsonValue;
}

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
