import type { HttpFunctionOptions, HttpRequest, HttpResponseInit } from '@azure/functions';
import { handleSummary } from '../http/handle-summary.js';
import type { SummaryEndpoint } from '../http/summary-endpoint.js';

/**
 * The Azure Functions registration of one summary operation: POST only, function-key auth level
 * (API Management calls the backend with a function key; local hosts do not enforce it), and a
 * thin adapter from the host's request to the pipeline.
 */
function summaryFunction(endpoint: SummaryEndpoint): HttpFunctionOptions & { route: string } {
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

/** The registration of every resource's summary operation (summaryEndpoints: made once per process), named after its operationId. */
export function summaryFunctions(endpoints: ReadonlyMap<string, SummaryEndpoint>): FunctionRegistration[] {
  return [...endpoints.values()].map((endpoint) => ({ name: endpoint.names.id, options: summaryFunction(endpoint) }));
}
