/**
 * One summary operation as it runs: its prepared resource (../results/prepared-resource.ts:
 * filter members, role sets' views), what HTTP adds (names, offers), and the collaborators it runs
 * with, made once per resource at registration. The pipeline (handle-summary.ts) reads these and
 * works nothing out of the resource itself.
 */
import type { ResourceDefinition } from '../model/resource-definition.js';
import { operationNames, type OperationNames } from '../model/operation-contract.js';
import { preparedResource, type PreparedResource } from '../results/prepared-resource.js';
import { resourceOffers, type Offer } from './negotiate.js';
import type { SummaryDeps } from './summary-deps.js';

export interface SummaryEndpoint extends PreparedResource {
  readonly names: OperationNames;
  /** The media types the operation answers, and the format of each (negotiate.ts). */
  readonly offers: readonly Offer[];
  readonly deps: SummaryDeps;
}

/**
 * The operation of `resource`, running with `deps`.
 *
 * @example
 * const endpoint = summaryEndpoint(CONTRACTS, deps);
 * endpoint.names.route; // 'v1/contracts/summary'
 * endpoint.prepare(['Data.Read']).view.fields; // the fields that role set may see
 */
export function summaryEndpoint(resource: ResourceDefinition, deps: SummaryDeps): SummaryEndpoint {
  const prepared = preparedResource(resource, deps.allowlist);
  return Object.freeze({
    resource,
    members: prepared.members,
    prepare: prepared.prepare,
    names: operationNames(resource),
    offers: Object.freeze(resourceOffers(resource)),
    deps,
  });
}

/** Every resource's operation, by resource name: made once per process, shared by the summary operations and export jobs. */
export function summaryEndpoints(resources: readonly ResourceDefinition[], deps: SummaryDeps): ReadonlyMap<string, SummaryEndpoint> {
  return new Map(resources.map((resource) => [resource.name, summaryEndpoint(resource, deps)]));
}
