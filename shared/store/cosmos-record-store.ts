import type { CosmosClient, Container, FeedOptions, FeedResponse, QueryIterator } from '@azure/cosmos';
import type { LineTable, ResourceDefinition } from '../model/resource-definition.js';
import { DATABASE_ID } from '../model/resources.js';
import type { SummaryQuery } from '../model/summary-query.js';
import type { Scope, StoredRecord } from '../model/view.js';
import { buildKeysSql, buildListSql, buildVersionSql, buildWrittenAtSql, DELTA_KEY_MEMBER, type Narrowing, type SqlQuery } from './build-sql.js';
import { SpanKind } from '@opentelemetry/api';
import { inSpan } from '../telemetry/telemetry.js';
import { statusOf, storeFault } from './store-fault.js';
import { EMPTY_VERSION, STREAM_PAGE_SIZE, CHANGED_PAGE_SIZE, type DeltaReads, type KeyedId, type RecordStore, type ResultVersion, type StoreMeter } from './record-store.js';

/** Options of the Cosmos store. */
export interface CosmosRecordStoreOptions {
  /** Deadline for one store call, well under the Functions HTTP limit (230 s). */
  readonly timeoutMs: number;
  /** Told once, when the store first asks a version as two aggregates because the one query was refused. */
  readonly warn?: (message: string) => void;
}

/**
 * The production `RecordStore`: Cosmos DB through `@azure/cosmos`, one container per resource,
 * hierarchically partitioned by tenant then id; every query names the tenant prefix `[tenant]` as
 * its partition key (so it targets only that tenant's partitions) and is parameterized.
 *
 * Paging reads exactly the documents a page needs: from a continuation token (the server-side
 * cursor of the page before), `take` documents; without one, `skip + take` (bounded by
 * MAX_RESULT_WINDOW upstream). Each read asks for the documents still missing until it has them,
 * so the continuation it returns sits exactly at the page boundary (docs/store.md).
 */
