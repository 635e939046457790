import { STATUS_CODES } from 'node:http';
import { DELTA_CODES, ERROR_CODES, EXPORT_JOB_CODES, type ErrorCode } from '../shared/errors/error-codes.js';
import { PROBLEM_MEDIA_TYPE } from '../shared/errors/problem-response.js';
import { componentRef, schemaRef } from './component-ref.js';
import type { JsonObject } from './json-schema.js';

/**
 * Codes a POST to an operation can never carry, with why: they answer requests that are not an
 * operation (another path, another method). They stay in the `Problem.code` enum.
 */
export const NOT_OPERATION_CODES: Readonly<Partial<Record<ErrorCode, string>>> = {
  NOT_FOUND: 'a path that is not an operation',
  METHOD_NOT_ALLOWED: 'a method other than POST on an operation path (with `Allow: POST`)',
  MALFORMED_REQUEST: 'a request HTTP cannot read (an unknown method such as `FOO`, a broken request line), before any path is looked at',
  HEADERS_TOO_LARGE: 'a request whose head (the URL and its query included) is past 16 KiB, before any path is looked at',
};

/**
 * Headers some statuses carry beside X-Request-ID: set by the ApiErrors of those statuses, and by
 * the gateway's rate limit (429) once a code for it is registered.
 */
const STATUS_HEADERS: Readonly<Record<number, readonly string[]>> = {
  401: ['WWW-Authenticate'],
  412: ['ETag', 'X-Summary-Schema', 'X-Summary-As-Of'],
  429: ['Retry-After'],
  503: ['Retry-After'],
};

/** The component name of the problem response of a status. */
export function problemResponseName(status: number): string {
  return `Problem${status}`;
}

/**
 * The codes of each status a summary operation can answer, from the error registry (grouped by status,
 * registry order): a code added to the registry shows up here without touching the document.
 */
export function operationErrorCodes(): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const [code, { status }] of Object.entries(ERROR_CODES) as [ErrorCode, { status: number }][]) {
    if (NOT_OPERATION_CODES[code] !== undefined || EXPORT_JOB_CODES.has(code) || DELTA_CODES.has(code)) continue;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/** One problem+json response per status (`components.responses`), its `code` narrowed to that status's codes. */
export function errorResponses(): Record<string, JsonObject> {
  const responses: Record<string, JsonObject> = {};
  for (const [status, codes] of operationErrorCodes()) {
    const headers: JsonObject = { 'X-Request-ID': componentRef('headers', 'X-Request-ID'), 'X-Client-Request-ID': componentRef('headers', 'X-Client-Request-ID'), 'Cache-Control': componentRef('headers', 'Cache-Control') };
    for (const name of STATUS_HEADERS[status] ?? []) headers[name] = componentRef('headers', name);
    responses[problemResponseName(status)] = {
      description: `${STATUS_CODES[status] ?? 'Error'}. A problem document whose \`code\` is one of: `
        + codes.map((code) => `\`${code}\` (${ERROR_CODES[code].title})`).join('; ') + '.',
      headers,
      content: {
        [PROBLEM_MEDIA_TYPE]: {
          schema: {
            allOf: [
              schemaRef('Problem'),
              { type: 'object', properties: { status: { const: status }, code: { enum: codes } } },
            ],
          },
        },
      },
    };
  }
  return responses;
}

/** The statuses (ascending) of a list of codes. */
export function statusesOf(codes: readonly ErrorCode[]): number[] {
  return [...new Set(codes.map((code) => ERROR_CODES[code].status))].sort((a, b) => a - b);
}

/**
 * The problem responses (`components.responses`) of operations that answer only `codes` (the
 * export jobs', the deltas'): one per status, named by `nameOf`, its `code` narrowed to those codes.
 */
export function narrowedProblemResponses(codes: readonly ErrorCode[], nameOf: (status: number) => string): Record<string, JsonObject> {
  const responses: Record<string, JsonObject> = {};
  for (const status of statusesOf(codes)) {
    const mine = codes.filter((code) => ERROR_CODES[code].status === status);
    responses[nameOf(status)] = {
      description: `${STATUS_CODES[status] ?? 'Error'}. A problem document whose \`code\` is one of: ${mine.map((code) => `\`${code}\` (${ERROR_CODES[code].title})`).join('; ')}.`,
      headers: {
        'X-Request-ID': componentRef('headers', 'X-Request-ID'),
        'Cache-Control': componentRef('headers', 'Cache-Control'),
        ...(status === 401 ? { 'WWW-Authenticate': componentRef('headers', 'WWW-Authenticate') } : {}),
        ...(status === 429 || status === 503 ? { 'Retry-After': componentRef('headers', 'Retry-After') } : {}),
      },
      content: { [PROBLEM_MEDIA_TYPE]: { schema: { allOf: [schemaRef('Problem'), { type: 'object', properties: { status: { const: status }, code: { enum: mine } } }] } } },
    };
  }
  return responses;
}

/** An operation's references to those responses, by status. */
export function narrowedProblemRefs(codes: readonly ErrorCode[], nameOf: (status: number) => string): JsonObject {
  return Object.fromEntries(statusesOf(codes).map((status) => [String(status), componentRef('responses', nameOf(status))]));
}
