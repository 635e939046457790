import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DATABASE_ID, resourceNamed } from '../../shared/model/resources.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { client, directStore } from '../support/stack.js';
import { accessClaims, callService, startTestService, type TestService } from '../support/test-service.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

// The tenant's records of this month are the test's own: the seed never writes before 2025.
const MONTH = { createdFrom: '2024-06-01', createdTo: '2024-06-30' };
const CLIENTS = ['contoso-full', 'contoso-basic', 'contoso-financials'];
// Past the quiet period: every write of the test is settled for this service at once, so two checks
// with nothing written between them must agree (the real-clock service below shows the other side).
const AHEAD_MS = (QUIET_SECONDS + 3) * 1000;
const ahead = () => Date.now() + AHEAD_MS;

let own: OwnTenant;
let template: { contract: Doc; invoice: Doc };
let serial = 0;

interface Answer {
  readonly status: number;
  readonly etag: string | null;
  readonly schema: string | null;
  readonly asOf: string | null;
  readonly requestId: string;
  readonly body: Buffer;
}

async function ask(service: TestService, options: { as?: string; resource?: string; body?: object; accept?: string; ifNoneMatch?: string; query?: string } = {}): Promise<Answer> {
  const token = await service.idp!.signToken(accessClaims(service, options.as ?? 'contoso-full'));
  const response = await callService(service, options.resource ?? 'contracts', {
    headers: {
      authorization: `Bearer ${token}`, 'x-api-key': service.identities.apiKeys[0]!, accept: options.accept ?? 'application/json',
      ...(options.ifNoneMatch === undefined ? {} : { 'if-none-match': options.ifNoneMatch }),
    },
    body: JSON.stringify(options.body ?? MONTH),
    ...(options.query ? { query: options.query } : {}),
  });
  return { status: response.status, etag: response.headers.get('etag'), schema: response.headers.get('x-summary-schema'), asOf: response.headers.get('x-summary-as-of'), requestId: response.headers.get('x-request-id')!, body: Buffer.from(await response.arrayBuffer()) };
}

const etagOf = async (options: Parameters<typeof ask>[1] = {}) => (await ask(own.service, options)).etag!;

function contract(overrides: Doc = {}): Doc {
  const id = `CON-VALIDATOR-${String(++serial).padStart(5, '0')}`;
  return { ...template.contract, id, contractId: id, status: 'Published', createdDate: '2024-06-10T08:00:00.000Z', updatedDate: '2024-06-10T08:00:00.000Z', ...overrides };
}

beforeAll(async () => {
  own = await startOwnTenant(10, { clients: CLIENTS, service: { clock: ahead, cursorDeadlineMs: 30_000 } });
  const [contracts, invoices] = await Promise.all([own.documents('contracts'), own.documents('invoices')]);
  template = { contract: contracts[0]!, invoice: invoices[0]! };
  await own.write('contracts', [contract(), contract(), contract({ status: 'Draft' }), contract({ createdDate: '2024-06-20T08:00:00.000Z' })]);
});

afterAll(async () => {
  await own?.stop();
});

