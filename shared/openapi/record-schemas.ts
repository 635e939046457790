import { DATAPOINTS } from '../access/datapoints.js';
import {
  DRAFT_STATUS, INVOICE_LINE_FIELDS, RECORD_FIELDS, STATUSES, type FieldKind, type FieldSpec, type Resource,
} from '../model/resources.js';
import type { JsonObject } from './json-value.js';
import { draftRoles, visibilityNote, type FieldGroup } from './role-grants.js';
import { schemaRef } from './component-ref.js';

/** Component names of the record schemas. */
export const RECORD_SCHEMA_NAMES: Readonly<Record<Resource, string>> = {
  contracts: 'ContractRecord',
  invoices: 'InvoiceRecord',
};
/** Component name of the invoice line schema. */
export const INVOICE_LINE_SCHEMA_NAME = 'InvoiceLine';

const TYPES: Readonly<Record<FieldKind, JsonObject>> = {
  string: { type: 'string' },
  date: { type: 'string', format: 'date' },
  timestamp: { type: 'string', format: 'date-time' },
  decimal: { type: 'number' },
  int32: { type: 'integer', format: 'int32' },
};

const KIND_NOTES: Readonly<Record<FieldKind, (field: FieldSpec) => string>> = {
  string: () => '',
  date: () => ' A calendar date YYYY-MM-DD.',
  timestamp: () => ' A UTC timestamp, ISO 8601 with Z.',
  decimal: (field) => ` A decimal with precision ${field.precision ?? '?'} and scale ${field.scale ?? '?'} (a JSON number; DECIMAL in Parquet).`,
  int32: () => ' A 32-bit integer.',
};

/**
 * The schemas of the records in `data` (and of invoice lines), from the model's field lists and
 * the roles → datapoints configuration: every field optional (which ones are present depends on
 * the caller's roles; each description names the role that grants it), nothing else allowed, so a
 * response carrying an unlisted field fails validation.
 */
export function recordSchemas(): Record<string, JsonObject> {
  const contract = objectSchema('contracts', RECORD_FIELDS.contracts, 'contracts', 'A contract summary record.');
  const invoice = objectSchema('invoices', RECORD_FIELDS.invoices, 'invoices', 'An invoice summary record with its lines.');
  const invoiceProperties = invoice.properties as JsonObject;
  invoiceProperties.lines = {
    type: 'array',
    items: schemaRef(INVOICE_LINE_SCHEMA_NAME),
    description: 'The invoice lines, ordered by lineNumber; always present (possibly empty), with the line fields the caller\'s roles allow.',
  };
  invoice.required = ['lines'];
  return {
    [RECORD_SCHEMA_NAMES.contracts]: contract,
    [RECORD_SCHEMA_NAMES.invoices]: invoice,
    [INVOICE_LINE_SCHEMA_NAME]: objectSchema(undefined, INVOICE_LINE_FIELDS, 'invoiceLines', 'One line of an invoice.'),
  };
}

function objectSchema(resource: Resource | undefined, fields: readonly FieldSpec[], group: FieldGroup, title: string): JsonObject {
  const properties: JsonObject = {};
  for (const field of fields) properties[field.name] = fieldSchema(resource, field, group);
  return {
    type: 'object',
    description: `${title} The fields present depend on the caller's roles (the server-side roles → datapoints configuration): ${grantsSummary(group)}. Fields come in the order listed here.`,
    properties,
    additionalProperties: false,
  };
}

function fieldSchema(resource: Resource | undefined, field: FieldSpec, group: FieldGroup): JsonObject {
  const base = TYPES[field.kind];
  const type = base.type as string;
  const schema: JsonObject = { ...base, type: field.nullable ? [type, 'null'] : type };
  let description = visibilityNote(group, field.name) + KIND_NOTES[field.kind](field);
  if (field.nullable) description += ' May be null.';
  if (resource !== undefined && field.name === 'status') {
    schema.enum = [...STATUSES[resource]];
    description += ` Records with status ${DRAFT_STATUS} are returned only to callers holding ${draftRoles().map((role) => `\`${role}\``).join(' or ')}.`;
  }
  schema.description = description;
  return schema;
}

/** "Data.Read: a, b; Data.Read.Financials: c" for one group, roles granting nothing left out. */
function grantsSummary(group: FieldGroup): string {
  return Object.entries(DATAPOINTS)
    .filter(([, grant]) => grant[group].length > 0)
    .map(([role, grant]) => `\`${role}\` shows ${grant[group].join(', ')}`)
    .join('; ');
}
