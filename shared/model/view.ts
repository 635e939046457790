import type { FieldSpec } from './fields.js';
import type { ResourceDefinition } from './resource-definition.js';

/** What a set of roles may see of one resource: fields in response order, and whether Drafts show. */
export interface View {
  readonly resource: ResourceDefinition;
  readonly fields: readonly FieldSpec[];
  /** Line fields (empty for a resource without lines). */
  readonly lineFields: readonly FieldSpec[];
  readonly sortable: readonly string[];
  readonly drafts: boolean;
}

/** Where a read is scoped: always one data tenant, seen through one view. */
export interface Scope {
  readonly tenant: string;
  readonly view: View;
}

/** A record as read from the store: only the caller's visible fields (and visible lines). */
export type StoredRecord = Readonly<Record<string, unknown>>;