describe('the ETag of a result', () => {
  it('comes with every 200: JSON pages, the Parquet file and the invoices zip, with the schema fingerprint', async () => {
    for (const [resource, accept] of [['contracts', 'application/json'], ['contracts', 'application/vnd.apache.parquet'], ['invoices', 'application/json'], ['invoices', 'application/vnd.apache.parquet']] as const) {
      const answer = await ask(own.service, { resource, accept, body: {} });
      expect([resource, accept, answer.status]).toEqual([resource, accept, 200]);
      expect(answer.etag).toMatch(/^W\/"[0-9a-f]{32}"$/);
      expect(answer.schema).toMatch(/^[0-9a-f]{32}$/);
    }
  });

  it('is the same on every page of a walk and for any page size, and differs between formats', async () => {
    const first = await ask(own.service, { query: 'page=1&pageSize=1' });
    const second = await ask(own.service, { query: 'page=2&pageSize=1' });
    const whole = await ask(own.service, { query: 'pageSize=100' });
    expect(JSON.parse(second.body.toString()).data).toHaveLength(1);
    expect(second.etag).toBe(first.etag);
    expect(whole.etag).toBe(first.etag);
    const parquet = await ask(own.service, { accept: 'application/vnd.apache.parquet' });
    expect(parquet.etag).not.toBe(first.etag);
    expect(parquet.schema).not.toBe(first.schema);
  });

  it('is the same on another instance and after a restart', async () => {
    const before = await etagOf();
    const other = await startTestService({ clock: ahead, settings: { CLIENT_REGISTRY: JSON.stringify({ [client('contoso-full').clientId]: own.tenant }) } });
    try {
      expect((await ask(other)).etag).toBe(before);
      expect((await ask(other, { accept: 'application/vnd.apache.parquet' })).etag).toBe(await etagOf({ accept: 'application/vnd.apache.parquet' }));
    } finally {
      await other.stop();
    }
  });

  it('differs with the filters, the order and the caller\'s view, and the schema fingerprint with the columns only', async () => {
    const base = await ask(own.service);
    expect(await etagOf({ body: { ...MONTH, order: 'desc' } })).not.toBe(base.etag);
    expect(await etagOf({ body: { createdFrom: '2024-06-01', createdTo: '2024-06-29' } })).not.toBe(base.etag);
    const basic = await ask(own.service, { as: 'contoso-basic' });
    const financials = await ask(own.service, { as: 'contoso-financials' });
    expect(new Set([base.etag, basic.etag, financials.etag]).size).toBe(3);
    expect(new Set([base.schema, basic.schema, financials.schema]).size).toBe(3);
    expect((await ask(own.service, { body: { ...MONTH, order: 'desc' } })).schema).toBe(base.schema);
  });
});

describe('the time an answer reflects (X-Summary-As-Of)', () => {
  /** The whole seconds resultAsOf may give for a request made between `before` and `after` (the service's clock). */
  const between = (asOf: string | null, before: number, after: number) => {
    const time = Date.parse(asOf ?? '');
    return asOf !== null && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(asOf) && time >= (Math.floor(before / 1000) - QUIET_SECONDS) * 1000 && time <= (Math.floor(after / 1000) - QUIET_SECONDS) * 1000;
  };

  it('comes with every 200 and 412, QUIET_SECONDS before the service took the version, in whole seconds', async () => {
    for (const [resource, accept] of [['contracts', 'application/json'], ['contracts', 'application/vnd.apache.parquet'], ['invoices', 'application/json'], ['invoices', 'application/vnd.apache.parquet']] as const) {
      const before = ahead();
      const answer = await ask(own.service, { resource, accept });
      const check = await ask(own.service, { resource, accept, ifNoneMatch: answer.etag! });
      const after = ahead();
      expect([resource, accept, answer.status, check.status]).toEqual([resource, accept, 200, 412]);
      expect([between(answer.asOf, before, after), between(check.asOf, before, after)]).toEqual([true, true]);
      expect(Date.parse(check.asOf!)).toBeGreaterThanOrEqual(Date.parse(answer.asOf!));
    }
  });

  it('is the first page\'s on every page of a walk read from its cursor', async () => {
    const first = await ask(own.service, { query: 'page=1&pageSize=1' });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = await ask(own.service, { query: 'page=2&pageSize=1' });
    expect(JSON.parse(second.body.toString()).data).toHaveLength(1);
    expect(second.asOf).toBe(first.asOf);
  });
});

