import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ClientSecretCredential } from '@azure/identity';
import azureFunctions from '@azure/functions';
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueClient } from '@azure/storage-queue';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { download, jobCall, kickOff, runJob, waitForManifest } from '../support/export-jobs.js';
import { readParquet } from '../support/parquet.js';
import { EXPORT_STORAGE } from '../../shared/exports/export-storage.js';
import { createBlobExportFiles } from '../../shared/exports/azure-export-storage.js';
import { serviceIdentity } from '../../dev/ensure-storage.js';
import type { RecordStore } from '../../shared/store/record-store.js';
import type { Problem } from '../support/stack.js';

// A service whose window workers do not run until a test starts them (the local trigger host off),
// and whose store can be made to fail every export: the queue's redelivery, its poison queue and
// the client's job admission, against a real Azurite of its own.
let own: OwnTenant;
let failing = false;
const breakable = (real: RecordStore): RecordStore => ({
  ...real,
  async *stream(scope, query, meter) {
    if (failing) throw new Error('the store broke mid-export');
    yield* real.stream(scope, query, meter);
  },
});
const FAST = { maxPollingIntervalMs: 200, visibilityTimeoutSeconds: 0, maxDequeueCount: 2 };

beforeAll(async () => {
  own = await startOwnTenant(40, { clients: ['contoso-full', 'contoso-basic'], service: { store: breakable, exports: { triggers: false } }, settings: { EXPORT_JOBS_PER_CLIENT: '2' } });
});

afterAll(async () => {
  await own?.stop();
});

function serviceCredential(): ClientSecretCredential {
  const identity = serviceIdentity(own.service.identities);
  return new ClientSecretCredential(own.service.identities.tenantId, identity.clientId, identity.clientSecret, { authorityHost: own.service.idp!.url, disableInstanceDiscovery: true });
}

