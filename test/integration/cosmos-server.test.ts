/**
 * The embedded Cosmos server, seeded, reached through the real SDK: the query shapes the store
 * relies on must run here exactly as they are written for Azure.
 */
import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Container, CosmosClient, SqlParameter } from '@azure/cosmos';
import { CONTRACTS } from '../../shared/model/contracts.js';
import { INVOICES } from '../../shared/model/invoices.js';
import { DATABASE_ID } from '../../shared/model/resources.js';
import { createCosmosClient } from '../../shared/store/create-cosmos-client.js';
import { startCosmosServer, type RunningCosmosServer } from '../../dev/cosmos-server.js';
import { seedStore } from '../../dev/seed-store.js';

const TENANTS = ['contoso', 'fabrikam'];
const RECORDS = 200;

let server: RunningCosmosServer;
let client: CosmosClient;
let contracts: Container;
let invoices: Container;

beforeAll(async () => {
  server = await startCosmosServer({ port: 0 });
  client = createCosmosClient({ endpoint: server.endpoint, key: server.key, allowSelfSignedTls: true });
  await seedStore(client, { tenants: TENANTS, recordsPerTenant: RECORDS });
  const database = client.database(DATABASE_ID);
  contracts = database.container(CONTRACTS.containerId);
  invoices = database.container(INVOICES.containerId);
});

afterAll(async () => {
  client?.dispose();
  await server?.stop();
});

/** Runs a single-partition query for `tenant` the way the store does. */
async function query<T>(container: Container, tenant: string, sql: string, extra: SqlParameter[] = []): Promise<T[]> {
  const parameters = [{ name: '@tenant', value: tenant }, ...extra];
  const { resources } = await container.items.query<T>({ query: sql, parameters }, { partitionKey: [tenant] }).fetchAll();
  return resources;
}

