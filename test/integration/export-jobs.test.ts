import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BlobServiceClient } from '@azure/storage-blob';
import { ClientSecretCredential } from '@azure/identity';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { credentials, download, jobCall, kickOff, runJob, syncExport, tableContent, type JobStatusDocument } from '../support/export-jobs.js';
import { readParquet } from '../support/parquet.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';
import { EXPORT_STORAGE } from '../../shared/exports/export-storage.js';
import { serviceIdentity } from '../../dev/ensure-storage.js';
import { directStore, type Problem } from '../support/stack.js';
import { DATABASE_ID } from '../../shared/model/resources.js';
import { EXPORT_JOBS_CONTAINER } from '../../shared/store/container-definitions.js';

// A tenant of the test's own (its writes touch no other suite), served with export jobs on an
// Azurite of its own, the window workers run by the local trigger host off the real queue.
const RANGE = { createdFrom: '2025-01-01', createdTo: '2025-06-30' };
let own: OwnTenant;

beforeAll(async () => {
  // A version taken within QUIET_SECONDS of a write has an ETag of its own (result-etag.ts): the
  // service's clock runs past the quiet period, so the windows' ETags are compared with the
  // summary operation's with no wait (and each write lands in a second after the last: own-tenant.ts).
  own = await startOwnTenant(120, { clients: ['contoso-full', 'contoso-basic'], service: { clock: () => Date.now() + (QUIET_SECONDS + 1) * 1000, exports: { queueSettings: { maxPollingIntervalMs: 200 } } } });
});

afterAll(async () => {
  await own?.stop();
});

/** Every window of a manifest holds in its files what a synchronous export of the window answers, rows and schema. */
async function expectFilesEqualSyncExports(manifest: JobStatusDocument, name: string, resource: string, tables: readonly string[]): Promise<void> {
  for (const window of manifest.windows) {
    expect([window.label, window.status]).toEqual([window.label, 'exported']);
    const sync = await syncExport(own.service, name, resource, { createdFrom: window.from, createdTo: window.to });
    expect(window.etag).toBe(sync.etag);
    expect(window.files!.map((file) => file.table)).toEqual(tables);
    for (const file of window.files!) {
      const read = await readParquet(await download(file));
      expect([window.label, file.table, tableContent(read)]).toEqual([window.label, file.table, tableContent(sync.tables[file.table]!)]);
      expect(file.records).toBe(read.numRows);
    }
    expect(window.records).toBe(sync.tables[tables[0]!]!.numRows);
  }
}

/** How many job documents the tenant's partition of the job store holds. */
async function jobDocuments(tenant: string): Promise<number> {
  const store = directStore();
  try {
    // The tenant named in the WHERE clause too: the embedded server ignores the partition key, and
    // other suites (three run at a time) start jobs of their own tenants meanwhile.
    const query = { query: 'SELECT VALUE COUNT(1) FROM c WHERE c.kind = "job" AND c.tenantId = @tenant', parameters: [{ name: '@tenant', value: tenant }] };
    const { resources } = await store.database(DATABASE_ID).container(EXPORT_JOBS_CONTAINER.id).items.query<number>(query, { partitionKey: tenant }).fetchAll();
    return resources[0]!;
  } finally {
    store.dispose();
  }
}

