import { createHash } from 'node:crypto';
import { expect } from '@jest/globals';
import type { JobStatusDocument } from '../../shared/exports/export-manifest.js';
import { accessClaims, type TestService } from './test-service.js';
import { readParquet, unzip, type ReadBack } from './parquet.js';

export type { JobStatusDocument };

/** The three credentials of a dev client on a test service (its token forged by the service's identity provider), claims overridden. */
export async function credentials(service: TestService, name: string, claims: Record<string, unknown> = {}): Promise<Record<string, string>> {
  const token = await service.idp!.signToken(accessClaims(service, name, claims));
  return { authorization: `Bearer ${token}`, 'x-api-key': service.identities.apiKeys[0]!, 'ocp-apim-subscription-key': service.identities.subscriptionKeys[0]! };
}

/** POST /v1/<resource>/exports as `name`. */
export async function kickOff(service: TestService, name: string, resource: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${service.baseUrl}/v1/${resource}/exports`, {
    method: 'POST',
    headers: { ...(await credentials(service, name)), 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** GET or DELETE of a job's URL as `name`. */
export async function jobCall(service: TestService, name: string, location: string, method: 'GET' | 'DELETE' = 'GET', claims: Record<string, unknown> = {}): Promise<Response> {
  return fetch(new URL(location, `${service.baseUrl}/v1/contracts/exports`), { method, headers: await credentials(service, name, claims) });
}

/** Starts a job and polls it (as its Retry-After says) until its manifest; fails past `timeoutMs`. */
export async function runJob(service: TestService, name: string, resource: string, body: unknown, timeoutMs = 30_000): Promise<{ location: string; manifest: JobStatusDocument }> {
  const started = await kickOff(service, name, resource, body);
  expect(started.status).toBe(202);
  const location = started.headers.get('location')!;
  return { location, manifest: await waitForManifest(service, name, location, timeoutMs) };
}

export async function waitForManifest(service: TestService, name: string, location: string, timeoutMs = 30_000): Promise<JobStatusDocument> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await jobCall(service, name, location);
    if (response.status === 200) return (await response.json()) as JobStatusDocument;
    expect(response.status).toBe(202);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    await response.arrayBuffer();
    if (Date.now() > deadline) throw new Error(`the job at ${location} did not complete within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Downloads a manifest's file without any of our credentials, checking its bytes and SHA-256 against the manifest. */
export async function download(file: { url: string; bytes: number; sha256: string }): Promise<Uint8Array> {
  const response = await fetch(file.url);
  expect(response.status).toBe(200);
  const bytes = new Uint8Array(await response.arrayBuffer());
  expect([bytes.byteLength, createHash('sha256').update(bytes).digest('hex')]).toEqual([file.bytes, file.sha256]);
  return bytes;
}

/** The tables of a synchronous export of one window (the summary operation, Accept Parquet), read back, by table name. */
export async function syncExport(service: TestService, name: string, resource: string, body: Record<string, string>): Promise<{ etag: string; tables: Record<string, ReadBack> }> {
  const response = await fetch(`${service.baseUrl}/v1/${resource}/summary`, {
    method: 'POST',
    headers: { ...(await credentials(service, name)), 'content-type': 'application/json', accept: 'application/vnd.apache.parquet' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  const bytes = new Uint8Array(await response.arrayBuffer());
  // A zip (PK) of two tables, or one Parquet file (PAR1).
  const files = bytes[0] === 0x50 && bytes[1] === 0x4b ? unzip(bytes) : { [`${resource}.parquet`]: bytes };
  const tables: Record<string, ReadBack> = {};
  for (const [file, content] of Object.entries(files)) tables[file.replace(/\.parquet$/, '')] = await readParquet(content);
  return { etag: response.headers.get('etag')!, tables };
}

/** What of a Parquet file a job's file and a synchronous export must share: columns with their types, and rows. */
export function tableContent(table: ReadBack): unknown {
  return { schema: table.schema, rows: table.rows };
}
