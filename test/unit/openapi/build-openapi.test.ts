import { describe, expect, it } from '@jest/globals';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { DELTA_CODES, ERROR_CODES, EXPORT_JOB_CODES, type ErrorCode } from '../../../shared/errors/error-codes.js';
import { EXPORT_OPERATION_CODES } from '../../../openapi/export-operations.js';
import { filterMembers } from '../../../shared/filters/filter-members.js';
import type { FieldKind } from '../../../shared/model/fields.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { INVOICES } from '../../../shared/model/invoices.js';
import { RESOURCES } from '../../../shared/model/resources.js';
import { buildOpenApi } from '../../../openapi/build-openapi.js';
import { NOT_OPERATION_CODES } from '../../../openapi/error-responses.js';
import { at, pointerSegment } from '../../support/document-validator.js';

const document = buildOpenApi() as Record<string, unknown>;
const operation = (resource: string | { name: string }) => `/paths/${pointerSegment(`/v1/${typeof resource === 'string' ? resource : resource.name}/summary`)}/post`;

interface Schema {
  type?: string | string[];
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  enum?: string[];
  additionalProperties?: boolean;
  required?: string[];
}

/** Follows a `$ref` within the document. */
function resolve<T>(node: unknown): T {
  const ref = (node as { $ref?: string }).$ref;
  return (ref === undefined ? node : at(document, ref.slice(1))) as T;
}

const EXPECTED_TYPE: Record<FieldKind, Schema> = {
  string: { type: 'string' },
  date: { type: 'string', format: 'date' },
  timestamp: { type: 'string', format: 'date-time' },
  decimal: { type: 'number' },
  int32: { type: 'integer' },
  double: { type: 'number' },
  boolean: { type: 'boolean' },
};