export function createCosmosRecordStore(client: CosmosClient, options: CosmosRecordStoreOptions): RecordStore & DeltaReads {
  const database = client.database(DATABASE_ID);
  const containerOf = (resource: ResourceDefinition): Container => database.container(resource.containerId);

  /**
   * One round trip of `iterator` under the deadline (`abort` fires when it passes), metered, in a
   * span: the container, the documents handed over and the request charge (never a value: they
   * are parameters). A round of a query across partitions that has nothing to hand over yet (an
   * aggregate still gathering, ORDER BY still merging) comes back from the SDK with its resources
   * undefined, not []: made [] here, once. An error `refused` says is a query form the store does
   * not take (not a fault): thrown as FormRefused.
   */
  const roundTrip = <T>(query: SummaryQuery, iterator: QueryIterator<T>, abort: AbortController, meter: StoreMeter | undefined, refused?: (error: unknown) => boolean): Promise<RoundTrip<T>> =>
    inSpan('cosmos query', { 'db.system': 'cosmosdb', 'db.collection.name': query.resource.containerId, 'db.operation.name': 'query' }, async (span) => {
      const timer = setTimeout(() => abort.abort(), options.timeoutMs);
      try {
        const response: FeedResponse<T> = await iterator.fetchNext();
        const resources: T[] = (response.resources as T[] | undefined) ?? [];
        const requestCharge = response.requestCharge ?? 0;
        span.setAttributes({ 'summary.documents': resources.length, 'summary.request_charge': requestCharge });
        if (meter) {
          meter.documents += resources.length;
          meter.requestCharge += requestCharge;
        }
        return { resources, requestCharge, ...(response.continuationToken ? { continuationToken: response.continuationToken } : {}) };
      } catch (error) {
        if (refused?.(error) && !abort.signal.aborted) throw new FormRefused(error);
        throw storeFault(error, abort.signal.aborted);
      } finally {
        clearTimeout(timer);
      }
    }, SpanKind.CLIENT);

  const open = <T>(scope: Scope, query: SummaryQuery, sql: SqlQuery, feed: Omit<FeedOptions, 'partitionKey' | 'abortSignal'>, abort: AbortController): QueryIterator<T> =>
    containerOf(query.resource).items.query<T>(sql, { ...feed, partitionKey: [scope.tenant], abortSignal: abort.signal });

  /** Set once the one-query form of a version was refused: from then on, two aggregates. */
  let twoAggregates = false;

  /**
   * An aggregate's one row or value. It may come after rounds with nothing in them (across
   * partitions): read until it comes, or the query ends (nothing matched). Its charge is counted,
   * never as a document. The deadline holds for the whole aggregate too: rounds that each come
   * quickly with nothing in them, and never an end, are a fault.
   */
  const aggregateOf = async (scope: Scope, query: SummaryQuery, text: SqlQuery, meter: StoreMeter | undefined, refused?: (error: unknown) => boolean): Promise<unknown> => {
    const abort = new AbortController();
    const iterator = open<unknown>(scope, query, text, {}, abort);
    const deadline = performance.now() + options.timeoutMs;
    for (;;) {
      if (performance.now() > deadline) throw storeFault(new Error('an aggregate gave no value within the deadline'), true);
      const response = await roundTrip(query, iterator, abort, undefined, refused);
      if (meter) meter.requestCharge += response.requestCharge;
      if (response.resources.length > 0) return response.resources[0];
      if (!iterator.hasMoreResults()) return undefined;
    }
  };

  /** A version of the result. */
  const versionOf = async (scope: Scope, query: SummaryQuery, meter: StoreMeter | undefined): Promise<ResultVersion> => {
    const sql = buildVersionSql(scope, query);
    const aggregate = (text: SqlQuery, refused?: (error: unknown) => boolean) => aggregateOf(scope, query, text, meter, refused);
    const twoValueAggregates = async (): Promise<ResultVersion> => {
      // Both at once: one round trip's latency.
      const [records, latestWrite] = await Promise.all([aggregate(sql.records), aggregate(sql.latestWrite)]);
      return { records: wholeNumber(records), latestWrite: wholeNumber(latestWrite) };
    };
    if (!twoAggregates) {
      try {
        const row = await aggregate(sql.both, refusesOneQuery);
        if (row === undefined) return EMPTY_VERSION;
        if (typeof row !== 'object' || row === null) throw new TypeError(`the store answered a version with ${typeof row}, not a row`);
        const { records, latestWrite } = row as Record<string, unknown>;
        return { records: wholeNumber(records), latestWrite: wholeNumber(latestWrite) };
      } catch (error) {
        if (!(error instanceof FormRefused)) throw error;
        const version = await twoValueAggregates();
        // Only once the other form answers: a refusal that the two share is no reason to switch.
        if (!twoAggregates) {
          twoAggregates = true;
          options.warn?.(`the store refused a version in one aggregate query (${describe(error.cause)}); this instance now asks two VALUE aggregates, each check costing two queries`);
        }
        return version;
      }
    }
    return twoValueAggregates();
  };

  /** Every row of `sql`, read page by page as the consumer pulls; stopping the iteration aborts what is in flight. */
  async function* rowsOf(scope: Scope, query: SummaryQuery, sql: SqlQuery, meter: StoreMeter | undefined, pageSize = STREAM_PAGE_SIZE, signal?: AbortSignal): AsyncGenerator<Record<string, unknown>[]> {
    // One iterator for the whole read; the deadline applies to each page: a store that stops
    // answering midway is a fault. The caller's signal stops it too (a delta past its deadline).
    const abort = new AbortController();
    signal?.throwIfAborted();
    const stop = () => abort.abort();
    signal?.addEventListener('abort', stop, { once: true });
    const iterator = open<Record<string, unknown>>(scope, query, sql, { maxItemCount: pageSize }, abort);
    try {
      while (iterator.hasMoreResults()) {
        signal?.throwIfAborted();
        yield (await roundTrip(query, iterator, abort, meter)).resources;
      }
    } finally {
      signal?.removeEventListener('abort', stop);
      abort.abort();
    }
  }

  return {
    version: (scope, query, meter) => versionOf(scope, query, meter),
    async page(scope, query, { skip, take, continuation }, meter) {
      const wanted = skip + take;
      const sql = buildListSql(scope, query);
      const rows: Record<string, unknown>[] = [];
      let token = continuation;
      while (rows.length < wanted) {
        // A new iterator per round trip: each asks for exactly the documents still missing.
        const abort = new AbortController();
        const iterator = open<Record<string, unknown>>(scope, query, sql, { maxItemCount: wanted - rows.length, ...(token ? { continuationToken: token } : {}) }, abort);
        const response = await roundTrip(query, iterator, abort, meter);
        rows.push(...response.resources);
        token = response.continuationToken;
        if (!token) break;
      }
      return {
        records: rows.slice(skip, wanted).map((row) => sortLines(row, query.resource.lines)),
        ...(token && rows.length >= wanted ? { continuation: token } : {}),
      };
    },
    async *stream(scope, query, meter) {
      for await (const rows of rowsOf(scope, query, buildListSql(scope, query), meter)) yield rows.map((row) => sortLines(row, query.resource.lines));
    },
    async *changed(scope, query, since, keyField, meter, signal) {
      const sql = buildListSql(scope, query, { writtenSince: since, textIds: true }, keyField, 'any');
      for await (const rows of rowsOf(scope, query, sql, meter, CHANGED_PAGE_SIZE, signal)) yield rows.map((row) => sortLines(row, query.resource.lines));
    },
    count: async (scope, query, narrowing, meter) => wholeNumber(await aggregateOf(scope, query, buildVersionSql(scope, query, { ...narrowing, textIds: true }).records, meter)),
    async keys(scope, query, narrowing, keyField, meter, signal) {
      const keys: KeyedId[] = [];
      for await (const rows of rowsOf(scope, query, buildKeysSql(scope, query, { ...narrowing, textIds: true }, keyField), meter, STREAM_PAGE_SIZE, signal)) {
        for (const row of rows) keys.push({ id: String(row.id), key: row[DELTA_KEY_MEMBER] });
      }
      return keys;
    },
    async writtenAt(scope, query, ids, meter) {
      const written = new Map<string, number>();
      if (ids.length === 0) return written;
      for await (const rows of rowsOf(scope, query, buildWrittenAtSql(scope, query, ids), meter)) {
        for (const { id, ts } of rows) if (typeof id === 'string' && typeof ts === 'number') written.set(id, Math.max(written.get(id) ?? 0, ts));
      }
      return written;
    },
  };
}

