import type { HttpFunctionOptions, HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Resource } from '../model/resources.js';
import { handleSummary } from './handle-summary.js';
import type { SummaryDeps } from './summary-deps.js';

/** The route of a resource's summary operation, under the host's `api` prefix. */
export function summaryRoute(resource: Resource): string {
  return `v1/${resource}/summary`;
}

/**
 * The Azure Functions registration of one summary operation: POST only, function-key auth level
 * (API Management calls the backend with a function key; local hosts do not enforce it), and a
 * thin adapter from the host's request to the pipeline.
 */
export function summaryFunction(resource: Resource, deps: SummaryDeps): HttpFunctionOptions & { route: string } {
  return {
    route: summaryRoute(resource),
    methods: ['POST'],
    authLevel: 'function',
    handler: async (request: HttpRequest): Promise<HttpResponseInit> => {
      const { status, headers, body } = await handleSummary(resource, request, deps);
      return { status, headers, body };
    },
  };
}