describe('If-None-Match', () => {
  it('answers 412 RESULT_UNCHANGED with the ETag and no record, having read no record document', async () => {
    for (const accept of ['application/json', 'application/vnd.apache.parquet']) {
      const current = await ask(own.service, { accept });
      const check = await ask(own.service, { accept, ifNoneMatch: current.etag! });
      expect(check.status).toBe(412);
      expect(check.etag).toBe(current.etag);
      expect(check.schema).toBe(current.schema);
      expect(JSON.parse(check.body.toString())).toMatchObject({ code: 'RESULT_UNCHANGED', status: 412 });
      const line = own.service.logs.map((text) => JSON.parse(text) as Doc).find((entry) => entry.requestId === check.requestId)!;
      expect(line).toMatchObject({ status: 412, code: 'RESULT_UNCHANGED', records: 0, storeDocuments: 0 });
      expect(line.requestCharge).toBeGreaterThan(0);
    }
  });

  it('answers the result as without it when no tag matches, and takes lists, weak or strong spellings and *', async () => {
    const { etag } = await ask(own.service);
    const opaque = etag!.slice(2);
    expect((await ask(own.service, { ifNoneMatch: 'W/"0000"' })).status).toBe(200);
    expect((await ask(own.service, { ifNoneMatch: `W/"0000", ${etag}` })).status).toBe(412);
    expect((await ask(own.service, { ifNoneMatch: opaque })).status).toBe(412);
    expect((await ask(own.service, { ifNoneMatch: '*' })).status).toBe(412);
  });

  it('refuses a value that is no list of entity tags (400 INVALID_PRECONDITION), and is looked at only after the filters', async () => {
    const bad = await ask(own.service, { ifNoneMatch: 'W/abc' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body.toString())).toMatchObject({ code: 'INVALID_PRECONDITION' });
    const { etag } = await ask(own.service);
    const badFilter = await ask(own.service, { ifNoneMatch: etag!, body: { createdFrom: '2024-06-01' } });
    expect(JSON.parse(badFilter.body.toString())).toMatchObject({ code: 'DATE_RANGE_INCOMPLETE' });
  });
});

describe('a change of the result changes its ETag', () => {
  async function changes(write: () => Promise<void>, options: Parameters<typeof ask>[1] = {}): Promise<boolean> {
    const before = await etagOf(options);
    await write();
    const check = await ask(own.service, { ...options, ifNoneMatch: before });
    return check.status === 200 && check.etag !== before;
  }

  it('a record created in the window', async () => {
    expect(await changes(() => own.write('contracts', [contract()]))).toBe(true);
  });

  it('an update that leaves every date alone, and one to a field the caller cannot see', async () => {
    const [record] = await own.documents('contracts').then((all) => all.filter((doc) => doc.id.startsWith('CON-VALIDATOR') && doc.status === 'Published'));
    expect(await changes(() => own.write('contracts', [{ ...record, title: `${record!.title} (amended)` }]))).toBe(true);
    // A basic caller cannot see contractAmount: its answer is the same, but the check cannot know
    // without reading the record (docs/decisions.md: what a validator reveals).
    expect(await changes(() => own.write('contracts', [{ ...record, contractAmount: 1234.5 }]), { as: 'contoso-basic' })).toBe(true);
  });

  it('a delete, and a delete with an insert between two checks (the same count)', async () => {
    const victims = (await own.documents('contracts')).filter((doc) => doc.id.startsWith('CON-VALIDATOR') && doc.status === 'Published');
    expect(await changes(() => own.remove('contracts', [victims[0]!.id]))).toBe(true);
    const count = async () => JSON.parse((await ask(own.service)).body.toString()).pagination.totalRecords as number;
    const before = await count();
    expect(await changes(async () => {
      await own.remove('contracts', [victims[1]!.id]);
      await own.write('contracts', [contract()]);
    })).toBe(true);
    expect(await count()).toBe(before);
  });

  it('a record moving out of the window, and an invoice line changed', async () => {
    const [record] = (await own.documents('contracts')).filter((doc) => doc.id.startsWith('CON-VALIDATOR') && doc.status === 'Published');
    expect(await changes(() => own.write('contracts', [{ ...record, createdDate: '2024-07-02T00:00:00.000Z' }]))).toBe(true);
    const invoice: Doc = { ...template.invoice, id: 'INV-VALIDATOR-1', invoiceId: 'INV-VALIDATOR-1', status: 'Approved', contractStatus: 'Published', createdDate: '2024-06-11T00:00:00.000Z' };
    await own.write('invoices', [invoice]);
    const lines = invoice.lines.map((line: Doc, index: number) => (index === 0 ? { ...line, quantity: line.quantity + 1 } : line));
    expect(await changes(() => own.write('invoices', [{ ...invoice, lines }]), { resource: 'invoices', accept: 'application/vnd.apache.parquet' })).toBe(true);
  });

  it('a Draft becoming visible changes the ETag of a client without Drafts; a write to a hidden Draft does not', async () => {
    const draft = contract({ status: 'Draft' });
    await own.write('contracts', [draft]);
    expect(await changes(() => own.write('contracts', [{ ...draft, title: 'still a draft' }]), { as: 'contoso-basic' })).toBe(false);
    expect(await changes(() => own.write('contracts', [{ ...draft, title: 'seen by Drafts' }]), { as: 'contoso-full' })).toBe(true);
    expect(await changes(() => own.write('contracts', [{ ...draft, status: 'Published' }]), { as: 'contoso-basic' })).toBe(true);
    expect(await changes(() => own.write('contracts', [{ ...draft, status: 'Draft' }]), { as: 'contoso-basic' })).toBe(true);
  });

  it('leaves it alone for writes outside the result: another month, another tenant', async () => {
    expect(await changes(() => own.write('contracts', [contract({ createdDate: '2024-05-15T00:00:00.000Z' })]))).toBe(false);
    const store = directStore();
    try {
      const other = { ...contract(), tenantId: 'validator-other-tenant' } as Doc & { id: string; tenantId: string };
      const container = store.database(DATABASE_ID).container(resourceNamed('contracts').containerId);
      expect(await changes(async () => {
        await container.items.upsert(other);
      })).toBe(false);
    } finally {
      store.dispose();
    }
  });
});

