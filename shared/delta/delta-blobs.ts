/**
 * Where the delta feed keeps what it hands out (docs/decisions.md, "The delta feed"): each token's
 * state and the later pages of a JSON delta, as blobs of one container of the export storage
 * account. Names start with their kind, so the account's lifecycle rules (infra/modules/
 * export-storage.bicep) delete each kind after its own life, and with the tenant, so no read
 * made for one tenant can name another's.
 */

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