describe('an export job, end to end', () => {
  it('exports every calendar month of contracts as the summary operation exports it, in files fetched without our credentials', async () => {
    const { manifest } = await runJob(own.service, 'contoso-full', 'contracts', RANGE);
    expect(manifest).toMatchObject({ resource: 'contracts', status: 'completed', progress: { windows: 6, done: 6, failed: 0 }, request: { ...RANGE, orderBy: 'createdDate', order: 'asc' } });
    expect(manifest.problem).toBeUndefined();
    expect(manifest.windows.map((window) => [window.label, window.from, window.to])[1]).toEqual(['2025-02', '2025-02-01', '2025-02-28']);
    expect(manifest.windows.reduce((sum, window) => sum + window.records!, 0)).toBeGreaterThan(10);
    expect(Date.parse(manifest.expires) - Date.parse(manifest.transactionTime)).toBeGreaterThan(23 * 3600 * 1000);
    await expectFilesEqualSyncExports(manifest, 'contoso-full', 'contracts', ['contracts']);
  });

  it('exports invoices as two tables per window, through a narrower view (its columns only)', async () => {
    const { manifest } = await runJob(own.service, 'contoso-basic', 'invoices', { createdFrom: '2025-02-10', createdTo: '2025-04-30' });
    expect(manifest.windows.map((window) => [window.label, window.from, window.to])).toEqual([['2025-02', '2025-02-10', '2025-02-28'], ['2025-03', '2025-03-01', '2025-03-31'], ['2025-04', '2025-04-01', '2025-04-30']]);
    await expectFilesEqualSyncExports(manifest, 'contoso-basic', 'invoices', ['invoices', 'invoice_tables']);
    const full = await runJob(own.service, 'contoso-full', 'invoices', { createdFrom: '2025-02-10', createdTo: '2025-04-30' });
    expect(full.manifest.schema).not.toBe(manifest.schema);
    const basicColumns = (await readParquet(await download(manifest.windows[1]!.files![0]!))).columns;
    const fullColumns = (await readParquet(await download(full.manifest.windows[1]!.files![0]!))).columns;
    expect(fullColumns.length).toBeGreaterThan(basicColumns.length);
  });

  it('exports nothing for windows whose ETags the caller holds, and exactly the window a write changed', async () => {
    const first = await runJob(own.service, 'contoso-full', 'contracts', RANGE);
    const ifNoneMatch = Object.fromEntries(first.manifest.windows.map((window) => [window.label, window.etag!]));
    const again = await runJob(own.service, 'contoso-full', 'contracts', { ...RANGE, ifNoneMatch });
    expect(again.manifest.windows.map((window) => [window.status, window.files])).toEqual(first.manifest.windows.map(() => ['unchanged', []]));
    expect(again.manifest.windows.map((window) => window.etag)).toEqual(first.manifest.windows.map((window) => window.etag));

    const [template] = (await own.documents('contracts')).filter((document) => String(document.createdDate).startsWith('2025-03'));
    const id = `job-${Date.now()}`;
    await own.write('contracts', [{ ...template, id, contractId: id, createdDate: '2025-03-15T12:00:00.000Z' }]);
    const changed = await runJob(own.service, 'contoso-full', 'contracts', { ...RANGE, ifNoneMatch });
    expect(changed.manifest.windows.map((window) => [window.label, window.status])).toEqual(first.manifest.windows.map((window) => [window.label, window.label === '2025-03' ? 'exported' : 'unchanged']));
    const march = changed.manifest.windows.find((window) => window.label === '2025-03')!;
    const rows = (await readParquet(await download(march.files![0]!))).rows;
    expect(rows.map((row) => row.contractId)).toContain(id);
    expect(march.records).toBe(first.manifest.windows.find((window) => window.label === '2025-03')!.records! + 1);
  });

  it('checks the ETags it is sent at the kick-off: with nothing changed the job is complete before it answers, and no window is queued or read', async () => {
    const first = await runJob(own.service, 'contoso-full', 'contracts', RANGE);
    // The flat list is the windows' files, each with its window and part.
    expect(first.manifest.files).toEqual(first.manifest.windows.flatMap((window) => (window.files ?? []).map((file) => ({ window: window.label, part: 0, ...file }))));
    // Last manifest's windows as they are (what Data Factory sends): the same as the object of ETags.
    const before = own.service.logs.length;
    const started = await kickOff(own.service, 'contoso-full', 'contracts', { ...RANGE, ifNoneMatch: first.manifest.windows });
    expect([started.status, started.headers.get('retry-after')]).toEqual([202, '0']);
    expect(((await started.json()) as JobStatusDocument).windows.map((window) => window.status)).toEqual(first.manifest.windows.map(() => 'unchanged'));
    const status = await jobCall(own.service, 'contoso-full', started.headers.get('location')!);
    expect(status.status).toBe(200);
    const lines = own.service.logs.slice(before).map((line) => JSON.parse(line) as { operation?: string; storeDocuments?: number });
    expect(lines.filter((line) => line.operation === 'contracts.exports.window')).toEqual([]);
    const kickOffLine = lines.find((line) => line.operation === 'contracts.exports');
    expect(kickOffLine).toBeDefined();
    expect(kickOffLine!.storeDocuments ?? 0).toBe(0);
  });

  it('holds a status call asked to wait (Prefer: wait=N) until the job completes, and answers at once without it', async () => {
    const started = await kickOff(own.service, 'contoso-full', 'contracts', RANGE);
    const location = started.headers.get('location')!;
    expect((await jobCall(own.service, 'contoso-full', location)).status).toBe(202);
    const waited = await fetch(new URL(location, `${own.service.baseUrl}/v1/contracts/exports`), { headers: { ...(await credentials(own.service, 'contoso-full')), prefer: 'wait=20' } });
    expect(waited.status).toBe(200);
    expect(((await waited.json()) as JobStatusDocument).status).toBe('completed');
    // The kick-off takes the preference too: it answers once the job is complete, saying so.
    const held = await kickOff(own.service, 'contoso-full', 'contracts', RANGE, { prefer: 'wait=20' });
    expect([held.status, held.headers.get('retry-after'), ((await held.json()) as JobStatusDocument).progress]).toEqual([202, '0', { windows: 6, done: 6, failed: 0 }]);
    expect((await jobCall(own.service, 'contoso-full', held.headers.get('location')!)).status).toBe(200);
  });

  it('is the starting client\'s only: another client of the tenant gets 404 on GET and DELETE, and the job goes on', async () => {
    const started = await kickOff(own.service, 'contoso-full', 'contracts', RANGE);
    const location = started.headers.get('location')!;
    for (const method of ['GET', 'DELETE'] as const) {
      const response = await jobCall(own.service, 'contoso-basic', location, method);
      expect(response.status).toBe(404);
      expect(((await response.json()) as Problem).code).toBe('NOT_FOUND');
    }
    const unknown = location.replace(/[0-9a-f]{32}$/, '0'.repeat(32));
    expect((await jobCall(own.service, 'contoso-full', unknown)).status).toBe(404);
    expect((await jobCall(own.service, 'contoso-full', location.replace(/[0-9a-f]{32}$/, '..%2Fcontracts'))).status).toBe(404);
    expect([200, 202]).toContain((await jobCall(own.service, 'contoso-full', location)).status);
  });

  it('refuses a caller whose view changed since the kick-off (a role taken away): 409, no URL handed out', async () => {
    const { location } = await runJob(own.service, 'contoso-full', 'contracts', RANGE);
    const narrower = await jobCall(own.service, 'contoso-full', location, 'GET', { roles: ['Data.Read'] });
    expect(narrower.status).toBe(409);
    const text = await narrower.text();
    expect(JSON.parse(text)).toMatchObject({ code: 'EXPORT_VIEW_CHANGED' });
    expect(text).not.toContain('sig=');
    // The Drafts grant shows no column, only records: losing it is a changed view too.
    const roles = own.service.identities.clients.find((client) => client.name === 'contoso-full')!.roles.filter((role) => role !== 'Data.Read.Drafts');
    expect((await jobCall(own.service, 'contoso-full', location, 'GET', { roles })).status).toBe(409);
  });

  it('hands out URLs that read one file only: a changed signature, path, permission or expiry is 403 from storage, as is a write', async () => {
    const { manifest } = await runJob(own.service, 'contoso-full', 'contracts', RANGE);
    const [one, other] = manifest.windows.map((window) => window.files![0]!.url);
    const url = new URL(one!);
    expect(url.protocol).toBe('https:');
    expect(url.searchParams.get('sp')).toBe('r');
    expect(url.searchParams.get('sr')).toBe('b');
    expect(Date.parse(url.searchParams.get('se')!)).toBeLessThanOrEqual(Date.parse(manifest.expires));
    const changed = (name: string, value: string) => {
      const copy = new URL(one!);
      copy.searchParams.set(name, value);
      return copy.href;
    };
    const signature = url.searchParams.get('sig')!;
    const otherPath = new URL(other!);
    otherPath.search = url.search;
    for (const tampered of [
      changed('sig', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`),
      otherPath.href,
      changed('sp', 'rw'),
      changed('se', new Date(Date.parse(manifest.expires) + 86_400_000).toISOString().replace('.000Z', 'Z')),
    ]) {
      expect([tampered, (await fetch(tampered)).status]).toEqual([tampered, 403]);
    }
    const write = await fetch(one!, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'overwritten' });
    expect(write.status).toBe(403);
    expect((await fetch(one!)).status).toBe(200);
  });

  it('cancels: DELETE is 202, the job is 404 from then on, and its files are deleted', async () => {
    const { location, manifest } = await runJob(own.service, 'contoso-full', 'contracts', RANGE);
    const cancelled = await jobCall(own.service, 'contoso-full', location, 'DELETE');
    expect(cancelled.status).toBe(202);
    expect(await cancelled.json()).toMatchObject({ id: manifest.id, status: 'cancelled' });
    expect((await jobCall(own.service, 'contoso-full', location)).status).toBe(404);
    expect((await jobCall(own.service, 'contoso-full', location, 'DELETE')).status).toBe(404);
    expect((await fetch(manifest.windows[0]!.files![0]!.url)).status).toBe(404);
    const identity = serviceIdentity(own.service.identities);
    const credential = new ClientSecretCredential(own.service.identities.tenantId, identity.clientId, identity.clientSecret, { authorityHost: own.service.idp!.url, disableInstanceDiscovery: true });
    const container = new BlobServiceClient(own.service.exports!.azurite.blobUrl, credential).getContainerClient(EXPORT_STORAGE.container);
    const left: string[] = [];
    for await (const blob of container.listBlobsFlat({ prefix: `${manifest.id}/` })) left.push(blob.name);
    expect(left).toEqual([]);
  });

  it('answers a bad kick-off with the summary operation\'s 400s, and records nothing', async () => {
    const before = await jobDocuments(own.tenant);
    const cases: [unknown, string][] = [
      [{}, 'DATE_RANGE_INCOMPLETE'],
      [{ createdFrom: '2025-01-01' }, 'DATE_RANGE_INCOMPLETE'],
      [{ createdFrom: '2025-02-30', createdTo: '2025-03-01' }, 'INVALID_DATE'],
      [{ createdFrom: '2025-03-01', createdTo: '2025-01-01' }, 'DATE_RANGE_REVERSED'],
      [{ createdFrom: '2020-01-01', createdTo: '2025-12-31' }, 'DATE_RANGE_TOO_LONG'],
      [{ ...RANGE, updatedFrom: '2025-01-01', updatedTo: '2025-01-31' }, 'INVALID_FILTER'],
      [{ ...RANGE, pageSize: 10 }, 'PAGINATION_NOT_ALLOWED'],
      [{ ...RANGE, colour: 'red' }, 'UNKNOWN_FILTER'],
      [{ ...RANGE, ifNoneMatch: 'W/"x"' }, 'INVALID_PRECONDITION'],
      [{ ...RANGE, ifNoneMatch: { '2025-01': 'not an etag' } }, 'INVALID_PRECONDITION'],
      [{ ...RANGE, ifNoneMatch: { January: 'W/"x"' } }, 'INVALID_PRECONDITION'],
      ['[1]', 'INVALID_BODY'],
      // Members that reach for a prototype, as raw JSON (a literal __proto__ would set the prototype here).
      ['{"createdFrom":"2025-01-01","createdTo":"2025-03-31","__proto__":{"createdTo":"2025-12-31"}}', 'UNKNOWN_FILTER'],
      ['{"createdFrom":"2025-01-01","__proto__":{"createdTo":"2025-12-31"}}', 'UNKNOWN_FILTER'],
      ['{"createdFrom":"2025-01-01","createdTo":"2025-03-31","constructor":"x"}', 'UNKNOWN_FILTER'],
      // A window's ETag given twice, as an object and as a manifest's windows.
      ['{"createdFrom":"2025-01-01","createdTo":"2025-03-31","ifNoneMatch":{"2025-01":"W/\\"a\\"","2025-01":"W/\\"b\\""}}', 'INVALID_BODY'],
      [{ ...RANGE, ifNoneMatch: [{ label: '2025-01', etag: 'W/"a"' }, { label: '2025-01', etag: 'W/"b"' }] }, 'INVALID_PRECONDITION'],
    ];
    for (const [body, code] of cases) {
      const response = await kickOff(own.service, 'contoso-full', 'contracts', body);
      const problem = (await response.json()) as Problem;
      expect([body, response.status, problem.code]).toEqual([body, 400, code]);
      expect(response.headers.get('location')).toBeNull();
    }
    const basic = await kickOff(own.service, 'contoso-basic', 'contracts', { ...RANGE, orderBy: 'contractAmount' });
    expect([basic.status, ((await basic.json()) as Problem).code]).toEqual([400, 'INVALID_ORDER_BY']);
    expect(await jobDocuments(own.tenant)).toBe(before);
  });
});
