import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../shared/errors/api-error.js';
import { createKeyMatcher } from '../shared/auth/key-matcher.js';
import { errorResponse } from '../shared/http/error-response.js';
import { pickRequestId } from '../shared/http/request-id.js';
import type { HostListener } from './functions-host.js';

/** One line the gateway logs for a request it answered itself (never a key). */
export interface GatewayLogEntry {
  readonly requestId: string;
  readonly gateway: 'rejected';
  readonly status: number;
  readonly code: string;
}

/**
 * What API Management does in front of the functions in Azure, locally: makes sure the request has
 * an `X-Request-ID` (one is made when the caller sent none or an invalid one), checks
 * `Ocp-Apim-Subscription-Key` against the subscription keys (401 when missing or wrong), and strips
 * it before the function sees the request.
 */
export function createGateway(subscriptionKeys: readonly string[], host: HostListener, log: (entry: GatewayLogEntry) => void) {
  const matches = createKeyMatcher(subscriptionKeys);
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const requestId = pickRequestId(single(request.headers['x-request-id']));
    request.headers['x-request-id'] = requestId;
    const presented = single(request.headers['ocp-apim-subscription-key']);
    delete request.headers['ocp-apim-subscription-key'];
    if (!matches(presented)) {
      const error = new ApiError('INVALID_SUBSCRIPTION_KEY', 'Send a valid subscription key in the Ocp-Apim-Subscription-Key header.');
      const { status, headers, body, code } = errorResponse(error, requestId, () => {});
      response.writeHead(status, headers);
      response.end(body);
      log({ requestId, gateway: 'rejected', status, code });
      return;
    }
    await host(request, response, requestId);
  };
}

function single(value: string | string[] | undefined): string | null {
  return typeof value === 'string' ? value : null;
}
