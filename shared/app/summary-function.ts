import type { HttpFunctionOptions, HttpRequest, HttpResponseInit } from '@azure/functions';
import type { ResourceDefinition } from '../model/resource-definition.js';
import { operationNames } from '../model/operation-contract.js';
import { handleSummary } from '../http/handle-summary.js';
import { summaryEndpoint } from '../http/summary-endpoint.js';
import type { SummaryDeps } from '../http/summary-deps.js';

/**
 * The Azure Functions registration of one summary operation: POST only, function-key auth level
 * (API Management calls the backend with a function key; local hosts do not enforce it), and a
 * thin adapter from the host's request to the pipeline.
 */
export function summaryFunction(resource: ResourceDefinition, deps: SummaryDeps): HttpFunctionOptions & { route: string } {
  const endpoint = summaryEndpoint(resource, deps);
  return {
    route: endpoint.names.route,
    methods: ['POST'],
    authLevel: 'function',
    handler: async (request: HttpRequest): Promise<HttpResponseInit> => {
      const { status, headers, body } = await handleSummary(endpoint, request);
      return { status, headers, body };
    },
  };
}

/** One HTTP function as a host registers it: its name (the operationId) and its options. */
export interface FunctionRegistration {
  readonly name: string;
  readonly options: HttpFunctionOptions & { route: string };
}

/** The registration of every resource's summary operation, named after its operationId. */
export function summaryFunctions(resources: readonly ResourceDefinition[], deps: SummaryDeps): FunctionRegistration[] {
  return resources.map((resource) => ({ name: operationNames(resource).id, options: summaryFunction(resource, deps) }));
}
