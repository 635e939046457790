/**
 * One summary operation as it runs: everything worked out from its resource, made once when its
 * function is registered (as fastify makes a route's context: schema, handler and serializers at
 * registration), and the collaborators it runs with. The pipeline (handle-summary.ts) reads these
 * and works nothing out of the resource itself.
 */
import type { ResourceDefinition } from '../model/resource-definition.js';
import { operationNames, type Format, type OperationNames } from '../model/operation-contract.js';
import { schemaTag } from '../output/result-etag.js';
import type { View } from '../model/view.js';
import { filterMembers, type FilterMember } from '../filters/filter-members.js';
import { planCleaning, type CleaningPlan } from '../output/record-cleaner.js';
import { resourceOffers, type Offer } from './negotiate.js';
import type { SummaryDeps } from './summary-deps.js';

/** A caller's view of the resource and what is compiled of it, prepared once per role set. */
export interface PreparedView {
  readonly view: View;
  readonly cleaning: CleaningPlan;
  /** The fingerprint of its columns in each format (X-Summary-Schema, and part of every ETag). */
  readonly schemaTags: Readonly<Record<Format, string>>;
}

export interface SummaryEndpoint {
  readonly resource: ResourceDefinition;
  readonly names: OperationNames;
  /** The media types the operation answers, and the format of each (negotiate.ts). */
  readonly offers: readonly Offer[];
  /** The request members it accepts, by name (filter-members.ts). */
  readonly members: Readonly<Record<string, FilterMember>>;
  readonly deps: SummaryDeps;
  /** The view of a role set, with its cleaning plan. */
  prepare(roles: readonly string[]): PreparedView;
}

/** Views kept per operation; a deployment sees a few role sets, a caller may send many. */
const MAX_PREPARED_VIEWS = 1000;

/**
 * The operation of `resource`, running with `deps`: made once per resource at registration.
 *
 * @example
 * const endpoint = summaryEndpoint(CONTRACTS, deps);
 * endpoint.names.route; // 'v1/contracts/summary'
 * endpoint.prepare(['Data.Read']).view.fields; // the fields that role set may see
 */
export function summaryEndpoint(resource: ResourceDefinition, deps: SummaryDeps): SummaryEndpoint {
  // The one cache here, and why: a role set's view is the allowlist worked out for it (fields,
  // line fields, Drafts, value checks), the same on every request of that role set. Keyed by the
  // role set as JSON, so no role name, whatever characters it holds, can stand for two.
  const prepared = new Map<string, PreparedView>();
  return Object.freeze({
    resource,
    names: operationNames(resource),
    offers: Object.freeze(resourceOffers(resource)),
    members: filterMembers(resource),
    deps,
    prepare(roles: readonly string[]): PreparedView {
      const key = JSON.stringify(roles);
      let found = prepared.get(key);
      if (found === undefined) {
        const view = deps.allowlist.view(resource, roles);
        found = Object.freeze({ view, cleaning: planCleaning(view), schemaTags: Object.freeze({ json: schemaTag(view, 'json'), parquet: schemaTag(view, 'parquet') }) });
        if (prepared.size >= MAX_PREPARED_VIEWS) prepared.clear();
        prepared.set(key, found);
      }
      return found;
    },
  });
}