describe('a result written to within the quiet period', () => {
  it('gets an ETag no other answer has, so a second write in the same second is never missed', async () => {
    const live = await startTestService({ settings: { CLIENT_REGISTRY: JSON.stringify({ [client('contoso-full').clientId]: own.tenant }) } });
    try {
      const record = contract();
      await own.write('contracts', [record]);
      const first = await ask(live);
      // Written again at once: most likely in the same second, where `_ts` does not move.
      await own.write('contracts', [{ ...record, title: 'written twice in one second' }]);
      const second = await ask(live, { ifNoneMatch: first.etag! });
      expect(second.status).toBe(200);
      expect(second.etag).not.toBe(first.etag);
      // Nothing written since: still moving for the live clock, settled for the clock ahead.
      expect((await ask(live, { ifNoneMatch: second.etag! })).status).toBe(200);
      const settled = await etagOf();
      expect((await ask(own.service, { ifNoneMatch: settled })).status).toBe(412);
    } finally {
      await live.stop();
    }
  });
});

describe('a JSON walk when the result changes under it', () => {
  it('carries the ETag it started with on every page; an If-None-Match on a later page answers the result as it is now', async () => {
    const first = await ask(own.service, { query: 'page=1&pageSize=1' });
    await own.write('contracts', [contract({ createdDate: '2024-06-30T23:00:00.000Z' })]);
    const second = await ask(own.service, { query: 'page=2&pageSize=1' });
    expect(second.status).toBe(200);
    expect(second.etag).toBe(first.etag);
    const checked = await ask(own.service, { query: 'page=2&pageSize=1', ifNoneMatch: first.etag! });
    expect(checked.status).toBe(200);
    expect(checked.etag).not.toBe(first.etag);
    expect(JSON.parse(checked.body.toString()).pagination.totalRecords).toBe(JSON.parse(first.body.toString()).pagination.totalRecords + 1);
    const now = await ask(own.service, { query: 'page=1&pageSize=1' });
    expect(now.etag).toBe(checked.etag);
    expect((await ask(own.service, { query: 'page=3&pageSize=1', ifNoneMatch: now.etag! })).status).toBe(412);
  });
});