describe('the OpenAPI document built from the code', () => {
  it('describes exactly the two summary operations, their deltas and the export jobs\' under {base_url}', () => {
    expect(Object.keys(at(document, '/paths') as object)).toEqual(['/v1/contracts/summary', '/v1/invoices/summary', '/v1/contracts/delta', '/v1/invoices/delta', '/v1/contracts/exports', '/v1/invoices/exports', '/v1/exports/{id}']);
    expect(Object.keys(at(document, `/paths/${pointerSegment('/v1/exports/{id}')}`) as object)).toEqual(['parameters', 'get', 'delete']);
    for (const resource of RESOURCES) expect(Object.keys(at(document, `/paths/${pointerSegment(`/v1/${resource.name}/summary`)}`) as object)).toEqual(['post']);
    expect(at(document, '/servers/0/url')).toBe('{base_url}');
    expect(at(document, '/servers/0/variables/base_url/default')).toEqual(expect.any(String));
  });

  it('requires all three credentials together, each declared as a security scheme', () => {
    const requirements = at(document, '/security') as Record<string, string[]>[];
    expect(requirements).toHaveLength(1);
    const schemes = at(document, '/components/securitySchemes') as Record<string, { type: string; name?: string; in?: string; flows?: { clientCredentials?: { scopes: Record<string, string> } } }>;
    expect(Object.keys(requirements[0]!).sort()).toEqual(Object.keys(schemes).sort());
    expect(schemes.accessToken!.flows!.clientCredentials!.scopes).toHaveProperty(['api://<APP_ID>/.default']);
    expect(requirements[0]!.accessToken).toEqual(['api://<APP_ID>/.default']);
    const headers = Object.values(schemes).filter((scheme) => scheme.type === 'apiKey').map((scheme) => [scheme.in, scheme.name]);
    expect(headers).toEqual([['header', 'Ocp-Apim-Subscription-Key'], ['header', 'x-api-key']]);
  });

  it('lists every filter member in the body (nothing else allowed) and as a query parameter', () => {
    for (const resource of RESOURCES) {
      const names = Object.keys(filterMembers(resource));
      const body = resolve<Schema>(at(document, `${operation(resource)}/requestBody/content/application~1json/schema`));
      expect(Object.keys(body.properties!)).toEqual(names);
      expect(body.additionalProperties).toBe(false);
      const parameters = (at(document, `${operation(resource)}/parameters`) as unknown[]).map((entry) => resolve<{ name: string; in: string }>(entry));
      expect(parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name)).toEqual(names);
      expect(parameters.find((parameter) => parameter.in === 'header')?.name).toBe('X-Request-ID');
    }
  });

  it('types page and pageSize as integers in the body and the query string alike, with the same bounds and defaults', () => {
    const body = resolve<Schema>(at(document, `${operation('contracts')}/requestBody/content/application~1json/schema`));
    expect(body.properties!.pageSize).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 25 });
    const parameters = at(document, `${operation('contracts')}/parameters`) as { name?: string; schema?: Schema }[];
    for (const name of ['page', 'pageSize']) {
      const { description: _body, ...bodySchema } = body.properties![name]! as Schema & { description?: string };
      expect(parameters.find((parameter) => parameter.name === name)!.schema).toEqual(bodySchema);
    }
    expect(body.properties!.page).toMatchObject({ maximum: Number.MAX_SAFE_INTEGER, default: 1 });
    expect(body.properties!.createdFrom).toMatchObject({ type: 'string', format: 'date' });
    expect(body.properties!.createdTo!.description).toMatch(/one calendar month/);
    expect(body.properties!.page!.description).toMatch(/PAGINATION_NOT_ALLOWED/);
  });

  it('gives every model field its type, optional, with the roles that grant it', () => {
    const groups = [
      ['ContractRecord', CONTRACTS.fields, 'contracts'],
      ['InvoiceRecord', INVOICES.fields, 'invoices'],
      ['InvoiceLine', INVOICES.lines!.fields, 'invoiceLines'],
    ] as const;
    for (const [name, fields, group] of groups) {
      const schema = at(document, `/components/schemas/${name}`) as Schema;
      expect(schema.additionalProperties).toBe(false);
      for (const field of fields) {
        expect(schema.required ?? []).not.toContain(field.name);
        const property = schema.properties![field.name]!;
        const expected = EXPECTED_TYPE[field.kind];
        expect(property.type).toEqual(field.nullable ? [expected.type, 'null'] : expected.type);
        if (expected.format) expect(property.format).toBe(expected.format);
        const granting = Object.entries(DATAPOINTS).filter(([, grant]) => (grant.fields[group] ?? []).includes(field.name)).map(([role]) => role);
        expect(granting.length).toBeGreaterThan(0);
        for (const role of granting) expect(property.description).toContain(`\`${role}\``);
      }
    }
    expect(at(document, '/components/schemas/InvoiceRecord/required')).toEqual(['lines']);
  });

  it('answers every registry code under its own status in both operations, except those no operation can carry', () => {
    for (const resource of RESOURCES) {
      const responses = at(document, `${operation(resource)}/responses`) as Record<string, unknown>;
      for (const [code, { status }] of Object.entries(ERROR_CODES)) {
        const response = responses[String(status)];
        if (code in NOT_OPERATION_CODES || EXPORT_JOB_CODES.has(code as ErrorCode) || DELTA_CODES.has(code as ErrorCode)) continue;
        const schema = resolve<{ content: Record<string, { schema: { allOf: Schema[] } }> }>(response).content['application/problem+json']!.schema;
        expect(schema.allOf[1]!.properties!.code!.enum).toContain(code);
      }
    }
    expect(at(document, '/components/schemas/Problem/properties/code/enum')).toEqual(Object.keys(ERROR_CODES));
    for (const code of Object.keys(NOT_OPERATION_CODES)) expect(Object.keys(ERROR_CODES)).toContain(code);
  });

  it('answers the export jobs\' own codes only in the export operations, each under its own status', () => {
    const exportOperations = {
      kickOff: RESOURCES.map((resource) => `/paths/${pointerSegment(`/v1/${resource.name}/exports`)}/post`),
      status: [`/paths/${pointerSegment('/v1/exports/{id}')}/get`],
      cancel: [`/paths/${pointerSegment('/v1/exports/{id}')}/delete`],
    };
    for (const [name, pointers] of Object.entries(exportOperations)) {
      for (const pointer of pointers) {
        const responses = at(document, `${pointer}/responses`) as Record<string, unknown>;
        for (const code of EXPORT_OPERATION_CODES[name as keyof typeof EXPORT_OPERATION_CODES]) {
          const schema = resolve<{ content: Record<string, { schema: { allOf: Schema[] } }> }>(responses[String(ERROR_CODES[code].status)]).content['application/problem+json']!.schema;
          expect([pointer, code, schema.allOf[1]!.properties!.code!.enum]).toEqual([pointer, code, expect.arrayContaining([code])]);
        }
      }
    }
    for (const resource of RESOURCES) {
      const responses = at(document, `${operation(resource)}/responses`) as Record<string, unknown>;
      for (const code of EXPORT_JOB_CODES) {
        const response = responses[String(ERROR_CODES[code].status)];
        const codes = response === undefined ? [] : resolve<{ content: Record<string, { schema: { allOf: Schema[] } }> }>(response).content['application/problem+json']!.schema.allOf[1]!.properties!.code!.enum;
        expect(codes).not.toContain(code);
      }
    }
    expect(EXPORT_OPERATION_CODES.status).toContain('EXPORT_VIEW_CHANGED');
  });

  it('offers JSON and the Parquet export in every 200, and X-Request-ID on every response', () => {
    expect(Object.keys(at(document, `${operation('contracts')}/responses/200/content`) as object)).toEqual(['application/json', 'application/vnd.apache.parquet']);
    expect(Object.keys(at(document, `${operation('invoices')}/responses/200/content`) as object)).toEqual(['application/json', 'application/zip']);
    expect(at(document, `${operation('invoices')}/responses/200/content/application~1zip/schema/description`)).toMatch(/invoices\.parquet.*invoice_tables\.parquet/);
    for (const resource of RESOURCES) {
      for (const [status, entry] of Object.entries(at(document, `${operation(resource)}/responses`) as Record<string, unknown>)) {
        const headers = resolve<{ headers: Record<string, unknown> }>(entry).headers;
        expect([status, resolve<{ required?: boolean }>(headers['X-Request-ID'])]).toEqual([status, expect.objectContaining({ required: true })]);
      }
      expect(resolve<{ headers: Record<string, unknown> }>(at(document, `${operation(resource)}/responses/503`)).headers).toHaveProperty('Retry-After');
      expect(resolve<{ headers: Record<string, unknown> }>(at(document, `${operation(resource)}/responses/200`)).headers).toHaveProperty('Content-Disposition');
    }
  });

  it('has unique operation ids and only references that resolve', () => {
    const ids = RESOURCES.map((resource) => at(document, `${operation(resource)}/operationId`));
    expect(new Set(ids).size).toBe(RESOURCES.length);
    const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect([ref, at(document, ref.slice('"$ref":"#'.length, -1))]).toEqual([ref, expect.anything()]);
  });

  it('give tools what they check: a valid token URL, the pageSize maximum, the date pairs as dependentRequired', () => {
    const tokenUrl = at(document, '/components/securitySchemes/accessToken/flows/clientCredentials/tokenUrl') as string;
    expect(() => new URL(tokenUrl)).not.toThrow();
    expect(tokenUrl).not.toMatch(/[<>{}\s]/);
    for (const resource of RESOURCES) {
      const body = resolve<Schema & { dependentRequired?: Record<string, string[]> }>(at(document, `${operation(resource)}/requestBody/content/application~1json/schema`));
      expect(body.properties!.pageSize).toMatchObject({ maximum: 1000 });
      const ranges = resource.filters.filter((filter) => filter.kind === 'dayRange');
      expect(Object.keys(body.dependentRequired ?? {}).length).toBe(ranges.length * 2);
      for (const range of ranges) expect(body.dependentRequired).toMatchObject({ [range.from]: [range.to], [range.to]: [range.from] });
    }
  });
});
