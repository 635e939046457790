import type { FieldSpec } from './fields.js';
import type { ResourceDefinition } from './resource-definition.js';

/** An inclusive range of UTC days, both ends `YYYY-MM-DD`. */
export interface DateRange {
  readonly from: string;
  readonly to: string;
}

/** One filter the caller set, validated: what the store must match. Every one narrows the result. */
export type FilterValue =
  | { readonly kind: 'equals'; readonly field: FieldSpec; readonly value: string }
  | ({ readonly kind: 'dayRange'; readonly field: FieldSpec } & DateRange);

/** A validated summary request: what to select, in which order, which page. */
export interface SummaryQuery {
  readonly resource: ResourceDefinition;
  /** In the order the resource declares its filters. */
  readonly filters: readonly FilterValue[];
  readonly orderBy: string;
  readonly order: 'asc' | 'desc';
  readonly page: number;
  readonly pageSize: number;
  /**
   * The filters match nothing the caller may see (the drafts status without the Drafts grant): the
   * answer is empty without asking the store, so nothing about Drafts shows, not even in timing.
   */
  readonly matchesNothing: boolean;
  /** The members the caller actually sent, after merging body over query (for Parquet metadata and rules). */
  readonly given: Readonly<Record<string, string | number>>;
}
