import { DATAPOINTS } from '../../shared/access/datapoints.js';
import { parseFilters } from '../../shared/filters/parse-filters.js';
import { parseIfNoneMatch } from '../../shared/results/if-none-match.js';
import type { OutputStageInput } from '../../shared/http/output-stages/output-stage.js';
import { summaryEndpoint } from '../../shared/http/summary-endpoint.js';
import type { SummaryDeps } from '../../shared/http/summary-deps.js';
import type { ResourceDefinition } from '../../shared/model/resource-definition.js';

let serial = 0;

/**
 * What handle-summary.ts hands an output stage for contoso's `body`, built as it builds it (the
 * endpoint's prepared view, the parsed filters, the precondition): for tests that call the
 * stages, or the result reader, directly.
 */
export function stageInput(deps: SummaryDeps, resource: ResourceDefinition, body: Record<string, unknown>, options: { ifNoneMatch?: string; exporting?: boolean; roles?: readonly string[] } = {}): OutputStageInput {
  const endpoint = summaryEndpoint(resource, deps);
  const { view, cleaning, schemaTags } = endpoint.prepare(options.roles ?? Object.keys(DATAPOINTS));
  const params = new URLSearchParams();
  const query = parseFilters({ body, query: params, view, members: endpoint.members, maxPageSize: 1000, ...(options.exporting ? { exportMediaType: 'application/vnd.apache.parquet' } : {}) });
  const precondition = parseIfNoneMatch(options.ifNoneMatch ?? null);
  return {
    scope: { tenant: 'contoso', view }, cleaning, schemaTags, query, requestId: `stage-${++serial}`, clientId: `stage-client-${serial}`, deps,
    meter: { documents: 0, requestCharge: 0 }, request: { path: endpoint.names.path, params, body }, ...(precondition ? { precondition } : {}),
  };
}
