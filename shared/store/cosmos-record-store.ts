import type { CosmosClient, Container, FeedOptions } from '@azure/cosmos';
import type { LineTable, ResourceDefinition } from '../model/resource-definition.js';
import { DATABASE_ID } from '../model/resources.js';
import type { SummaryQuery } from '../model/summary-query.js';
import type { Scope, StoredRecord } from '../model/view.js';
import { buildCountSql, buildListSql, type SqlQuery } from './build-sql.js';
import { storeFault } from './store-fault.js';
import type { RecordStore } from './record-store.js';

/** Options of the Cosmos store. */
export interface CosmosRecordStoreOptions {
  /** Deadline for one store call, well under the Functions HTTP limit (230 s). */
  readonly timeoutMs: number;
}

/**
 * The production `RecordStore`: Cosmos DB through `@azure/cosmos`, one container per resource,
 * partitioned by tenant. Every query is single-partition and parameterized.
 *
 * Paging: Cosmos' `OFFSET/LIMIT` is not available on the embedded server and costs the same on the
 * real one, so a page is read as `TOP (skip + take)` and the first `skip` rows are dropped. The
 * caller bounds `skip + take` by MAX_RESULT_WINDOW (see docs/store.md).
 */
export function createCosmosRecordStore(client: CosmosClient, options: CosmosRecordStoreOptions): RecordStore {
  const database = client.database(DATABASE_ID);
  const containers = new Map<ResourceDefinition, Container>();
  const containerOf = (resource: ResourceDefinition): Container => {
    let container = containers.get(resource);
    if (!container) {
      container = database.container(resource.containerId);
      containers.set(resource, container);
    }
    return container;
  };

  // One page per query: the embedded server re-runs the whole query for every continuation
  // (10k rows in pages of 1000: 13.9 s against 3.1 s in one), and `top` is bounded by the window.
  const run = async <T>(scope: Scope, query: SummaryQuery, sql: SqlQuery, maxItemCount: number): Promise<T[]> => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), options.timeoutMs);
    const feedOptions: FeedOptions = { partitionKey: scope.tenant, maxItemCount, abortSignal: abort.signal };
    try {
      const { resources } = await containerOf(query.resource).items.query<T>(sql, feedOptions).fetchAll();
      return resources;
    } catch (error) {
      throw storeFault(error, abort.signal.aborted);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async count(scope, query) {
      const [total] = await run<number>(scope, query, buildCountSql(scope, query), 1);
      return total ?? 0;
    },
    async list(scope, query, skip, take) {
      const top = skip + take;
      const rows = await run<Record<string, unknown>>(scope, query, buildListSql(scope, query, top), top);
      return rows.slice(skip, top).map((row) => sortLines(row, query.resource.lines));
    },
    async *stream(scope, query) {
      // The deadline applies to each page: a store that stops answering mid-export is a fault.
      const abort = new AbortController();
      let timer = setTimeout(() => abort.abort(), options.timeoutMs);
      const feedOptions: FeedOptions = { partitionKey: scope.tenant, maxItemCount: STREAM_PAGE_SIZE, abortSignal: abort.signal };
      const pages = containerOf(query.resource).items.query<Record<string, unknown>>(buildListSql(scope, query), feedOptions).getAsyncIterator()[Symbol.asyncIterator]();
      try {
        for (;;) {
          let page;
          try {
            page = await pages.next();
          } catch (error) {
            throw storeFault(error, abort.signal.aborted);
          }
          if (page.done) return;
          clearTimeout(timer);
          for (const row of page.value.resources) yield sortLines(row, query.resource.lines);
          timer = setTimeout(() => abort.abort(), options.timeoutMs);
        }
      } finally {
        clearTimeout(timer);
        abort.abort();
      }
    },
  };
}

/** Records per store round trip of an export: bounds what is held before encoding. */
const STREAM_PAGE_SIZE = 1000;

/** Lines come out ordered by their `orderBy` field whatever order the array subquery yields. */
function sortLines(row: Record<string, unknown>, lines: LineTable | undefined): StoredRecord {
  const values = lines ? row[lines.member] : undefined;
  if (lines && Array.isArray(values)) {
    const key = lines.orderBy;
    row[lines.member] = [...(values as Record<string, unknown>[])].sort((a, b) => Number(a[key]) - Number(b[key]));
  }
  return row;
}
