import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DATAPOINTS, type RoleDatapoints } from '../../shared/access/datapoints.js';
import { int32, money, oneOf, text, timestamp } from '../../shared/model/fields.js';
import { textRule } from '../../shared/model/member-rules.js';
import { defineResource } from '../../shared/model/resource-definition.js';
import { DATABASE_ID, RESOURCES } from '../../shared/model/resources.js';
import { ensureContainers } from '../../dev/ensure-containers.js';
import { upsertAll } from '../../dev/seed-store.js';
import { buildOpenApi } from '../../openapi/build-openapi.js';
import { createDocumentValidator } from '../support/document-validator.js';
import { withParquetFile } from '../support/duckdb.js';
import { unzip } from '../support/parquet.js';
import { directStore, type Envelope, type Problem } from '../support/stack.js';
import { accessClaims, callService, startTestService, type TestService } from '../support/test-service.js';

// The seam, proven: a resource that exists only in this test — its own fields, a nested table, a
// role-gated filter, a Drafts rule and a zip-of-two-tables export — runs through the real pipeline
// (gateway, credentials, filters, the Cosmos store on the embedded server, JSON, Parquet) and gets
// its OpenAPI operation, with no line of shared/ naming it.
const SUPPLIERS = defineResource({
  name: 'suppliers',
  containerId: 'test-suppliers',
  idField: 'supplierKey',
  fields: [
    text('supplierKey'),
    text('legalName'),
    oneOf('state', ['Draft', 'Active', 'Blocked']),
    text('taxNumber'),
    money('creditLimit'),
    timestamp('createdDate'),
  ],
  lines: {
    member: 'contacts',
    fields: [int32('position'), text('email'), text('phone')],
    grant: 'supplierContacts',
    orderBy: 'position',
    schemaName: 'SupplierContact',
    description: 'One contact of a supplier.',
  },
  sortable: ['supplierKey', 'legalName', 'createdDate'],
  defaultOrder: { orderBy: 'supplierKey', order: 'asc' },
  drafts: { field: 'state', value: 'Draft' },
  filters: [
    { kind: 'equals', member: 'taxNumber', field: 'taxNumber', rule: textRule() },
    { kind: 'dayRange', from: 'createdFrom', to: 'createdTo', field: 'createdDate' },
  ],
  export: { kind: 'zip', records: 'suppliers.parquet', lines: 'supplier_contacts.parquet' },
  openapi: {
    summary: 'Supplier summaries of your tenant',
    recordNoun: 'supplier',
    recordSchema: 'SupplierRecord',
    recordDescription: 'A supplier summary record.',
    envelopeSchema: 'SuppliersEnvelope',
    filtersSchema: 'SuppliersFilters',
  },
});

const GRANTS: Readonly<Record<string, RoleDatapoints['fields']>> = {
  'Data.Read': { suppliers: ['supplierKey', 'legalName', 'state', 'createdDate'], supplierContacts: ['position', 'email'] },
  'Data.Read.Financials': { suppliers: ['creditLimit'] },
  'Data.Read.Suppliers': { suppliers: ['taxNumber'], supplierContacts: ['phone'] },
};
const TEST_DATAPOINTS: Readonly<Record<string, RoleDatapoints>> = Object.fromEntries(Object.entries(DATAPOINTS).map(([role, grant]) => [
  role,
  { ...grant, fields: { ...grant.fields, ...GRANTS[role] } },
]));
const TEST_RESOURCES = [...RESOURCES, SUPPLIERS];

const supplier = (tenant: string, n: number, state: string, createdDate: string) => ({
  id: `${tenant}-S${n}`,
  tenantId: tenant,
  supplierKey: `${tenant.toUpperCase()}-S${n}`,
  legalName: `Supplier ${n} of ${tenant}`,
  state,
  taxNumber: `TAX-${tenant}-${n}`,
  creditLimit: 1000 + n + 0.25,
  createdDate,
  // Stored out of order: the service orders them by position.
  contacts: [
    { position: 2, email: `b${n}@${tenant}.example`, phone: `+1-555-01${n}2` },
    { position: 1, email: `a${n}@${tenant}.example`, phone: `+1-555-01${n}1` },
  ],
  internalNote: 'never returned',
});
const DOCUMENTS = [
  supplier('contoso', 1, 'Active', '2025-03-02T10:00:00.000Z'),
  supplier('contoso', 2, 'Blocked', '2025-03-15T10:00:00.000Z'),
  supplier('contoso', 3, 'Draft', '2025-03-20T10:00:00.000Z'),
  supplier('contoso', 4, 'Active', '2025-05-01T10:00:00.000Z'),
  supplier('fabrikam', 1, 'Active', '2025-03-03T10:00:00.000Z'),
];

let service: TestService;

beforeAll(async () => {
  const client = directStore();
  try {
    await ensureContainers(client, [SUPPLIERS]);
    await upsertAll(client.database(DATABASE_ID).container(SUPPLIERS.containerId), DOCUMENTS);
  } finally {
    client.dispose();
  }
  service = await startTestService({ resources: TEST_RESOURCES, datapoints: TEST_DATAPOINTS });
});

afterAll(async () => {
  await service?.stop();
});

async function call(client: string, body: unknown, accept = 'application/json'): Promise<Response> {
  const token = await service.idp!.signToken(accessClaims(service, client));
  return callService(service, 'suppliers', {
    headers: { authorization: `Bearer ${token}`, 'x-api-key': service.identities.apiKeys[0]!, accept },
    body: JSON.stringify(body),
  });
}

