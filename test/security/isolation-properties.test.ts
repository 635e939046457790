import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DATAPOINTS } from '../../shared/access/datapoints.js';
import { resourceNamed } from '../../shared/model/resources.js';
import { accessClaims, callService, startTestService, type TestService } from '../support/test-service.js';
import { storeRecords } from '../support/store-records.js';
import { readParquet, unzip } from '../support/parquet.js';

type Resource = 'contracts' | 'invoices';

// OWASP API1 (BOLA: tenant) and API3 (property-level authorization: allowlist), as properties:
// over arbitrary role sets, clients of both tenants and arbitrary valid filters, every record
// belongs to the caller's tenant, every field is in the union of its roles' datapoints, and
// Drafts appear only with Data.Read.Drafts — in JSON keys, Parquet columns and both zip entries.
const ROLES = Object.keys(DATAPOINTS);
const CLIENTS = { contoso: 'contoso-basic', fabrikam: 'fabrikam-basic' } as const;
let service: TestService;
const ids: Record<string, Record<Resource, Set<string>>> = {};
/** Per tenant: the ids of its Draft contracts, and the invoices whose contract is a Draft. */
const drafts: Record<string, { contracts: Set<string>; workspaces: Map<string, string>; invoices: Set<string> }> = {};

beforeAll(async () => {
  service = await startTestService();
  for (const tenant of Object.keys(CLIENTS)) {
    ids[tenant] = {
      contracts: new Set((await storeRecords('contracts', tenant)).map((record) => record.contractId as string)),
      invoices: new Set((await storeRecords('invoices', tenant)).map((record) => record.invoiceId as string)),
    };
    const draftContracts = (await storeRecords('contracts', tenant)).filter((record) => record.status === 'Draft');
    const contracts = new Set(draftContracts.map((record) => record.contractId as string));
    drafts[tenant] = {
      contracts,
      workspaces: new Map(draftContracts.map((record) => [record.contractId as string, record.contractWorkspaceID as string])),
      invoices: new Set((await storeRecords('invoices', tenant)).filter((record) => contracts.has(record.contractId as string)).map((record) => record.invoiceId as string)),
    };
    // The property below must be able to fail: the seed has invoices of Draft contracts.
    expect(drafts[tenant]!.invoices.size).toBeGreaterThan(10);
  }
});

afterAll(async () => {
  await service.stop();
});

function allowed(resource: Resource, roles: readonly string[]) {
  const grants = roles.filter((role) => role in DATAPOINTS).map((role) => DATAPOINTS[role]!);
  return {
    fields: new Set(grants.flatMap((grant) => grant.fields[resource] ?? [])),
    lines: new Set(grants.flatMap((grant) => grant.fields.invoiceLines ?? [])),
    drafts: grants.some((grant) => grant.drafts),
  };
}

const day = fc.integer({ min: Date.UTC(2025, 0, 1) / 86_400_000, max: Date.UTC(2026, 9, 31) / 86_400_000 });
const iso = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);
const filters = fc.record({
  range: fc.constantFrom('created', 'updated'),
  from: day,
  span: fc.integer({ min: 0, max: 28 }),
  order: fc.constantFrom('asc', 'desc'),
  orderIndex: fc.nat(),
  pageSize: fc.integer({ min: 1, max: 300 }),
});

