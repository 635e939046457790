/**
 * What one JSON page of a result is, worked out in one place: how many pages there are, whether
 * the next one exists and can be reached, whether a jump to the last one can, which records a jump
 * to this one reads, and what the page says when it is empty or ends a walk early. The envelope
 * (json-envelope.ts), the links (page-links.ts) and the JSON output stage read these; none works
 * them out again.
 */

/** What a page is asked and found to be. */
export interface PageInfo {
  readonly page: number;
  readonly pageSize: number;
  readonly totalRecords: number;
  /** The deepest record a jump to a page may reach (MAX_RESULT_WINDOW). */
  readonly resultWindow: number;
  /** A cursor for the next page is stored, so it is reachable whatever the window. */
  readonly nextReachable?: boolean;
}

/** A page's place in its result. */
export interface Pagination {
  readonly page: number;
  readonly pageSize: number;
  readonly totalRecords: number;
  readonly totalPages: number;
  /**
   * The next page exists and can be reached: by a stored cursor, or by a jump within the window.
   * A client following it never meets RESULT_WINDOW_EXCEEDED.
   */
  readonly hasNext: boolean;
  /** The next page exists but cannot be reached: a jump to it passes the window and no cursor is stored. */
  readonly windowEnds: boolean;
  /** A jump to the last page stays within the window (and there is a last page). */
  readonly lastReachable: boolean;
  /** Why the page is empty or the walk ends here early; absent otherwise. */
  readonly warning?: string;
}

/** The pagination of one page. */
export function paginate({ page, pageSize, totalRecords, resultWindow, nextReachable = false }: PageInfo): Pagination {
  const totalPages = Math.ceil(totalRecords / pageSize);
  // A jump to the next page reads up to its last record, min((page + 1) × pageSize, totalRecords).
  const windowEnds = page < totalPages && Math.min((page + 1) * pageSize, totalRecords) > resultWindow && !nextReachable;
  const warning = page > 1 && page > totalPages
    ? `Page ${page} is past the last page (${totalPages}); there are no records on it.`
    : windowEnds
      ? `Pages reach the first ${resultWindow} of ${totalRecords} records only; narrow the filters (for example a shorter date range) or export the whole result as Parquet.`
      : undefined;
  return {
    page, pageSize, totalRecords, totalPages,
    hasNext: page < totalPages && !windowEnds,
    windowEnds,
    lastReachable: totalPages > 0 && totalRecords <= resultWindow,
    ...(warning === undefined ? {} : { warning }),
  };
}

/**
 * The records a jump to `page` reads (without a cursor): the first `skip + take` of the result, of
 * which the page is the last `take`; none for a page past the end. `withinWindow` is false when the
 * jump reaches past `resultWindow` (answered 400 RESULT_WINDOW_EXCEEDED).
 */
export function jumpTo(page: number, pageSize: number, totalRecords: number, resultWindow: number): { skip: number; take: number; withinWindow: boolean } | undefined {
  const skip = (page - 1) * pageSize;
  if (skip >= totalRecords) return undefined;
  const take = Math.min(pageSize, totalRecords - skip);
  return { skip, take, withinWindow: skip + take <= resultWindow };
}
