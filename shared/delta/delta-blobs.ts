/**
 * Where the delta feed keeps what it hands out (docs/decisions.md, "The delta feed"): each token's
 * state and the later pages of a JSON delta, as blobs of one container of the export storage
 * account. Names start with their kind, so the account's lifecycle rules (infra/modules/
 * export-storage.bicep) delete each kind after its own life, and with the tenant, so no read
 * made for one tenant can name another's.
 */

import { gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { z } from 'zod';

/** The blobs' seam: Azure Blob Storage (azure-delta-blobs.ts), Azurite locally. */
export interface DeltaBlobs {
  /** The bytes of a blob, or undefined when there is none. */
  get(name: string): Promise<Uint8Array | undefined>;
  /** Writes a blob whole (a name is never written twice: names hold 128 random bits). */
  put(name: string, bytes: Uint8Array): Promise<void>;
}

/** The container (Bicep creates it; the local stack too). */
export const DELTA_CONTAINER = 'delta-states';

/** The prefixes of the two kinds, as the lifecycle rules name them. */
export const DELTA_BLOB_KINDS = Object.freeze({ states: 'states/', pages: 'pages/' });

/** The blob of a token's state. */
export function stateBlob(tenant: string, stateId: string): string {
  return `${DELTA_BLOB_KINDS.states}${tenant}/${stateId}`;
}

/** The blob of a later page (≥ 2) of a JSON delta. */
export function pageBlob(tenant: string, pagesId: string, page: number): string {
  return `${DELTA_BLOB_KINDS.pages}${tenant}/${pagesId}/${page}`;
}

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * What a blob holds: one gzip of JSON (a state, a page), at the fastest level: a state of 100,000
 * records took 150 ms at the default level and 55 ms at this one, for 6% more bytes. On zlib's
 * thread pool, not the event loop's thread: the instance serves other requests meanwhile.
 */
export async function gzipJson(value: unknown): Promise<Uint8Array> {
  return gzipAsync(JSON.stringify(value), { level: 1 });
}

/** A blob's value as `schema` takes it, or undefined for bytes that are not one (nothing kept is trusted unread). */
export async function gunzipJson<T>(bytes: Uint8Array, schema: z.ZodType<T>): Promise<T | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse((await gunzipAsync(bytes)).toString('utf8'));
  } catch {
    return undefined;
  }
  const checked = schema.safeParse(parsed);
  return checked.success ? checked.data : undefined;
}