describe('export jobs when things go wrong', () => {
  it('admits two running jobs per client: the third is 429 with Retry-After, another client still starts one', async () => {
    const month = { createdFrom: '2025-01-01', createdTo: '2025-01-31' };
    const first = await kickOff(own.service, 'contoso-full', 'contracts', month);
    const second = await kickOff(own.service, 'contoso-full', 'invoices', month);
    expect([first.status, second.status]).toEqual([202, 202]);
    const third = await kickOff(own.service, 'contoso-full', 'contracts', month);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await third.json()) as Problem).code).toBe('TOO_MANY_EXPORT_JOBS');
    const other = await kickOff(own.service, 'contoso-basic', 'contracts', month);
    expect(other.status).toBe(202);
    // A cancelled job no longer counts.
    for (const [name, response] of [['contoso-full', first], ['contoso-full', second], ['contoso-basic', other]] as const) {
      expect((await jobCall(own.service, name, response.headers.get('location')!, 'DELETE')).status).toBe(202);
    }
    const again = await kickOff(own.service, 'contoso-full', 'contracts', month);
    expect(again.status).toBe(202);
    expect((await jobCall(own.service, 'contoso-full', again.headers.get('location')!, 'DELETE')).status).toBe(202);
  });

  it('redoes a window whose worker died mid-window when its message comes back, replacing what it left', async () => {
    const queue = new QueueClient(`${own.service.exports!.azurite.queueUrl}/${EXPORT_STORAGE.queue}`, serviceCredential());
    // The messages of the jobs cancelled above (a worker would skip them): this test takes the next one.
    await queue.clearMessages();
    const started = await kickOff(own.service, 'contoso-full', 'contracts', { createdFrom: '2025-03-01', createdTo: '2025-03-31' });
    const location = started.headers.get('location')!;
    const id = location.split('/').pop()!;
    // A worker takes the message and dies: it is not deleted, and comes back once its lease ends.
    const taken = (await queue.receiveMessages({ numberOfMessages: 1, visibilityTimeout: 1 })).receivedMessageItems;
    expect(taken.map((message) => [message.dequeueCount, JSON.parse(Buffer.from(message.messageText, 'base64').toString())])).toEqual([[1, { jobId: id, tenant: own.tenant, label: '2025-03', then: [] }]]);
    // ... having written half a file.
    const container = new BlobServiceClient(own.service.exports!.azurite.blobUrl, serviceCredential()).getContainerClient(EXPORT_STORAGE.container);
    await container.getBlockBlobClient(`${id}/2025-03/contracts-000.parquet`).upload('PAR1 half a file', 16);
    // ... and a part past what the next try writes.
    await container.getBlockBlobClient(`${id}/2025-03/contracts-001.parquet`).upload('PAR1 more', 9);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    own.service.exports!.startTriggers(FAST);
    const manifest = await waitForManifest(own.service, 'contoso-full', location);
    const [window] = manifest.windows;
    expect(window).toMatchObject({ label: '2025-03', status: 'exported' });
    const read = await readParquet(await download(window!.files![0]!));
    expect(read.numRows).toBe(window!.records);
    // What the dead worker left is gone: the window's folder holds exactly the manifest's files.
    const left: string[] = [];
    for await (const blob of container.listBlobsFlat({ prefix: `${id}/2025-03/` })) left.push(blob.name);
    expect(left.sort()).toEqual(window!.files!.map((file) => decodeURIComponent(new URL(file.url).pathname).replace(/^\/[^/]+\/exports\//, '')).sort());
    expect(own.service.logs.some((line) => line.includes('"dequeueCount"'))).toBe(false);
  });

  it('records a window that fails on every delivery as failed once its message reaches the poison queue: the job completes', async () => {
    failing = true;
    try {
      const { manifest } = await runJob(own.service, 'contoso-full', 'contracts', { createdFrom: '2025-04-01', createdTo: '2025-05-31' });
      expect(manifest.status).toBe('completed');
      expect(manifest.windows.map((window) => [window.label, window.status, window.problem?.code, window.problem?.status, window.files])).toEqual([
        ['2025-04', 'failed', 'EXPORT_WINDOW_FAILED', 500, []],
        ['2025-05', 'failed', 'EXPORT_WINDOW_FAILED', 500, []],
      ]);
      expect(own.service.logs.filter((line) => line.includes('moved to export-windows-poison')).length).toBe(2);
      // ... and the job says so itself, for a caller (or a generic poller's) that does not walk the windows.
      expect([manifest.progress, manifest.problem?.code, manifest.problem?.status]).toEqual([{ windows: 2, done: 2, failed: 2 }, 'EXPORT_WINDOW_FAILED', 500]);
      expect(manifest.problem?.detail).toMatch(/2025-04, 2025-05/);
      // The failure's message stays in our log: the manifest says only what the caller can act on.
      expect(JSON.stringify(manifest)).not.toContain('the store broke');
    } finally {
      failing = false;
    }
  });

  it('hands out URLs that stop working when they expire (403 from storage)', async () => {
    const { manifest } = await runJob(own.service, 'contoso-full', 'contracts', { createdFrom: '2025-06-01', createdTo: '2025-06-30' });
    const blob = new URL(manifest.windows[0]!.files![0]!.url).pathname.split(`/${EXPORT_STORAGE.container}/`)[1]!;
    const files = createBlobExportFiles({ blobServiceUri: own.service.exports!.azurite.blobUrl, queueServiceUri: own.service.exports!.azurite.queueUrl, credential: serviceCredential() });
    const [expired] = await files.readUrls([blob], new Date(Date.now() - 2000));
    const [valid] = await files.readUrls([blob], new Date(Date.now() + 60_000));
    expect([(await fetch(expired!)).status, (await fetch(valid!)).status]).toEqual([403, 200]);
  });

  it('sweeps the files of expired jobs on its timer, and leaves the others', async () => {
    const files = createBlobExportFiles({ blobServiceUri: own.service.exports!.azurite.blobUrl, queueServiceUri: own.service.exports!.azurite.queueUrl, credential: serviceCredential() });
    await files.write('sweep-expired/2025-01/contracts-000.parquet', [Buffer.from('PAR1')], new Date(Date.now() - 1000));
    await files.write('sweep-live/2025-01/contracts-000.parquet', [Buffer.from('PAR1')], new Date(Date.now() + 3_600_000));
    const [sweep] = own.service.exports!.functions.timers;
    expect(sweep!.options.schedule).toBe('0 */15 * * * *');
    await sweep!.options.handler({ isPastDue: false } as never, new azureFunctions.InvocationContext({ functionName: sweep!.name }));
    const container = new BlobServiceClient(own.service.exports!.azurite.blobUrl, serviceCredential()).getContainerClient(EXPORT_STORAGE.container);
    const left: string[] = [];
    for await (const blob of container.listBlobsFlat({ prefix: 'sweep-' })) left.push(blob.name);
    expect(left).toEqual(['sweep-live/2025-01/contracts-000.parquet']);
  });

  it('answers a kick-off 503 with Retry-After while the export storage is down, and leaves no job behind', async () => {
    await own.service.exports!.stopTriggers();
    await own.service.exports!.azurite.stop();
    const response = await kickOff(own.service, 'contoso-full', 'contracts', { createdFrom: '2025-01-01', createdTo: '2025-02-28' });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await response.json()) as Problem).code).toBe('STORAGE_UNAVAILABLE');
    const jobs = (await import('../../shared/app/create-summary-deps.js')).cosmosStoresOf(own.service.deps.config, own.service.deps.log).jobs;
    // Nor does it hold a place in the caps.
    expect((await jobs.admissions.admitted(Date.now())).filter((entry) => entry.tenant === own.tenant)).toEqual([]);
  });
});
