import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildAllowlist } from '../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../shared/access/datapoints.js';
import { filterMembers } from '../../shared/filters/filter-members.js';
import { parseFilters } from '../../shared/filters/parse-filters.js';
import { CONTRACTS } from '../../shared/model/contracts.js';
import { INVOICES } from '../../shared/model/invoices.js';
import type { ResourceDefinition } from '../../shared/model/resource-definition.js';
import type { StoredRecord } from '../../shared/model/view.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';
import { cleanRecord, newCleaningReport, planCleaning } from '../../shared/output/record-cleaner.js';
import { createCosmosRecordStore } from '../../shared/store/cosmos-record-store.js';
import { credentials } from '../support/export-jobs.js';
import { committedDocument, createDocumentValidator } from '../support/document-validator.js';
import { checkResponse } from '../support/response-checker.js';
import { readParquet, unzip } from '../support/parquet.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { directStore } from '../support/stack.js';

// POST /v1/<resource>/delta over HTTP, against the real store and Azurite (its tokens' states and
// later pages): a first call's pages and token, then the changes and removals since it, followed
// by links alone as Data Factory and dlt do; Parquet with its `_removed` column; every way a
// token can be wrong.
const GATEWAY = 'https://gateway.example.com/summary';
const client = directStore();
const store = createCosmosRecordStore(client, { timeoutMs: 20_000 });
const allowlist = buildAllowlist(DATAPOINTS);
const document = committedDocument();
const validator = createDocumentValidator(document);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;
type Page = { data: Doc[]; pagination: { page: number; pageSize: number; totalRecords: number; totalPages: number; hasNext: boolean; nextLink?: string }; delta: { nextPage?: string; deltaToken?: string; deltaLink?: string } };

let own: OwnTenant;
let offset = 0;
let serial = 0;

beforeAll(async () => {
  // The service's clock runs `offset` ahead of the machine's (a token's life is told by it).
  own = await startOwnTenant(30, {
    clients: ['contoso-full', 'contoso-basic'],
    service: { exports: { triggers: false }, clock: () => Date.now() + offset },
    settings: { PUBLIC_BASE_URL: GATEWAY, DELTA_TOKEN_DAYS: '2' },
    secondPerWrite: true,
  });
});

afterAll(async () => {
  await own?.stop();
  client.dispose();
});

/** The three credentials of `as`, valid at the service's clock. */
async function headersOf(as: string, claims: Record<string, unknown> = {}): Promise<Record<string, string>> {
  const now = Math.floor((Date.now() + offset) / 1000);
  return credentials(own.service, as, { iat: now - 10, nbf: now - 10, exp: now + 600, ...claims });
}

