import { describe, expect, it, beforeAll } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ClientSecretCredential } from '@azure/identity';
import { BlobSASPermissions, BlobServiceClient, generateBlobSASQueryParameters, SASProtocol, type UserDelegationKey } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { client, identities, stack } from '../support/stack.js';

// The local stack's Azure Storage (Azurite) as the export jobs will use it: reached over https with
// the local CA, every call with a token of the service's own identity from the local identity
// provider (no account key), and files handed out as user delegation SAS that anyone can read and
// nobody can bend.
const service = client('summary-service');
const credential = new ClientSecretCredential(identities.tenantId, service.clientId, service.clientSecret, { authorityHost: stack.authUrl, disableInstanceDiscovery: true });
const blobs = new BlobServiceClient(stack.blobUrl, credential);
const container = blobs.getContainerClient(`test-${randomBytes(4).toString('hex')}`);
const body = randomBytes(4096);
const name = 'job-1/2025-01/contracts-1.parquet';
let key: UserDelegationKey;

/** A read-only https SAS for one blob, signed with the user delegation key. */
function sasUrl(blob: string, options: { expiresOn?: Date; permissions?: string } = {}): string {
  const expiresOn = options.expiresOn ?? new Date(Date.now() + 10 * 60_000);
  const query = generateBlobSASQueryParameters({
    containerName: container.containerName, blobName: blob, permissions: BlobSASPermissions.parse(options.permissions ?? 'r'),
    protocol: SASProtocol.Https, startsOn: new Date(Date.now() - 5 * 60_000), expiresOn,
  }, key, 'devstoreaccount1').toString();
  return `${container.getBlobClient(blob).url}?${query}`;
}

beforeAll(async () => {
  await container.create();
  await container.getBlockBlobClient(name).uploadData(body);
  await container.getBlockBlobClient('job-1/2025-02/contracts-1.parquet').uploadData(randomBytes(16));
  key = await blobs.getUserDelegationKey(new Date(Date.now() - 5 * 60_000), new Date(Date.now() + 60 * 60_000));
});

describe('the local stack\'s storage (Azurite)', () => {
  it('is https, and refuses a caller without a token', async () => {
    expect(stack.blobUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/devstoreaccount1$/);
    expect(stack.queueUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/devstoreaccount1$/);
    const anonymous = await fetch(container.getBlobClient(name).url);
    expect([401, 403, 404]).toContain(anonymous.status);
  });

  it('is the service identity\'s alone: a dev client gets no storage token, and cannot list the export files', async () => {
    const caller = client('contoso-full');
    const token = await fetch(`${stack.authUrl}/${identities.tenantId}/oauth2/v2.0/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: caller.clientId, client_secret: caller.clientSecret, scope: 'https://storage.azure.com/.default' }),
    });
    expect([token.status, ((await token.json()) as { error?: string }).error]).toEqual([400, 'invalid_scope']);
    const theirs = new BlobServiceClient(stack.blobUrl, new ClientSecretCredential(identities.tenantId, caller.clientId, caller.clientSecret, { authorityHost: stack.authUrl, disableInstanceDiscovery: true }));
    await expect(theirs.getContainerClient(container.containerName).listBlobsFlat().next()).rejects.toThrow();
  });

  it('hands one blob to anyone holding its SAS, and nothing else', async () => {
    const url = sasUrl(name);
    expect(new URL(url).searchParams.get('spr')).toBe('https');
    expect(new URL(url).searchParams.get('skoid')).toBeTruthy();
    const read = await fetch(url);
    expect(read.status).toBe(200);
    expect(Buffer.from(await read.arrayBuffer()).equals(body)).toBe(true);
  });

  it('answers 403 to a SAS whose signature, path, permission or expiry was changed', async () => {
    const url = new URL(sasUrl(name));
    const signature = url.searchParams.get('sig')!;
    const changed = (edit: (target: URL) => void) => {
      const target = new URL(url);
      edit(target);
      return target.toString();
    };
    const attempts = {
      signature: changed((target) => target.searchParams.set('sig', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`)),
      path: changed((target) => (target.pathname = target.pathname.replace('2025-01', '2025-02'))),
      permission: changed((target) => target.searchParams.set('sp', 'rw')),
      expiry: changed((target) => target.searchParams.set('se', new Date(Date.now() + 24 * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z'))),
    };
    for (const [what, target] of Object.entries(attempts)) expect([what, (await fetch(target)).status]).toEqual([what, 403]);
    // A write with a read SAS is refused too.
    expect((await fetch(sasUrl(name), { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'x' })).status).toBe(403);
  });

  it('answers 403 once a SAS has expired', async () => {
    expect((await fetch(sasUrl(name, { expiresOn: new Date(Date.now() - 60_000) }))).status).toBe(403);
  });

  it('carries queue messages for a token of the service\'s identity', async () => {
    const queue = new QueueServiceClient(stack.queueUrl, credential).getQueueClient(`test-${randomBytes(4).toString('hex')}`);
    await queue.create();
    await queue.sendMessage(Buffer.from('{"window":"2025-01"}').toString('base64'));
    const received = await queue.receiveMessages({ numberOfMessages: 1, visibilityTimeout: 30 });
    expect(received.receivedMessageItems.map((item) => Buffer.from(item.messageText, 'base64').toString('utf8'))).toEqual(['{"window":"2025-01"}']);
    expect(received.receivedMessageItems[0]!.dequeueCount).toBe(1);
    await queue.delete();
  });
});
