import type { Resource } from '../model/resources.js';

/** An inclusive range of UTC days, both ends `YYYY-MM-DD`. */
export interface DateRange {
  readonly from: string;
  readonly to: string;
}

/** Record filters, all optional; every one narrows the result. */
export interface Filters {
  readonly contractWorkspaceID?: string;
  readonly created?: DateRange;
  readonly updated?: DateRange;
  readonly invoiceDate?: DateRange;
  readonly contractId?: string;
  readonly supplierId?: string;
  readonly status?: string;
}

/** A validated summary request: what to select, in which order, which page. */
export interface SummaryQuery {
  readonly resource: Resource;
  readonly filters: Filters;
  readonly orderBy: string;
  readonly order: 'asc' | 'desc';
  readonly page: number;
  readonly pageSize: number;
  /** The members the caller actually sent, after merging body over query (for Parquet metadata and rules). */
  readonly given: Readonly<Record<string, string | number>>;
}
