import type { HttpFunctionOptions, HttpRequest, HttpResponseInit } from '@azure/functions';
import { summaryRoute } from '../model/operation-contract.js';
import { operationId, type ResourceDefinition } from '../model/resource-definition.js';
import { handleSummary } from './handle-summary.js';
import type { SummaryDeps } from './create-summary-deps.js';

/**
 * The Azure Functions registration of one summary operation: POST only, function-key auth level
 * (API Management calls the backend with a function key; local hosts do not enforce it), and a
 * thin adapter from the host's request to the pipeline.
 */
export function summaryFunction(resource: ResourceDefinition, deps: SummaryDeps): HttpFunctionOptions & { route: string } {
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

/** One HTTP function as a host registers it: its name (the operationId) and its options. */
export interface FunctionRegistration {
  readonly name: string;
  readonly options: HttpFunctionOptions & { route: string };
}

/** The registration of every resource's summary operation, named after its operationId. */
export function summaryFunctions(resources: readonly ResourceDefinition[], deps: SummaryDeps): FunctionRegistration[] {
  return resources.map((resource) => ({ name: operationId(resource), options: summaryFunction(resource, deps) }));
}
