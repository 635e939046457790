import { ApiError } from '../errors/api-error.js';
import { PROBLEM_MEDIA_TYPE, toProblem } from '../errors/problem-response.js';
import type { ErrorCode } from '../errors/error-codes.js';
import type { HttpResult } from './output-stages/output-stage.js';
import { baseHeaders } from './response-headers.js';

/**
 * Answers an error as `application/problem+json` with `X-Request-ID`. An ApiError keeps its code,
 * status and headers; anything else is reported through `onUnexpected` and answered as a bare
 * 500 INTERNAL, with no stack and no message.
 */
export function errorResponse(error: unknown, requestId: string, onUnexpected: (error: unknown) => void): HttpResult & { code: ErrorCode } {
  let apiError: ApiError;
  if (error instanceof ApiError) {
    apiError = error;
  } else {
    onUnexpected(error);
    apiError = new ApiError('INTERNAL', `Something went wrong on our side. Quote requestId ${requestId} to support.`);
  }
  return {
    status: apiError.status,
    headers: { ...apiError.headers, ...baseHeaders(PROBLEM_MEDIA_TYPE, requestId) },
    body: JSON.stringify(toProblem(apiError, requestId)),
    code: apiError.code,
    records: 0,
  };
}