test('the endpoint is https on loopback with an ephemeral port', () => {
  expect(server.endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect(server.endpoint).not.toMatch(/:0$/);
});

test.each(TENANTS)('COUNT in one partition counts only that tenant (%s)', async (tenant) => {
  const sql = 'SELECT VALUE COUNT(1) FROM c WHERE c.tenantId = @tenant';
  expect(await query<number>(contracts, tenant, sql)).toEqual([RECORDS]);
  expect(await query<number>(invoices, tenant, sql)).toEqual([RECORDS]);
});

test('seeding again upserts the same documents instead of adding more', async () => {
  await expect(seedStore(client, { tenants: ['contoso'], recordsPerTenant: RECORDS })).resolves.toEqual({
    contracts: RECORDS,
    invoices: RECORDS,
  });
  const sql = 'SELECT VALUE COUNT(1) FROM c WHERE c.tenantId = @tenant';
  expect(await query<number>(contracts, 'contoso', sql)).toEqual([RECORDS]);
});

test.each(['ASC', 'DESC'])('ORDER BY createdDate %s, id is served from the composite index and sorted', async (direction) => {
  const rows = await query<{ id: string; createdDate: string }>(
    contracts,
    'contoso',
    `SELECT c.id, c.createdDate FROM c WHERE c.tenantId = @tenant ORDER BY c.createdDate ${direction}, c.id ${direction}`,
  );
  const key = (row: { id: string; createdDate: string }): string => `${row.createdDate}|${row.id}`;
  const sorted = [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  expect(rows).toHaveLength(RECORDS);
  expect(rows).toEqual(direction === 'ASC' ? sorted : sorted.reverse());
});

test('a multi-field ORDER BY without a composite index is refused, as in Cosmos', async () => {
  const sql = 'SELECT c.id FROM c WHERE c.tenantId = @tenant ORDER BY c.createdDate ASC, c.title ASC';
  await expect(query(contracts, 'contoso', sql)).rejects.toMatchObject({ code: 400 });
});

test('TOP returns the first rows of the order, also with TOP as a parameter', async () => {
  const order = 'ORDER BY c.invoiceDate DESC, c.id DESC';
  const all = await query<{ id: string }>(invoices, 'fabrikam', `SELECT c.id FROM c WHERE c.tenantId = @tenant ${order}`);
  const top = await query<{ id: string }>(invoices, 'fabrikam', `SELECT TOP 10 c.id FROM c WHERE c.tenantId = @tenant ${order}`);
  const topParam = await query<{ id: string }>(
    invoices, 'fabrikam', `SELECT TOP @top c.id FROM c WHERE c.tenantId = @tenant ${order}`, [{ name: '@top', value: 10 }],
  );
  expect(top).toEqual(all.slice(0, 10));
  expect(topParam).toEqual(top);
});

test('an ARRAY subquery projects the chosen line fields of each invoice', async () => {
  const rows = await query<{ invoiceId: string; lines: Record<string, unknown>[] }>(
    invoices,
    'contoso',
    'SELECT c.invoiceId, ARRAY(SELECT l.lineNumber, l.description FROM l IN c.lines) AS lines ' +
      'FROM c WHERE c.tenantId = @tenant AND c.invoiceId = @id',
    [{ name: '@id', value: 'INV-CONTOSO-000001' }],
  );
  expect(rows).toHaveLength(1);
  const lines = rows[0]?.lines ?? [];
  expect(lines.length).toBeGreaterThanOrEqual(1);
  lines.forEach((line, index) => {
    expect(Object.keys(line).sort()).toEqual(['description', 'lineNumber']);
    expect(line.lineNumber).toBe(index + 1);
  });
});

test('parameter values with quotes and non-ASCII text match exactly, never as SQL', async () => {
  const bySupplier = 'SELECT VALUE COUNT(1) FROM c WHERE c.tenantId = @tenant AND c.supplierName = @p';
  const [quoted] = await query<number>(contracts, 'contoso', bySupplier, [{ name: '@p', value: `O'Reilly "Premium" Supplies Ltd.` }]);
  const [umlaut] = await query<number>(contracts, 'contoso', bySupplier, [{ name: '@p', value: 'Müller & Söhne GmbH' }]);
  const [injection] = await query<number>(contracts, 'contoso', bySupplier, [{ name: '@p', value: `x' OR 1=1 --` }]);
  expect(quoted).toBeGreaterThan(0);
  expect(umlaut).toBeGreaterThan(0);
  expect(injection).toBe(0);
});

test('OFFSET/LIMIT is not supported by the embedded server', async () => {
  const sql = 'SELECT c.id FROM c WHERE c.tenantId = @tenant ORDER BY c.id OFFSET 10 LIMIT 10';
  await expect(query(contracts, 'contoso', sql)).rejects.toMatchObject({ code: 400 });
});

test('the server ignores partitionKey, so the tenant must also be in the WHERE clause', async () => {
  const { resources } = await contracts.items
    .query<number>('SELECT VALUE COUNT(1) FROM c', { partitionKey: ['contoso'] })
    .fetchAll();
  expect(resources).toEqual([RECORDS * TENANTS.length]);
});

// patches/@zeit+cosmosdb-query: AND and OR stop at a decisive left side. Cosmos's three-valued
// logic must hold whichever side is undefined: `false AND undefined` is false, `true AND
// undefined` undefined, `true OR undefined` true, `false OR undefined` undefined, and a WHERE keeps
// only true (NOT tells false from undefined).
test.each([
  ['NOT (c.flag = true AND c.nothing = 1)', ['off']],
  ['NOT (c.nothing = 1 AND c.flag = true)', ['off']],
  ['c.flag = true AND c.nothing = 1', []],
  ['c.flag = true OR c.nothing = 1', ['on']],
  ['c.nothing = 1 OR c.flag = true', ['on']],
  ['NOT (c.flag = false OR c.nothing = 1)', []],
  ['NOT (c.nothing = 1 OR c.flag = false)', []],
  ['NOT (c.flag = false) AND (c.flag = true OR c.nothing = 1)', ['on']],
  ['IS_DEFINED(c.flag) AND NOT (c.flag AND c.nothing = 1)', ['off']],
])('logic with undefined holds under short-circuit: %s', async (condition, expected) => {
  const tenant = 'logic';
  await Promise.all([{ id: 'on', flag: true }, { id: 'off', flag: false }, { id: 'neither' }]
    .map((document) => contracts.items.upsert({ ...document, tenantId: tenant })));
  const ids = await query<string>(contracts, tenant, `SELECT VALUE c.id FROM c WHERE c.tenantId = @tenant AND (${condition})`);
  expect(ids.sort()).toEqual(expected);
});

/** One request to the server as a gateway receives it, its body parsed. */
function rawQuery(path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    // The embedded server's self-signed certificate, on loopback, in a test.
    const request = httpsRequest(`${server.endpoint}${path}`, { method: 'POST', rejectUnauthorized: false, headers: { 'content-type': 'application/query+json', 'x-ms-documentdb-isquery': 'True', ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

// patches/@vercel+cosmosdb-server: the SDK asks for a query plan beside each query; the server
// answers it without running the query (it ran every query twice), and still runs the query itself.
test('a query plan request is answered without running the query', async () => {
  const path = `/dbs/${DATABASE_ID}/colls/${CONTRACTS.containerId}/docs`;
  const body = { query: 'SELECT VALUE c.id FROM c WHERE c.tenantId = @tenant', parameters: [{ name: '@tenant', value: 'contoso' }] };
  const crossPartition = { 'x-ms-documentdb-query-enablecrosspartition': 'True' };
  const plan = await rawQuery(path, { ...crossPartition, 'x-ms-cosmos-is-query-plan-request': 'True' }, body);
  expect(plan).toEqual({ status: 200, body: { Documents: [], _count: 0 } });
  const run = await rawQuery(path, crossPartition, body);
  expect(run.status).toBe(200);
  expect(run.body._count).toBe(RECORDS);
  expect((await rawQuery(`/dbs/${DATABASE_ID}/colls/nowhere/docs`, { ...crossPartition, 'x-ms-cosmos-is-query-plan-request': 'True' }, body)).status).toBe(404);
});

test('a function is refused with the wrong count of arguments, as in Cosmos, whether or not a document reaches it', async () => {
  expect(await query<boolean>(contracts, 'contoso', 'SELECT VALUE IS_STRING(c.id) FROM c WHERE c.tenantId = @tenant AND IS_DEFINED(c.id)')).toContain(true);
  for (const call of ['IS_STRING()', 'IS_STRING(c.id, c.id)', 'IS_DEFINED(c.id, 1)', 'ABS()', 'CONCAT(c.id)']) {
    await expect(query(contracts, 'contoso', `SELECT VALUE ${call} FROM c WHERE c.tenantId = @tenant`)).rejects.toMatchObject({ code: 400 });
    // Refused when the query is compiled, as Cosmos does: also where no document reaches the call
    // (the left of an AND is false for every one, so the engine never evaluates its right).
    await expect(query(contracts, 'contoso', `SELECT VALUE c.id FROM c WHERE c.tenantId = @tenant AND c.id = 'none' AND ${call}`)).rejects.toMatchObject({ code: 400 });
  }
});

// patches/@zeit+cosmosdb-query (range-index.js): a WHERE that is a conjunction holding a range on
// a path (or an OR of such conjunctions) runs over the documents in that range of a sorted index,
// made when a second query asks for it. The answers must be the full scan's: for values of every
// type at the path, the range on either side, two ranges on one path, ORs, a JOIN, an ORDER BY,
// pages, and after a write.
describe('the range index answers as a full scan does', () => {
  const tenant = 'ranges';
  const values: unknown[] = ['2024-01', '2024-01-15', '2024-02', 'b', '', 0, 1, 2.5, -1, true, false, null, [1], { x: 1 }, undefined];
  const documents = values.map((value, at) => ({ id: `v${String(at).padStart(2, '0')}`, tenantId: tenant, ...(value === undefined ? {} : { level: value, nested: { level: value } }), lines: [{ at }] }));
  /** The ids a condition keeps, asked three times (scanned, then the index made, then read) and by a WHERE the index cannot narrow. */
  async function ids(condition: string, parameters: SqlParameter[]): Promise<string[]> {
    const sql = (where: string) => `SELECT VALUE c.id FROM c WHERE c.tenantId = @tenant AND ${where} ORDER BY c.id`;
    const asked = [];
    for (let time = 0; time < 3; time++) asked.push(await query<string>(contracts, tenant, sql(condition), parameters));
    const scanned = await query<string>(contracts, tenant, sql(`((${condition}) = true)`), parameters);
    for (const answer of asked) expect(answer).toEqual(scanned);
    return scanned;
  }

  beforeAll(async () => {
    await Promise.all(documents.map((document) => contracts.items.upsert(document)));
  });

  test.each([
    ['c.level >= @from AND c.level < @before', [{ name: '@from', value: '2024-01' }, { name: '@before', value: '2024-02' }], ['v00', 'v01']],
    ['@from <= c.level AND @before > c.level', [{ name: '@from', value: '2024-01' }, { name: '@before', value: '2024-02' }], ['v00', 'v01']],
    ['c.level > @from', [{ name: '@from', value: '2024-01' }], ['v01', 'v02', 'v03']],
    ['c.level <= @to', [{ name: '@to', value: '2024-01' }], ['v00', 'v04']],
    ['c.level >= @from', [{ name: '@from', value: 0 }], ['v05', 'v06', 'v07']],
    ['c.level < @to AND c.level > -5', [{ name: '@to', value: 1 }], ['v05', 'v08']],
    ['c.level >= 0 AND c.level <= 1 AND c.level > 0', [], ['v06']],
    ['c.level >= @from AND c.nested.level < @before', [{ name: '@from', value: '2024-01' }, { name: '@before', value: 'a' }], ['v00', 'v01', 'v02']],
    ['c.nested["level"] >= @from', [{ name: '@from', value: 1 }], ['v06', 'v07']],
    ['c.level >= @from', [{ name: '@from', value: true }], ['v09']],
    ['c.level >= @from', [{ name: '@from', value: null }], ['v11']],
    ['c.level >= @from', [{ name: '@from', value: 'zzz' }], []],
    ['c.level < @to AND c.level > @from', [{ name: '@to', value: '2024-01' }, { name: '@from', value: '2024-02' }], []],
    ['NOT (c.level >= @from)', [{ name: '@from', value: '2024-02' }], ['v00', 'v01', 'v04']],
    ['(c.level >= @from OR c.level = 0)', [{ name: '@from', value: 'b' }], ['v03', 'v05']],
    ['((c.level >= @from AND c.level < @before) OR c.level >= 2 OR (c.nested.level <= @to AND c.id != "v00"))', [{ name: '@from', value: '2024-01-10' }, { name: '@before', value: '2024-02' }, { name: '@to', value: '' }], ['v01', 'v04', 'v07']],
    ['(c.level > @from OR c.level < @from) AND (c.level < 1 OR c.level >= "b")', [{ name: '@from', value: 0 }], ['v08']],
    ['(c.level >= @from OR c.level < @to)', [{ name: '@from', value: 'b' }, { name: '@to', value: '' }], ['v03']],
    ['c.level >= @from AND c.level < @missing', [{ name: '@from', value: '2024-01' }], []],
  ])('%s (%j)', async (condition, parameters, expected) => {
    expect(await ids(condition, parameters)).toEqual(expected);
  });

  test('a JOIN and pages of a narrowed query hold every row once, in the order of a full scan', async () => {
    const sql = 'SELECT r.id, l.at FROM root r JOIN l IN r.lines WHERE r.tenantId = @tenant AND r.level >= @from AND r.level < @before';
    const parameters = [{ name: '@tenant', value: tenant }, { name: '@from', value: -1 }, { name: '@before', value: 100 }];
    for (let time = 0; time < 3; time++) {
      const pages = [];
      for await (const page of contracts.items.query({ query: sql, parameters }, { partitionKey: [tenant], maxItemCount: 2 }).getAsyncIterator()) pages.push(...page.resources);
      expect(pages).toEqual([{ id: 'v05', at: 5 }, { id: 'v06', at: 6 }, { id: 'v07', at: 7 }, { id: 'v08', at: 8 }]);
    }
  });

  test('a query a document outside the range would fail fails on every ask, index or not', async () => {
    await contracts.items.upsert({ id: 'v99', tenantId: tenant, level: '2030', lines: 'no array', pattern: '(' });
    const parameters = [{ name: '@from', value: '2024-01' }, { name: '@before', value: '2024-02' }];
    for (let time = 0; time < 3; time++) {
      await expect(query(contracts, tenant, 'SELECT c.id, l FROM c JOIN l IN c.lines WHERE c.tenantId = @tenant AND c.level >= @from AND c.level < @before', parameters)).rejects.toMatchObject({ code: 400 });
      await expect(query(contracts, tenant, 'SELECT VALUE c.id FROM c WHERE c.tenantId = @tenant AND NOT RegexMatch(c.id, c.pattern) AND c.level >= @from AND c.level < @before', parameters)).rejects.toMatchObject({ code: 400 });
      await expect(query(contracts, tenant, 'SELECT VALUE c.id FROM c WHERE c.tenantId = @tenant AND EXISTS(SELECT VALUE l FROM l IN c.lines) AND c.level >= @from AND c.level < @before', parameters)).rejects.toMatchObject({ code: 400 });
    }
    await contracts.item('v99', [tenant]).delete();
  });

  test('a write is seen by the next query: the index is of the documents as they are', async () => {
    const parameters = [{ name: '@from', value: '2025' }, { name: '@before', value: '2026' }];
    expect(await ids('c.level >= @from AND c.level < @before', parameters)).toEqual([]);
    await contracts.items.upsert({ id: 'v03', tenantId: tenant, level: '2025-06' });
    expect(await ids('c.level >= @from AND c.level < @before', parameters)).toEqual(['v03']);
    await contracts.item('v03', [tenant]).delete();
    expect(await ids('c.level >= @from AND c.level < @before', parameters)).toEqual([]);
  });
});