describe('tenant and allowlist properties', () => {
  it('never shows another tenant, a field beyond the roles, or a Draft without the role', async () => {
    let draftReferencesChecked = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(ROLES), fc.constantFrom('contoso', 'fabrikam'), fc.constantFrom<Resource>('contracts', 'invoices'), fc.constantFrom('json', 'parquet'), filters,
        async (roles, tenant, resource, format, f) => {
          const token = await service.idp!.signToken(accessClaims(service, CLIENTS[tenant as keyof typeof CLIENTS], { roles }));
          const may = allowed(resource, roles);
          const sortable = resourceNamed(resource).sortable.filter((field) => may.fields.has(field));
          const body: Record<string, unknown> = { [`${f.range}From`]: iso(f.from), [`${f.range}To`]: iso(f.from + f.span), order: f.order };
          if (sortable.length > 0) body.orderBy = sortable[f.orderIndex % sortable.length];
          if (format === 'json') body.pageSize = f.pageSize;
          const response = await callService(service, resource, {
            headers: { authorization: `Bearer ${token}`, 'x-api-key': service.identities.apiKeys[0]!, accept: format === 'json' ? 'application/json' : 'application/vnd.apache.parquet' },
            body: JSON.stringify(body),
          });
          const bytes = new Uint8Array(await response.arrayBuffer());
          if (!roles.includes('Data.Read')) {
            expect(response.status).toBe(403);
            return;
          }
          expect(response.status).toBe(200);
          const idField = resource === 'contracts' ? 'contractId' : 'invoiceId';
          const own = ids[tenant]![resource];
          const checkRecords = (records: Record<string, unknown>[], columns: string[]) => {
            for (const column of columns) expect(may.fields.has(column)).toBe(true);
            for (const record of records) {
              expect(own.has(record[idField] as string)).toBe(true);
              if (!may.drafts) {
                expect(record.status).not.toBe('Draft');
                // A Draft's existence is hidden too: no reference to a Draft contract, in any field.
                expect(drafts[tenant]!.contracts.has(record.contractId as string)).toBe(false);
                if (resource === 'invoices' && drafts[tenant]!.invoices.has(record.invoiceId as string)) {
                  draftReferencesChecked++;
                  expect([record.contractId ?? null, record.contractWorkspaceID ?? null]).toEqual([null, null]);
                }
              }
            }
          };
          if (format === 'json') {
            const text = Buffer.from(bytes).toString();
            if (!may.drafts) for (const id of drafts[tenant]!.contracts) expect(text.includes(`"${id}"`)).toBe(false);
            const { data } = JSON.parse(text) as { data: Record<string, unknown>[] };
            for (const record of data) {
              checkRecords([record], Object.keys(record).filter((key) => key !== 'lines'));
              for (const line of (record.lines as Record<string, unknown>[] | undefined) ?? []) for (const key of Object.keys(line)) expect(may.lines.has(key)).toBe(true);
            }
          } else if (resource === 'contracts') {
            const file = await readParquet(bytes);
            checkRecords(file.rows, file.columns);
          } else {
            const entries = unzip(bytes);
            expect(Object.keys(entries).sort()).toEqual(['invoice_tables.parquet', 'invoices.parquet']);
            const headers = await readParquet(entries['invoices.parquet']!);
            checkRecords(headers.rows, headers.columns);
            const lines = await readParquet(entries['invoice_tables.parquet']!);
            expect(lines.columns[0]).toBe('invoiceId');
            for (const column of lines.columns.slice(1)) expect(may.lines.has(column)).toBe(true);
            for (const row of lines.rows) expect(own.has(row.invoiceId as string)).toBe(true);
          }
        },
      ),
      {
        numRuns: 60,
        // Always among the runs, so that the Draft-reference check never depends on the draw: a
        // caller without Drafts reading a month of invoices, which holds some of Draft contracts.
        examples: (['json', 'parquet'] as const).map((format): [string[], 'contoso', Resource, 'json' | 'parquet', { range: 'created' | 'updated'; from: number; span: number; order: 'asc' | 'desc'; orderIndex: number; pageSize: number }] =>
          [['Data.Read'], 'contoso', 'invoices', format, { range: 'created', from: Date.UTC(2025, 2, 1) / 86_400_000, span: 28, order: 'asc', orderIndex: 0, pageSize: 300 }]),
      },
    );
    // The runs met invoices of Draft contracts, so the reference check above could have failed.
    expect(draftReferencesChecked).toBeGreaterThan(0);
  }, 120_000);
});

describe('Draft contracts, for a caller without Data.Read.Drafts', () => {
  const call = async (client: string, resource: Resource, body: unknown, accept = 'application/json') => callService(service, resource, {
    headers: { authorization: `Bearer ${await service.idp!.signToken(accessClaims(service, client))}`, 'x-api-key': service.identities.apiKeys[0]!, accept },
    body: JSON.stringify(body),
  });

  it('hide invoices filtered by a Draft contract\'s id, which the Drafts role still finds', async () => {
    const invoiceOfDraft = (await storeRecords('invoices', 'contoso')).find((record) => drafts.contoso!.contracts.has(record.contractId as string))!;
    const body = { contractId: invoiceOfDraft.contractId as string };
    const hidden = await call('contoso-basic', 'invoices', body);
    expect(((await hidden.json()) as { pagination: { totalRecords: number } }).pagination.totalRecords).toBe(0);
    const exported = await call('contoso-basic', 'invoices', body, 'application/vnd.apache.parquet');
    expect((await readParquet(unzip(new Uint8Array(await exported.arrayBuffer()))['invoices.parquet']!)).numRows).toBe(0);
    const shown = await call('contoso-drafts', 'invoices', body);
    expect(((await shown.json()) as { data: { contractId: string }[] }).data.map((record) => record.contractId)).toContain(body.contractId);
  });

  it('answer status Draft with nothing, without asking the store', async () => {
    let storeCalls = 0;
    const counted = await startTestService({
      store: (real) => ({
        version: (scope, query) => (storeCalls++, real.version(scope, query)),
        page: (scope, query, request) => (storeCalls++, real.page(scope, query, request)),
        stream: (scope, query) => (storeCalls++, real.stream(scope, query)),
      }),
    });
    try {
      const token = await counted.idp!.signToken(accessClaims(counted, 'contoso-basic'));
      const ask = (accept: string) => callService(counted, 'invoices', { headers: { authorization: `Bearer ${token}`, 'x-api-key': counted.identities.apiKeys[0]!, accept }, body: '{"status":"Draft"}' });
      const json = await ask('application/json');
      expect(json.status).toBe(200);
      expect(((await json.json()) as { data: unknown[]; pagination: { totalRecords: number } })).toMatchObject({ data: [], pagination: { totalRecords: 0 } });
      const parquet = await ask('application/vnd.apache.parquet');
      expect(parquet.status).toBe(200);
      expect((await readParquet(unzip(new Uint8Array(await parquet.arrayBuffer()))['invoices.parquet']!)).numRows).toBe(0);
      expect(storeCalls).toBe(0);
      // The same request from a caller with the role does ask the store (the counter can count).
      const drafter = await counted.idp!.signToken(accessClaims(counted, 'contoso-drafts'));
      await callService(counted, 'invoices', { headers: { authorization: `Bearer ${drafter}`, 'x-api-key': counted.identities.apiKeys[0]! }, body: '{"status":"Draft"}' });
      expect(storeCalls).toBeGreaterThan(0);
    } finally {
      await counted.stop();
    }
  });
});
