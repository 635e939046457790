/**
 * A resource as its results are read: what is worked out from it once (its filter members) and
 * the views of the role sets it has seen, each with its cleaning plan and column fingerprints (as
 * fastify makes a route's context once, at registration). Made once per resource per process and
 * shared by everything that reads its results: the summary operation, export jobs, their workers.
 */
import type { Allowlist } from '../access/allowlist.js';
import type { ResourceDefinition } from '../model/resource-definition.js';
import type { Format } from '../model/operation-contract.js';
import type { View } from '../model/view.js';
import { filterMembers, type FilterMember } from '../filters/filter-members.js';
import { planCleaning, type CleaningPlan } from '../output/record-cleaner.js';
import { schemaTag } from '../output/result-etag.js';

/** A caller's view of the resource and what is compiled of it, prepared once per role set. */
export interface PreparedView {
  readonly view: View;
  readonly cleaning: CleaningPlan;
  /** The fingerprint of its columns in each format (X-Summary-Schema, and part of every ETag). */
  readonly schemaTags: Readonly<Record<Format, string>>;
}

export interface PreparedResource {
  readonly resource: ResourceDefinition;
  /** The request members it accepts, by name (filter-members.ts). */
  readonly members: Readonly<Record<string, FilterMember>>;
  /** The view of a role set, with its cleaning plan. */
  prepare(roles: readonly string[]): PreparedView;
}

/** Views kept per resource; a deployment sees a few role sets, a caller may send many. */
const MAX_PREPARED_VIEWS = 1000;

/**
 * `resource` prepared for reading through `allowlist`.
 *
 * @example
 * const contracts = preparedResource(CONTRACTS, allowlist);
 * contracts.prepare(['Data.Read']).view.fields; // the fields that role set may see
 */
export function preparedResource(resource: ResourceDefinition, allowlist: Allowlist): PreparedResource {
  // The one cache here, and why: a role set's view is the allowlist worked out for it (fields,
  // line fields, Drafts, value checks), the same on every request of that role set. Keyed by the
  // role set as JSON, so no role name, whatever characters it holds, can stand for two.
  const prepared = new Map<string, PreparedView>();
  return Object.freeze({
    resource,
    members: filterMembers(resource),
    prepare(roles: readonly string[]): PreparedView {
      const key = JSON.stringify(roles);
      let found = prepared.get(key);
      if (found === undefined) {
        const view = allowlist.view(resource, roles);
        found = Object.freeze({ view, cleaning: planCleaning(view), schemaTags: Object.freeze({ json: schemaTag(view, 'json'), parquet: schemaTag(view, 'parquet') }) });
        if (prepared.size >= MAX_PREPARED_VIEWS) prepared.clear();
        prepared.set(key, found);
      }
      return found;
    },
  });
}
