import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../shared/errors/error-codes.js';
import { REQUEST_ID_PATTERN as REQUEST_ID } from '../shared/model/operation-contract.js';
import { PROBLEM_TYPE_BASE } from '../shared/errors/problem-response.js';
import type { JsonObject } from './json-schema.js';
import { toJsonSchema } from './json-schema.js';

const CODES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];
const codeSchema = z.enum(CODES).meta({ description: 'The stable error code: match on it, never on title, detail or message.' });

/** One problem with one request member, as listed in a problem's `errors`. */
export const FieldErrorSchema = z.strictObject({
  member: z.string().meta({ description: 'The filter (or `body`) at fault.' }),
  code: codeSchema,
  message: z.string().meta({ description: 'What was wrong and how to fix it.' }),
});

/** The problem document every error is answered with (kept in step with `toProblem` by tests). */
export const ProblemSchema = z.strictObject({
  type: z.url().meta({ description: `Identifies the problem type: ${PROBLEM_TYPE_BASE}<code in kebab-case>. An identifier, not a page to fetch.` }),
  title: z.string().meta({ description: 'A short summary of the problem type.' }),
  status: z.int().min(400).max(599).meta({ description: 'The HTTP status code.' }),
  detail: z.string().meta({ description: 'What went wrong in this request and how to fix it.' }),
  code: codeSchema,
  requestId: z.string().regex(REQUEST_ID).meta({ description: 'Equals the X-Request-ID response header; quote it to support.' }),
  errors: z.array(FieldErrorSchema).min(1).optional().meta({ description: 'Every problem found in the request (validation errors); the first decides `code`.' }),
}).meta({ description: 'An RFC 9457 problem document. Every error response of this API is one.' });

/** The `Problem` component. */
export function problemSchemas(): Record<string, JsonObject> {
  return { Problem: toJsonSchema(ProblemSchema) };
}