/** The store does not take a query in this form: not a fault, the caller asks in another. */
class FormRefused extends Error {
  constructor(override readonly cause: unknown) {
    super('the store refused the query in this form');
  }
}

/** An error's name and the start of its message, for a warning (never a parameter: they are not in it). */
function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.slice(0, 160)}` : String(error).slice(0, 160);
}

/**
 * Whether the store refused the one-query version (`SELECT COUNT(1) AS records, MAX(c._ts) AS
 * latestWrite`): across physical partitions @azure/cosmos merges such named aggregates in its GROUP
 * BY stage, but refuses a query plan that lists them as VALUE aggregates ("Aggregate queries must
 * use the VALUE keyword"), and a gateway may refuse the form itself (400, naming VALUE or the
 * query's features). Any other error is what it is: a fault, or a bug.
 */
function refusesOneQuery(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.message.includes('Aggregate queries must use the VALUE keyword')) return true;
  return statusOf(error) === 400 && /VALUE|unsupported features/.test(error.message);
}

/** What one round trip handed over. */
interface RoundTrip<T> {
  readonly resources: T[];
  readonly requestCharge: number;
  readonly continuationToken?: string;
}

/** An aggregate's value as a number: COUNT and MAX of nothing come back 0 or missing. */
function wholeNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * Lines come out ordered by their `orderBy` field whatever order the array subquery yields; a line
 * of another shape (no object, no number there) goes last, for the record cleaner to leave out.
 */
function sortLines(row: Record<string, unknown>, lines: LineTable | undefined): StoredRecord {
  const values = lines ? row[lines.member] : undefined;
  if (lines && Array.isArray(values)) {
    const key = lines.orderBy;
    const rank = (line: unknown) => {
      const value = typeof line === 'object' && line !== null ? Number((line as Record<string, unknown>)[key]) : Number.NaN;
      return Number.isNaN(value) ? Number.POSITIVE_INFINITY : value;
    };
    row[lines.member] = [...values].sort((a, b) => (rank(a) === rank(b) ? 0 : rank(a) < rank(b) ? -1 : 1));
  }
  return row;
}
