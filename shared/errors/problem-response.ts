import { ERROR_CODES } from './error-codes.js';
import type { ApiError } from './api-error.js';

/** The RFC 9457 problem document the service answers errors with. */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId: string;
  errors?: { member: string; code: string; message: string }[];
}

/** The media type of every error response (RFC 9457). */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** Base of the `type` URIs; each code is documented under it (docs/errors.md). */
export const PROBLEM_TYPE_BASE = 'https://summary-service.invalid/problems/';

/**
 * Maps an ApiError to its problem document. Never includes a stack or a cause.
 *
 * @example
 * toProblem(new ApiError('INVALID_DATE', 'createdFrom must be a calendar date YYYY-MM-DD.'), 'req-1');
 * // { type: '…/problems/invalid-date', title, status: 400, detail, code: 'INVALID_DATE', requestId: 'req-1' }
 */
export function toProblem(error: ApiError, requestId: string): ProblemDocument {
  const problem: ProblemDocument = {
    type: PROBLEM_TYPE_BASE + error.code.toLowerCase().replaceAll('_', '-'),
    title: ERROR_CODES[error.code].title,
    status: error.status,
    detail: error.message,
    code: error.code,
    requestId,
  };
  if (error.errors.length > 0) {
    problem.errors = error.errors.map(({ member, code, message }) => ({ member, code, message }));
  }
  return problem;
}