/** POSTs as `as` (default contoso-full); every JSON answer (page or problem) is checked against the committed OpenAPI document. */
async function post(url: string, init: { as?: string; body?: unknown; accept?: string; claims?: Record<string, unknown> } = {}): Promise<Response> {
  const target = new URL(url.replace(GATEWAY, own.service.baseUrl));
  const response = await fetch(target, {
    method: 'POST',
    headers: { ...(await headersOf(init.as ?? 'contoso-full', init.claims)), 'content-type': 'application/json', accept: init.accept ?? 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const json = /json/.test(response.headers.get('content-type') ?? '');
  const body = json ? await response.clone().json() : undefined;
  const path = target.pathname.replace(new URL(own.service.baseUrl).pathname, '');
  expect([path, response.status, checkResponse(document, validator, { path, method: 'POST', status: response.status, headers: response.headers, ...(json ? { body } : {}) })]).toEqual([path, response.status, []]);
  return response;
}

const deltaUrl = (resource: string) => `${own.service.baseUrl}/v1/${resource}/delta`;

/** A whole JSON delta: its first page asked with `body`, then every next link followed with no body; its rows and token. */
async function wholeDelta(resource: string, body: Record<string, unknown>, as = 'contoso-full'): Promise<{ rows: Doc[]; token: string; deltaLink: string; pages: Page[] }> {
  const pages: Page[] = [];
  // Every page names the columns of the caller's view as the summary operation's JSON answers do.
  const summary = await post(`${own.service.baseUrl}/v1/${resource}/summary`, { as, body: { pageSize: 1 } });
  const schema = summary.headers.get('x-summary-schema');
  expect(schema).toMatch(/^[0-9a-f]{32}$/);
  const asked = Date.now() + offset;
  let response = await post(deltaUrl(resource), { as, body });
  for (;;) {
    expect([response.status, await response.clone().text().then((text) => (response.status === 200 ? '' : text))]).toEqual([200, '']);
    expect(response.headers.get('x-summary-schema')).toBe(schema);
    const page = await response.json() as Page;
    pages.push(page);
    if (!page.pagination.hasNext) {
      expect(response.headers.get('x-summary-delta-token')).toBe(page.delta.deltaToken);
      // Every write before it is in this delta or an earlier one: the quiet margin before the first page was asked.
      const asOf = Date.parse(response.headers.get('x-summary-as-of') ?? '');
      expect(asOf).toBeGreaterThanOrEqual(asked - (QUIET_SECONDS + 1) * 1000);
      expect(asOf).toBeLessThanOrEqual(asked - (QUIET_SECONDS - 1) * 1000);
      return { rows: pages.flatMap((each) => each.data), token: page.delta.deltaToken!, deltaLink: page.delta.deltaLink!, pages };
    }
    expect(page.delta.deltaToken).toBeUndefined();
    response = await post(page.pagination.nextLink!, { as });
  }
}

/** What the caller's view holds now, cleaned as answers are: the truth a mirror must equal. */
async function truth(resource: ResourceDefinition, roles: readonly string[], body: Record<string, unknown> = {}, tenant = own.tenant): Promise<Map<string, StoredRecord>> {
  const view = allowlist.view(resource, roles);
  const query = parseFilters({ body, query: new URLSearchParams(), view, members: filterMembers(resource), maxPageSize: 1000, ranges: 'open' });
  const plan = planCleaning(view);
  const all = new Map<string, StoredRecord>();
  for await (const page of store.stream({ tenant, view }, query)) {
    for (const record of page) {
      const cleaned = cleanRecord(plan, record, newCleaningReport());
      if (cleaned) all.set(String(record[resource.idField]), cleaned);
    }
  }
  return all;
}

/** A loader's copy: changed rows upserted, removal rows deleted. */
function apply(mirror: Map<string, Doc>, rows: readonly Doc[], idField: string): void {
  for (const row of rows) {
    const id = String(row[idField]);
    if (row._removed !== undefined) mirror.delete(id);
    else mirror.set(id, row);
  }
}

const FULL = ['Data.Read', 'Data.Read.Financials', 'Data.Read.Suppliers', 'Data.Read.Drafts'];
const BASIC = ['Data.Read'];
const quiet = () => new Promise((resolve) => setTimeout(resolve, (QUIET_SECONDS + 1) * 1000));

describe('a JSON delta', () => {
  const mirror = new Map<string, Doc>();
  let token = '';
  let deltaLink = '';

  it('answers the whole view in pages on its first call, next links reaching every record once, and a token on the last page', async () => {
    const first = await wholeDelta('contracts', { pageSize: 7 });
    const expected = await truth(CONTRACTS, FULL);
    expect(first.pages.length).toBe(Math.ceil(expected.size / 7));
    expect(first.pages.map((page) => page.pagination.totalRecords)).toEqual(first.pages.map(() => expected.size));
    apply(mirror, first.rows, 'contractId');
    expect(first.rows.length).toBe(expected.size);
    expect(mirror).toEqual(expected);
    // Links carry the page size into the next delta, never a filter the caller did not send.
    expect(first.deltaLink).toBe(`${GATEWAY}/v1/contracts/delta?pageSize=7&deltaToken=${first.token}`);
    ({ token, deltaLink } = first);
  });

  it('then holds exactly the changes and removals since the token: a create, an update that leaves updatedDate, a delete, a record turned Draft (for a view without Drafts)', async () => {
    const documents = (await own.documents('contracts')).filter((document) => document.status === 'Published');
    const [updated, gone, drafted] = documents;
    const template = documents[3]!;
    const created: Doc = { ...template, id: `CON-HTTP-${++serial}`, contractId: `CON-HTTP-${serial}`, createdDate: '2019-05-05T08:00:00.000Z' };
    const basicFirst = await wholeDelta('contracts', {}, 'contoso-basic');
    await own.write('contracts', [created, { ...updated!, title: 'changed, date alone' }, { ...drafted!, status: 'Draft' }]);
    await own.remove('contracts', [gone!.id]);
    // Followed as a link alone: no body, the token in the link.
    const viaLink = await post(deltaLink);
    expect(viaLink.status).toBe(200);
    const linked = await viaLink.json() as Page;
    const byId = (rows: readonly Doc[]) => Object.fromEntries(rows.map((row) => [row.contractId, row._removed ?? row.title]));
    expect(byId(linked.data)).toEqual({ [created.id]: created.title, [updated!.id]: 'changed, date alone', [drafted!.id]: drafted!.title, [gone!.id]: 'deleted' });
    // A token answers again until a later one is used: the body's own token too.
    const again = await post(deltaUrl('contracts'), { body: { deltaToken: token, pageSize: 7 } });
    expect(byId(((await again.json()) as Page).data)).toEqual(byId(linked.data));
    apply(mirror, linked.data, 'contractId');
    expect(mirror).toEqual(await truth(CONTRACTS, FULL));
    // The view without Drafts loses the drafted record, and never learns the new Draft's id.
    const basic = await wholeDelta('contracts', { deltaToken: basicFirst.token }, 'contoso-basic');
    expect(byId(basic.rows)).toEqual({ [created.id]: created.title, [updated!.id]: 'changed, date alone', [drafted!.id]: 'leftView', [gone!.id]: 'deleted' });
    token = linked.delta.deltaToken!;
  });

  it('answers nothing, reading no record, when nothing changed', async () => {
    await quiet();
    // The first delta after the quiet margin reads from after the last write; the next reads nothing.
    const settled = await wholeDelta('contracts', { deltaToken: token, pageSize: 7 });
    const nothing = await wholeDelta('contracts', { deltaToken: settled.token });
    expect([nothing.rows, nothing.pages.length]).toEqual([[], 1]);
    const log = own.service.logs.map((line) => JSON.parse(line) as Doc).filter((entry) => entry.operation === 'contracts.delta').at(-1)!;
    expect(log.storeDocuments ?? 0).toBe(0);
  });

  it('takes a created range open at one end, or of many months: a delta is not bound by the one-month rule', async () => {
    for (const body of [{ createdFrom: '2025-01-01' }, { createdTo: '2025-06-30' }, { createdFrom: '2024-01-01', createdTo: '2026-12-31' }]) {
      const delta = await wholeDelta('contracts', body);
      const expected = await truth(CONTRACTS, FULL, body);
      expect([body, delta.rows.length]).toEqual([body, expected.size]);
      expect(new Set(delta.rows.map((row) => row.contractId))).toEqual(new Set(expected.keys()));
    }
    const reversed = await post(deltaUrl('contracts'), { body: { createdFrom: '2025-02-01', createdTo: '2025-01-01' } });
    expect([reversed.status, ((await reversed.json()) as Doc).code]).toEqual([400, 'DATE_RANGE_REVERSED']);
    for (const body of [{ page: 2 }, { orderBy: 'title' }, { order: 'desc' }]) {
      const refused = await post(deltaUrl('contracts'), { body });
      expect([body, refused.status, ((await refused.json()) as Doc).code]).toEqual([body, 400, 'UNKNOWN_FILTER']);
    }
  });
});

/** A request of a delta's page: where it goes and its body. */
type PageRequest = { url: string; body: Record<string, unknown> };
/** How a tool asks for the page after `page`, its first request given (undefined: `page` was the last). */
type NextRequest = (page: Page, first: PageRequest) => PageRequest | undefined;

const LOADERS: [string, NextRequest][] = [
  [
    'dlt\'s rest_api (docs/recipes/dlt_summary_delta.py): the first body sent again, as it is, to every next link',
    (page, first) => (page.pagination.nextLink ? { url: page.pagination.nextLink, body: first.body } : undefined),
  ],
  [
    'the Airbyte recipe (docs/recipes/airbyte/): the first body with the page\'s name as deltaPage, to the delta\'s own URL',
    (page, first) => {
      if (!page.pagination.hasNext) return undefined;
      expect(page.delta.nextPage).toEqual(expect.any(String));
      return { url: first.url, body: { ...first.body, deltaPage: page.delta.nextPage } };
    },
  ],
];

// Invoices: the block after this one counts every contract written since its copy.
describe.each(LOADERS)('a JSON delta followed as %s', (_, next) => {
  async function walk(resource: string, body: Record<string, unknown>): Promise<{ rows: Doc[]; token: string; pages: number }> {
    const first = { url: deltaUrl(resource), body };
    const rows: Doc[] = [];
    for (let pages = 1, request: PageRequest | undefined = first; ; pages++) {
      const response = await post(request.url, { body: request.body });
      expect(response.status).toBe(200);
      const page = await response.json() as Page;
      rows.push(...page.data);
      request = next(page, first);
      if (!request) return { rows, token: page.delta.deltaToken!, pages };
    }
  }

  it('keeps a mirror equal to the view: the whole view, then a night of updates and deletes over several pages, the token sent with each', async () => {
    const mirror = new Map<string, Doc>();
    const first = await walk('invoices', { pageSize: 7 });
    expect(first.pages).toBeGreaterThan(2);
    apply(mirror, first.rows, 'invoiceId');
    expect(mirror).toEqual(await truth(INVOICES, FULL));
    const documents = await own.documents('invoices');
    await own.write('invoices', documents.slice(0, 9).map((document) => ({ ...document, supplierName: `night of a loader ${++serial}`, lines: document.lines.slice(0, 1) })));
    await own.remove('invoices', documents.slice(9, 12).map((document) => document.id));
    const night = await walk('invoices', { deltaToken: first.token, pageSize: 7 });
    expect(night.pages).toBe(2);
    expect(night.rows.filter((row) => row._removed === 'deleted').map((row) => row.invoiceId).sort()).toEqual(documents.slice(9, 12).map((document) => document.invoiceId).sort());
    apply(mirror, night.rows, 'invoiceId');
    expect(mirror).toEqual(await truth(INVOICES, FULL));
  });
});

describe('a copy made without the feed', () => {
  it('starts deltas from its X-Summary-As-Of: what changed since, a kept row per other record, and a token that goes on', async () => {
    const body = { createdFrom: '2024-01-01' };
    // The copy: every write before asOf is in it (read after asOf).
    const asOf = new Date(Date.now() - 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    const copy = new Map<string, Doc>(await truth(CONTRACTS, FULL, body) as Map<string, Doc>);
    const documents = (await own.documents('contracts')).filter((document) => document.status === 'Published' && document.createdDate >= '2024');
    const [updated, gone] = documents;
    const template = documents[2]!;
    const created: Doc = { ...template, id: `CON-SINCE-${++serial}`, contractId: `CON-SINCE-${serial}`, createdDate: '2025-08-08T08:00:00.000Z' };
    await own.write('contracts', [created, { ...updated!, title: 'changed after the copy' }]);
    await own.remove('contracts', [gone!.id]);
    const started = await wholeDelta('contracts', { ...body, since: asOf, pageSize: 10 });
    const kept = new Set(started.rows.filter((row) => row._kept === true).map((row) => row.contractId));
    const changed = started.rows.filter((row) => row._kept === undefined && row._removed === undefined);
    expect(changed.map((row) => row.contractId).sort()).toEqual([created.id, updated!.id].sort());
    // The deleted record is in no row: the copy drops what no row names.
    expect([...kept].includes(gone!.id)).toBe(false);
    apply(copy, started.rows.filter((row) => row._kept === undefined), 'contractId');
    for (const id of [...copy.keys()]) if (!kept.has(id) && !changed.some((row) => row.contractId === id)) copy.delete(id);
    expect(copy).toEqual(await truth(CONTRACTS, FULL, body));
    // Then as any delta: the token continues.
    await own.write('contracts', [{ ...created, title: 'and again' }]);
    const next = await wholeDelta('contracts', { ...body, deltaToken: started.token });
    expect(next.rows.map((row) => [row.contractId, row.title])).toEqual([[created.id, 'and again']]);
  });

  it('is refused beside a token, as Parquet, in the future or malformed', async () => {
    const problem = async (response: Response) => [response.status, ((await response.json()) as Doc).code];
    const first = await wholeDelta('contracts', { createdFrom: '2025-01-01', createdTo: '2025-01-31' });
    const cases: [string, Record<string, unknown>, string?][] = [
      ['with a token', { since: '2026-01-01T00:00:00Z', deltaToken: first.token }],
      ['as Parquet', { since: '2026-01-01T00:00:00Z' }, 'application/vnd.apache.parquet'],
      ['in the future', { since: new Date(Date.now() + 3_600_000).toISOString() }],
      ['not an instant', { since: '2026-01-01' }],
      ['not a real instant', { since: '2026-02-30T00:00:00Z' }],
    ];
    for (const [what, body, accept] of cases) {
      expect([what, await problem(await post(deltaUrl('contracts'), { body, ...(accept ? { accept } : {}) }))]).toEqual([what, [400, 'INVALID_FILTER']]);
    }
  });
});

describe('stored data that is not as it should be', () => {
  it('leaves a record with a malformed required value out, as the summary operation does, and never says it was removed; records whose id is no text hide no removal', async () => {
    const template = (await own.documents('contracts')).find((document) => document.status === 'Published')!;
    const malformed: Doc = { ...template, id: 'CON-MALFORMED-1', contractId: 'CON-MALFORMED-1', title: 42, createdDate: '2025-05-05T08:00:00.000Z' };
    // Two records without a text id: one entry each would collapse into one and hide a removal.
    const numberIds: Doc[] = [{ ...template, id: 'CON-NUMBER-ID-1', contractId: 4242, createdDate: '2025-05-06T08:00:00.000Z' }, { ...template, id: 'CON-NUMBER-ID-2', contractId: null, createdDate: '2025-05-07T08:00:00.000Z' }];
    const may = { createdFrom: '2025-05-01', createdTo: '2025-05-31' };
    await own.write('contracts', [malformed, ...numberIds]);
    try {
      await quiet();
      const first = await wholeDelta('contracts', may);
      const ids = first.rows.map((row) => row.contractId);
      expect(ids).not.toContain('CON-MALFORMED-1');
      expect(ids).not.toContain(4242);
      expect(ids).not.toContain(null);
      expect(ids.length).toBeGreaterThan(1);
      const warned = own.service.logs.map((line) => JSON.parse(line) as Doc).filter((entry) => entry.operation === 'contracts.delta').at(-1)!;
      expect(warned.malformed?.recordsLeftOut).toBe(1);
      // The malformed record and a record the caller was given both go: only the given one is a removal.
      const given = String(ids[0]);
      await own.remove('contracts', ['CON-MALFORMED-1', given]);
      const next = await wholeDelta('contracts', { ...may, deltaToken: first.token });
      expect(next.rows).toEqual([{ contractId: given, _removed: 'deleted' }]);
      // A record given whole, then stored malformed: removed (no longer answered as the caller has it), then sent again once whole.
      const turned = String(ids[1]);
      const record = (await own.documents('contracts')).find((document) => document.id === turned)!;
      await own.write('contracts', [{ ...record, title: 7 }]);
      const broken = await wholeDelta('contracts', { ...may, deltaToken: next.token });
      expect(broken.rows).toEqual([{ contractId: turned, _removed: 'leftView' }]);
      await own.write('contracts', [{ ...record, title: 'whole again' }]);
      const whole = await wholeDelta('contracts', { ...may, deltaToken: broken.token });
      expect(whole.rows.map((row) => [row.contractId, row.title])).toEqual([[turned, 'whole again']]);
    } finally {
      await own.remove('contracts', numberIds.map((document) => document.id as string)).catch(() => {});
    }
  });
});

describe('a record whose creation time is no text', () => {
  it('hides no removal: the removals\' counts are of the records with a text key', async () => {
    const template = (await own.documents('contracts')).find((document) => document.status === 'Published')!;
    // In the view (no date range), left out of what is answered (a required value malformed), kept in the state without a key.
    const keyless: Doc[] = [{ ...template, id: 'CON-NOKEY-1', contractId: 'CON-NOKEY-1', createdDate: null }, { ...template, id: 'CON-NOKEY-2', contractId: 'CON-NOKEY-2', createdDate: 20250101 }];
    await own.write('contracts', keyless);
    try {
      await quiet();
      const first = await wholeDelta('contracts', {});
      const given = first.rows.map((row) => String(row.contractId));
      expect(given).not.toContain('CON-NOKEY-1');
      const [gone] = given;
      await own.remove('contracts', [gone!]);
      const next = await wholeDelta('contracts', { deltaToken: first.token });
      expect(next.rows).toEqual([{ contractId: gone, _removed: 'deleted' }]);
    } finally {
      await own.remove('contracts', keyless.map((document) => document.id as string)).catch(() => {});
    }
  });
});

describe('a Parquet delta', () => {
  it('is one file of the view\'s columns and `_removed`, the token in its header and footer; for invoices a zip of both tables', async () => {
    const first = await post(deltaUrl('contracts'), { accept: 'application/vnd.apache.parquet', body: { createdFrom: '2020-01-01' } });
    expect(first.status).toBe(200);
    const token = first.headers.get('x-summary-delta-token')!;
    expect(token).toMatch(/^d1\.[0-9a-f]{32}\.\d+$/);
    expect(first.headers.get('x-summary-schema')).toMatch(/^[0-9a-f]{32}$/);
    expect(Date.parse(first.headers.get('x-summary-as-of') ?? '')).toBeLessThanOrEqual(Date.now() - (QUIET_SECONDS - 1) * 1000);
    const table = await readParquet(new Uint8Array(await first.arrayBuffer()));
    expect(table.columns.at(-1)).toBe('_removed');
    expect(table.metadata['summary.deltaToken']).toBe(token);
    expect(table.rows.every((row) => row._removed === null || row._removed === undefined)).toBe(true);
    expect(table.numRows).toBe((await truth(CONTRACTS, FULL, { createdFrom: '2020-01-01' })).size);
    // One the view holds (created since 2020).
    const [gone] = (await own.documents('contracts')).filter((document) => document.status === 'Published' && document.createdDate >= '2020');
    await own.remove('contracts', [gone!.id]);
    const next = await post(deltaUrl('contracts'), { accept: 'application/vnd.apache.parquet', body: { createdFrom: '2020-01-01', deltaToken: token } });
    const removed = await readParquet(new Uint8Array(await next.arrayBuffer()));
    expect(removed.rows.map((row) => [row.contractId, row._removed])).toEqual([[gone!.id, 'deleted']]);

    const invoices = await post(deltaUrl('invoices'), { accept: 'application/zip' });
    expect(invoices.status).toBe(200);
    const files = unzip(new Uint8Array(await invoices.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(['invoice_tables.parquet', 'invoices.parquet']);
    const [records, lines] = await Promise.all([readParquet(files['invoices.parquet']!), readParquet(files['invoice_tables.parquet']!)]);
    const expected = await truth(INVOICES, FULL);
    expect(records.numRows).toBe(expected.size);
    expect(lines.numRows).toBe([...expected.values()].reduce((sum, invoice) => sum + (invoice.lines as unknown[]).length, 0));
  });

  it('refuses a page name (a Parquet delta is one file) and a page size', async () => {
    for (const body of [{ deltaPage: `${'a'.repeat(32)}.2` }, { pageSize: 5 }]) {
      const response = await post(deltaUrl('contracts'), { accept: 'application/vnd.apache.parquet', body });
      expect([body, response.status, ((await response.json()) as Doc).code]).toEqual([body, 400, 'PAGINATION_NOT_ALLOWED']);
    }
  });
});

describe('a token or a page that is not the caller\'s', () => {
  let token = '';
  let page = '';

  beforeAll(async () => {
    const first = await wholeDelta('contracts', { pageSize: 10 });
    token = first.token;
    page = first.pages[0]!.delta.nextPage!;
  });

  const problem = async (response: Response) => [response.status, ((await response.json()) as Doc).code];

  it('is refused alike whether it is altered, unknown, another client\'s or another resource\'s: it never says whether it exists', async () => {
    const flipped = `${token.slice(0, 3)}${token[3] === 'a' ? 'b' : 'a'}${token.slice(4)}`;
    const later = token.replace(/\.(\d+)$/, (_, issued: string) => `.${Number(issued) + 1}`);
    for (const [as, resource, sent] of [['contoso-full', 'contracts', flipped], ['contoso-full', 'contracts', later], ['contoso-basic', 'contracts', token], ['contoso-full', 'invoices', token]] as const) {
      expect([as, resource, sent, await problem(await post(deltaUrl(resource), { as, body: { deltaToken: sent } }))]).toEqual([as, resource, sent, [410, 'DELTA_TOKEN_NOT_FOUND']]);
    }
    expect(await problem(await post(deltaUrl('contracts'), { body: { deltaToken: 'd1.not-a-token' } }))).toEqual([400, 'INVALID_DELTA_TOKEN']);
    for (const [as, name] of [['contoso-full', `${'f'.repeat(32)}.2`], ['contoso-basic', page]] as const) {
      expect([as, name, await problem(await post(deltaUrl('contracts'), { as, body: { deltaPage: name } }))]).toEqual([as, name, [410, 'DELTA_PAGE_NOT_FOUND']]);
    }
    // The page is the caller's with the same filters: answered.
    expect((await post(deltaUrl('contracts'), { body: { deltaPage: page } })).status).toBe(200);
  });

  it('says the filters or the view changed (409) and the token expired (410), each saying to start again', async () => {
    const filtered = await post(deltaUrl('contracts'), { body: { deltaToken: token, createdFrom: '2025-01-01' } });
    expect(await problem(filtered)).toEqual([409, 'DELTA_FILTERS_CHANGED']);
    const fewer = await post(deltaUrl('contracts'), { body: { deltaToken: token }, claims: { roles: ['Data.Read', 'Data.Read.Financials'] } });
    const changed = await fewer.json() as Doc;
    expect([fewer.status, changed.code, changed.detail]).toEqual([409, 'DELTA_VIEW_CHANGED', expect.stringContaining('without a deltaToken')]);
    offset = (2 * 86_400 + 60) * 1000;
    try {
      const expired = await post(deltaUrl('contracts'), { body: { deltaToken: token } });
      const body = await expired.json() as Doc;
      expect([expired.status, body.code, body.detail]).toEqual([410, 'DELTA_TOKEN_EXPIRED', expect.stringContaining('2 days')]);
      expect(await problem(await post(deltaUrl('contracts'), { body: { deltaPage: page } }))).toEqual([410, 'DELTA_PAGE_NOT_FOUND']);
    } finally {
      offset = 0;
    }
  });
});

describe('a token asked with a wider date range', () => {
  it('goes on: the old range\'s changes and removals since the token, and every record of the days added, whoever wrote it when', async () => {
    const days = (await own.documents('contracts')).map((document) => String(document.createdDate).slice(0, 10)).filter((day) => day >= '2000').sort();
    // The nightly job's range: up to a day in the middle of the records (a nightly `--to` today).
    const from = days[Math.floor(days.length / 4)]!;
    const to = days[Math.floor(days.length / 2)]!;
    const later = days.at(-1)!;
    // The records beyond the range were written before the token's time by more than its margin.
    await quiet();
    const first = await wholeDelta('contracts', { createdFrom: from, createdTo: to });
    const mirror = new Map<string, Doc>();
    apply(mirror, first.rows, 'contractId');
    expect(mirror).toEqual(await truth(CONTRACTS, FULL, { createdFrom: from, createdTo: to }));
    const inside = (await own.documents('contracts')).filter((document) => document.createdDate.slice(0, 10) >= from && document.createdDate.slice(0, 10) <= to && document.createdDate.slice(0, 10) > from);
    const beyond = (await own.documents('contracts')).filter((document) => document.createdDate.slice(0, 10) > to);
    const [updated, gone, moved] = inside;
    const [beyondGone] = beyond;
    const addedDay = `${later}T09:00:00.000Z`;
    const created: Doc = { ...updated!, id: `CON-WIDER-${++serial}`, contractId: `CON-WIDER-${serial}`, createdDate: addedDay };
    await own.write('contracts', [created, { ...updated!, title: 'changed in the old range' }, { ...moved!, createdDate: addedDay, title: 'moved into the added days' }]);
    await own.remove('contracts', [gone!.id, beyondGone!.id]);
    const wider = await wholeDelta('contracts', { createdFrom: from, createdTo: later, deltaToken: first.token });
    // Removals only of records given: the one deleted in the added days was never the caller's.
    expect(wider.rows.filter((row) => row._removed !== undefined)).toEqual([{ contractId: gone!.id, _removed: 'deleted' }]);
    apply(mirror, wider.rows, 'contractId');
    const expected = await truth(CONTRACTS, FULL, { createdFrom: from, createdTo: later });
    expect(mirror).toEqual(expected);
    // Every record of the added days came, written before the token or after; of the old range, only what changed.
    const sent = new Set(wider.rows.map((row) => row.contractId));
    expect([...expected.values()].filter((record) => String(record.createdDate).slice(0, 10) > to).every((record) => sent.has(record.contractId))).toBe(true);
    expect(wider.rows.filter((row) => row._removed === undefined && String(row.createdDate).slice(0, 10) <= to).map((row) => row.contractId)).toEqual([updated!.id]);
    // Wider at its start too, from the wider token: the earlier days whole; then it goes on as any token.
    const earliest = days[0]!;
    const earlier = await wholeDelta('contracts', { createdFrom: earliest, createdTo: later, deltaToken: wider.token });
    apply(mirror, earlier.rows, 'contractId');
    expect(mirror).toEqual(await truth(CONTRACTS, FULL, { createdFrom: earliest, createdTo: later }));
    expect(earlier.rows.filter((row) => String(row.createdDate).slice(0, 10) >= from)).toEqual([]);
    await own.write('contracts', [{ ...created, title: 'and again' }]);
    const next = await wholeDelta('contracts', { createdFrom: earliest, createdTo: later, deltaToken: earlier.token });
    expect(next.rows.map((row) => [row.contractId, row.title])).toEqual([[created.id, 'and again']]);
    // Narrower, or another filter beside the wider range: other filters.
    const problem = async (body: Record<string, unknown>) => {
      const response = await post(deltaUrl('contracts'), { body: { ...body, deltaToken: next.token } });
      return [response.status, ((await response.json()) as Doc).code];
    };
    expect(await problem({ createdFrom: from, createdTo: later })).toEqual([409, 'DELTA_FILTERS_CHANGED']);
    expect(await problem({ createdFrom: earliest, createdTo: later, contractWorkspaceID: String(created.contractWorkspaceID) })).toEqual([409, 'DELTA_FILTERS_CHANGED']);
    expect(await problem({ createdFrom: earliest, createdTo: later, updatedFrom: earliest })).toEqual([409, 'DELTA_FILTERS_CHANGED']);
  });
});
