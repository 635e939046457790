import type { SummaryQuery } from '../model/summary-query.js';
import type { Scope, StoredRecord } from '../model/view.js';

/**
 * The data access seam. Implementations must scope every read to `scope.tenant`, apply every
 * filter of the query, hide Drafts unless `scope.view.drafts`, select only the view's fields and
 * order by `query.orderBy`/`query.order` with ties broken by id. Faults are thrown as `ApiError`
 * STORE_UNAVAILABLE (503), never as partial results.
 */
export interface RecordStore {
  /** How many records match. */
  count(scope: Scope, query: SummaryQuery): Promise<number>;
  /** The matching records from position `skip` (0-based), at most `take` of them, in order. */
  list(scope: Scope, query: SummaryQuery, skip: number, take: number): Promise<StoredRecord[]>;
  /**
   * Every matching record, in order, read page by page as the consumer pulls (for exports).
   * Stopping the iteration stops reading the store.
   */
  stream(scope: Scope, query: SummaryQuery): AsyncIterable<StoredRecord>;
}
