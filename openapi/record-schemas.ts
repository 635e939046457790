import { valuesOf, type FieldKind, type FieldSpec } from '../shared/model/fields.js';
import type { ResourceDefinition } from '../shared/model/resource-definition.js';
import type { ApiModel } from './api-model.js';
import type { JsonObject } from './json-schema.js';
import { draftRoles, grantsSummary, visibilityNote } from './role-grants.js';
import { schemaRef } from './component-ref.js';

const TYPES: Readonly<Record<FieldKind, JsonObject>> = {
  string: { type: 'string' },
  date: { type: 'string', format: 'date' },
  timestamp: { type: 'string', format: 'date-time' },
  decimal: { type: 'number' },
  int32: { type: 'integer', format: 'int32' },
  double: { type: 'number', format: 'double' },
  boolean: { type: 'boolean' },
};

const KIND_NOTES: Readonly<Record<FieldKind, (field: FieldSpec) => string>> = {
  string: () => '',
  date: () => ' A calendar date YYYY-MM-DD.',
  timestamp: () => ' A UTC timestamp, ISO 8601 with Z.',
  decimal: (field) => (field.kind === 'decimal' ? ` A decimal with precision ${field.precision} and scale ${field.scale} (a JSON number; DECIMAL in Parquet).` : ''),
  int32: () => ' A 32-bit integer.',
  double: () => ' A floating-point number (DOUBLE in Parquet).',
  boolean: () => ' true or false.',
};

/**
 * The schemas of the records in `data` (and of their lines), from the resource definitions and
 * the roles → datapoints configuration: every field optional (which ones are present depends on
 * the caller's roles; each description names the role that grants it), nothing else allowed, so a
 * response carrying an unlisted field fails validation.
 */
export function recordSchemas(model: ApiModel): Record<string, JsonObject> {
  const schemas: Record<string, JsonObject> = {};
  for (const resource of model.resources) {
    const record = objectSchema(model, resource.fields, resource.name, resource.openapi.recordDescription, resource);
    const { lines } = resource;
    if (lines) {
      (record.properties as JsonObject)[lines.member] = {
        type: 'array',
        items: schemaRef(lines.schemaName),
        description: `The ${resource.openapi.recordNoun} lines, ordered by ${lines.orderBy}; always present (possibly empty), with the line fields the caller's roles allow.`,
      };
      record.required = [lines.member];
    }
    schemas[resource.openapi.recordSchema] = record;
    if (lines) schemas[lines.schemaName] = objectSchema(model, lines.fields, lines.grant, lines.description, undefined);
  }
  return schemas;
}

function objectSchema(model: ApiModel, fields: readonly FieldSpec[], group: string, title: string, resource: ResourceDefinition | undefined): JsonObject {
  const properties: JsonObject = {};
  for (const field of fields) properties[field.name] = fieldSchema(model, field, group, resource);
  return {
    type: 'object',
    description: `${title} The fields present depend on the caller's roles (the server-side roles → datapoints configuration): ${grantsSummary(model.datapoints, group)}. Fields come in the order listed here.`,
    properties,
    additionalProperties: false,
  };
}

function fieldSchema(model: ApiModel, field: FieldSpec, group: string, resource: ResourceDefinition | undefined): JsonObject {
  const base = TYPES[field.kind];
  const type = base.type as string;
  const schema: JsonObject = { ...base, type: field.nullable ? [type, 'null'] : type };
  let description = visibilityNote(model.datapoints, group, field.name) + KIND_NOTES[field.kind](field);
  if (field.nullable) description += ' May be null.';
  const values = valuesOf(field);
  if (values) schema.enum = [...values];
  const drafts = resource?.drafts;
  if (drafts?.field === field.name) {
    description += ` Records with status ${drafts.value} are returned only to callers holding ${draftRoles(model.datapoints).map((role) => `\`${role}\``).join(' or ')}.`;
  }
  schema.description = description;
  return schema;
}
