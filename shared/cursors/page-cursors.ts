/**
 * Server-side cursors for walking a JSON result page by page at the cost of one page: after page p
 * is served, the store's continuation for page p+1 is kept under a key that hashes everything the
 * page depends on. A request for page p+1 that finds it reads exactly `pageSize` documents. Cursors
 * never leave the server; a failing or slow cursor store only costs the walk its shortcut.
 */
import { hash } from 'node:crypto';
import type { CosmosClient, Container } from '@azure/cosmos';
import { DATABASE_ID } from '../model/resources.js';
import type { SummaryQuery } from '../model/summary-query.js';
import type { Scope } from '../model/view.js';
import { PAGE_CURSORS_CONTAINER } from '../store/container-definitions.js';

/** Where page p+1 starts, and the walk's total, ETag and as-of time, taken once on its first page. */
export interface PageCursor {
  readonly continuation: string;
  readonly totalRecords: number;
  readonly etag: string;
  /** X-Summary-As-Of of the first page (absent in a cursor of an earlier deploy). */
  readonly asOf?: string;
}

/**
 * The cursor store. Both calls may fail or hang: callers bound them and degrade
 * (guarded-cursors.ts), and cancel a call they no longer wait for through its signal.
 */
export interface PageCursors {
  get(tenant: string, key: string, signal?: AbortSignal): Promise<PageCursor | undefined>;
  put(tenant: string, key: string, cursor: PageCursor, signal?: AbortSignal): Promise<void>;
}

/**
 * The key of the cursor that starts `page` of this walk: a SHA-256 over the tenant, the client,
 * the caller's view, the normalized filters, the order, the page size and the page. Another
 * tenant, client, role set, filter or page never finds it.
 */
export function pageCursorKey(scope: Scope, clientId: string, query: SummaryQuery, page: number): string {
  const { view } = scope;
  const material = JSON.stringify([
    scope.tenant,
    clientId,
    view.resource.name,
    view.fields.map((field) => field.name),
    view.lineFields.map((field) => field.name),
    view.drafts,
    query.filters.map((filter) => (filter.kind === 'equals' ? [filter.kind, filter.field.name, filter.value] : [filter.kind, filter.field.name, filter.from, filter.to])),
    query.orderBy,
    query.order,
    query.pageSize,
    page,
  ]);
  return hash('sha256', material, 'hex');
}

/** The cursor document as stored: its key as id, partitioned by tenant, expiring with the container's TTL. */
interface CursorDocument extends PageCursor {
  readonly id: string;
  readonly tenantId: string;
}

/** Cursors in their own Cosmos container (`PAGE_CURSORS_CONTAINER`): one point read, one upsert. */
export function createCosmosPageCursors(client: CosmosClient): PageCursors {
  const container: Container = client.database(DATABASE_ID).container(PAGE_CURSORS_CONTAINER.id);
  return {
    async get(tenant, key, signal) {
      const { resource } = await container.item(key, tenant).read<CursorDocument>(signal ? { abortSignal: signal } : {});
      // A cursor of an earlier deploy (no ETag) is no cursor: the page is read without it.
      if (!resource || resource.tenantId !== tenant || typeof resource.continuation !== 'string' || typeof resource.totalRecords !== 'number' || typeof resource.etag !== 'string') return undefined;
      return { continuation: resource.continuation, totalRecords: resource.totalRecords, etag: resource.etag, ...(typeof resource.asOf === 'string' ? { asOf: resource.asOf } : {}) };
    },
    async put(tenant, key, cursor, signal) {
      const document: CursorDocument = { id: key, tenantId: tenant, continuation: cursor.continuation, totalRecords: cursor.totalRecords, etag: cursor.etag, ...(cursor.asOf === undefined ? {} : { asOf: cursor.asOf }) };
      await container.items.upsert(document, signal ? { abortSignal: signal } : {});
    },
  };
}
