/**
 * The delta operations' wire contract, written once: where they are, the members a request adds to
 * the filters, the header and the member that carry a token, and the member a removal is told by
 * (docs/api.md, "Deltas").
 */
import type { ResourceDefinition } from './resource-definition.js';
import type { OperationNames } from './operation-contract.js';

/** The names of a resource's delta operation: POST /v1/<resource>/delta. */
export function deltaNames(resource: ResourceDefinition): OperationNames {
  const route = `v1/${resource.name}/delta`;
  return Object.freeze({ id: `${resource.name}Delta`, path: `/${route}`, route, logName: `${resource.name}.delta`, spanName: `POST /${route}` });
}

/** The request member (body or query) that carries the token of the last delta: absent, the whole view as of now. */
export const DELTA_TOKEN_MEMBER = 'deltaToken';

/** The request member (body or query) that names a later page of a delta (its links carry it). */
export const DELTA_PAGE_MEMBER = 'deltaPage';

/**
 * The request member (body or query) that starts deltas from a copy made before them (a folder a
 * pull keeps): the time every write before which is in the copy (its X-Summary-As-Of, a pull's
 * watermark), an ISO 8601 instant. Answered as JSON only, with a kept row per record unchanged.
 */
export const DELTA_SINCE_MEMBER = 'since';

/** An instant as `since` takes it: a UTC date and time, with Z or an offset. */
export const INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** The member of a kept row (a delta started with `since`): the record is in the view as the copy holds it. */
export const KEPT_MEMBER = '_kept';

/** The response header that carries the token to keep: on a Parquet answer and on a delta's last JSON page. */
export const DELTA_TOKEN_HEADER = 'X-Summary-Delta-Token';

/** The member (JSON) and column (Parquet) of a removal row: why the record left the caller's view. */
export const REMOVED_MEMBER = '_removed';

/** The reasons a removal gives: deleted from the store, or no longer in this view and these filters. */
export const REMOVAL_REASONS = ['deleted', 'leftView'] as const;
export type RemovalReason = (typeof REMOVAL_REASONS)[number];

/** A token as it is sent: `d1.<32 hex>.<issued, seconds>` (shared/delta/delta-token.ts reads it). */
export const DELTA_TOKEN_PATTERN = /^d1\.[0-9a-f]{32}\.[1-9][0-9]{0,11}$/;

/** A later page's name: `<32 hex>.<page ≥ 2>`. */
export const DELTA_PAGE_PATTERN = /^[0-9a-f]{32}\.[1-9][0-9]{0,8}$/;

/** How long the later pages of a delta are kept, in hours: past it, ask the delta again with the same token. */
export const DELTA_PAGES_HOURS = 24;

/** The open ends of a delta's date range, when only one end is given (stored dates are compared as text). */
export const OPEN_RANGE = Object.freeze({ from: '0001-01-01', to: '9999-12-31' });
