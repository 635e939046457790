/** A JSON value: what the OpenAPI document is made of. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

/** A JSON object (a schema, an operation, the document itself). */
export interface JsonObject {
  [key: string]: JsonValue;
}