describe('a resource defined only in a test', () => {
  it('answers a JSON page with the caller\'s fields, its lines ordered, no Draft and no other tenant', async () => {
    const response = await call('contoso-basic', { createdFrom: '2025-03-01', createdTo: '2025-03-31' });
    expect(response.status).toBe(200);
    const envelope = (await response.json()) as Envelope;
    expect(envelope.data).toEqual([
      { supplierKey: 'CONTOSO-S1', legalName: 'Supplier 1 of contoso', state: 'Active', createdDate: '2025-03-02T10:00:00.000Z', contacts: [{ position: 1, email: 'a1@contoso.example' }, { position: 2, email: 'b1@contoso.example' }] },
      { supplierKey: 'CONTOSO-S2', legalName: 'Supplier 2 of contoso', state: 'Blocked', createdDate: '2025-03-15T10:00:00.000Z', contacts: [{ position: 1, email: 'a2@contoso.example' }, { position: 2, email: 'b2@contoso.example' }] },
    ]);
    expect(envelope.pagination).toEqual({ page: 1, pageSize: 25, totalRecords: 2, totalPages: 1, hasNext: false });
  });

  it('exports a zip of its two tables that DuckDB reads, with the caller\'s columns and exact decimals', async () => {
    const response = await call('contoso-full', {}, 'application/vnd.apache.parquet');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="suppliers-[^"]+\.zip"$/);
    const entries = unzip(new Uint8Array(await response.arrayBuffer()));
    expect(Object.keys(entries).sort()).toEqual(['supplier_contacts.parquet', 'suppliers.parquet']);
    const records = await withParquetFile(entries['suppliers.parquet']!, (query) => query('SELECT * FROM $file ORDER BY supplierKey'));
    expect(records.map((row) => Object.keys(row))).toEqual(Array(4).fill(['supplierKey', 'legalName', 'state', 'taxNumber', 'creditLimit', 'createdDate']));
    expect(records.map((row) => [row.supplierKey, row.state])).toEqual([['CONTOSO-S1', 'Active'], ['CONTOSO-S2', 'Blocked'], ['CONTOSO-S3', 'Draft'], ['CONTOSO-S4', 'Active']]);
    const [sum] = await withParquetFile(entries['suppliers.parquet']!, (query) => query('SELECT CAST(SUM(creditLimit) AS VARCHAR) AS total, typeof(creditLimit) AS type FROM $file GROUP BY ALL'));
    expect(sum).toEqual({ total: '4011.00', type: 'DECIMAL(18,2)' });
    const contacts = await withParquetFile(entries['supplier_contacts.parquet']!, (query) => query('SELECT * FROM $file'));
    expect(contacts).toHaveLength(8);
    expect(Object.keys(contacts[0]!)).toEqual(['supplierKey', 'position', 'email', 'phone']);
    expect(contacts.slice(0, 2)).toEqual([
      { supplierKey: 'CONTOSO-S1', position: 1, email: 'a1@contoso.example', phone: '+1-555-0111' },
      { supplierKey: 'CONTOSO-S1', position: 2, email: 'b1@contoso.example', phone: '+1-555-0112' },
    ]);
  });

  it('refuses its role-gated filter to a caller without the role, and applies it for one with it', async () => {
    const refused = await call('contoso-basic', { taxNumber: 'TAX-contoso-4' });
    expect(refused.status).toBe(400);
    const problem = (await refused.json()) as Problem;
    expect(problem.code).toBe('INVALID_FILTER');
    expect(problem.errors?.map((error) => error.member)).toEqual(['taxNumber']);

    const allowed = await call('contoso-suppliers', { taxNumber: 'TAX-contoso-4' });
    expect(allowed.status).toBe(200);
    expect(((await allowed.json()) as Envelope).data.map((record) => record.supplierKey)).toEqual(['CONTOSO-S4']);
  });

  it('gets its OpenAPI operation, schemas and gated-filter note generated, and its answers validate against them', async () => {
    const document = buildOpenApi({ resources: TEST_RESOURCES, datapoints: TEST_DATAPOINTS }) as Record<string, unknown>;
    const paths = document.paths as Record<string, { post: { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> } }>;
    // Its delta and export jobs come with it: a delta and a kick-off of its own, and the one status and cancel path.
    expect(Object.keys(paths)).toEqual(['/v1/contracts/summary', '/v1/invoices/summary', '/v1/suppliers/summary', '/v1/contracts/delta', '/v1/invoices/delta', '/v1/suppliers/delta', '/v1/contracts/exports', '/v1/invoices/exports', '/v1/suppliers/exports', '/v1/exports/{id}']);
    const operation = paths['/v1/suppliers/summary']!.post;
    expect(operation.operationId).toBe('suppliersSummary');
    expect(Object.keys(operation.responses['200']!.content!)).toEqual(['application/json', 'application/zip']);
    const schemas = (document.components as { schemas: Record<string, { properties?: Record<string, { description?: string }> }> }).schemas;
    expect(Object.keys(schemas.SupplierContact!.properties!)).toEqual(['position', 'email', 'phone']);
    expect(schemas.SuppliersFilters!.properties!.taxNumber!.description).toMatch(/only `Data\.Read\.Suppliers` shows: without that role it is 400 `INVALID_FILTER`/);

    const validator = createDocumentValidator(document);
    const response = await call('contoso-full', {});
    expect(validator.errorsAt('/components/schemas/SuppliersEnvelope', await response.json())).toEqual([]);
  });

  it('leaves the service\'s own resources as they were', async () => {
    const response = await call('contoso-basic', {});
    expect(response.status).toBe(200);
    const contracts = await callService(service, 'contracts', {
      headers: { authorization: `Bearer ${await service.idp!.signToken(accessClaims(service, 'contoso-basic'))}`, 'x-api-key': service.identities.apiKeys[0]! },
      body: '{}',
    });
    expect(contracts.status).toBe(200);
  });
});
