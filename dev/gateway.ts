import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../shared/errors/api-error.js';
import { createKeyMatcher } from '../shared/auth/key-matcher.js';
import { errorResponse } from '../shared/http/error-response.js';
import { CLIENT_REQUEST_ID_HEADER } from '../shared/model/operation-contract.js';
import { pickRequestId, validClientRequestId } from '../shared/http/request-id.js';
import type { RequestLogEntry } from '../shared/telemetry/request-log-entry.js';
import type { HostListener } from './functions-host.js';
import { unmatchedRequestLog } from './unmatched-request-log.js';

/**
 * What API Management does in front of the functions in Azure, locally: gives every request an
 * id of its own in `X-Request-ID` (whatever the caller sent there), passes a valid id of the
 * caller's on in `X-Client-Request-ID` and echoes it, checks `Ocp-Apim-Subscription-Key` against
 * the subscription keys (401 when missing or wrong, logged like every request), and strips it
 * before the function sees the request. It starts a W3C trace (`traceparent`) when the caller sent
 * none, so the function's spans join one trace per request.
 */
export function createGateway(subscriptionKeys: readonly string[], host: HostListener, log: (entry: RequestLogEntry) => void) {
  const matches = createKeyMatcher(subscriptionKeys);
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const started = performance.now();
    const requestId = pickRequestId(null);
    const clientRequestId = validClientRequestId(single(request.headers['x-request-id'])) ?? null;
    request.headers['x-request-id'] = requestId;
    // Starts a W3C trace when the caller sent none, as API Management does (W3C correlation).
    if (typeof request.headers.traceparent !== 'string') request.headers.traceparent = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
    delete request.headers['x-client-request-id'];
    if (clientRequestId !== null) {
      request.headers['x-client-request-id'] = clientRequestId;
      response.setHeader(CLIENT_REQUEST_ID_HEADER, clientRequestId);
    }
    const presented = single(request.headers['ocp-apim-subscription-key']);
    delete request.headers['ocp-apim-subscription-key'];
    if (!matches(presented)) {
      const error = new ApiError('INVALID_SUBSCRIPTION_KEY', 'Send a valid subscription key in the Ocp-Apim-Subscription-Key header.');
      const { status, headers, body, code } = errorResponse(error, requestId, () => {});
      response.writeHead(status, headers);
      response.end(body);
      log(unmatchedRequestLog(requestId, clientRequestId, status, code, Buffer.byteLength(body as string), started));
      return;
    }
    await host(request, response, requestId);
  };
}

function single(value: string | string[] | undefined): string | null {
  return typeof value === 'string' ? value : null;
}
