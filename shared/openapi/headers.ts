import { VALID as REQUEST_ID } from '../http/request-id.js';
import type { JsonObject } from './json-value.js';

/** A `$ref` to a header under `components.headers`. */
export function headerRef(name: string): JsonObject {
  return { $ref: `#/components/headers/${name}` };
}

/** A `$ref` to a parameter under `components.parameters`. */
export function parameterRef(name: string): JsonObject {
  return { $ref: `#/components/parameters/${name}` };
}

const requestIdSchema: JsonObject = { type: 'string', pattern: REQUEST_ID.source };

/** The response headers the document refers to (`components.headers`). */
export function responseHeaders(): Record<string, JsonObject> {
  return {
    'X-Request-ID': {
      description: 'The request identifier, on every response (success or error). On a JSON success it equals meta.requestId; in a problem document, requestId. Quote it to support.',
      required: true,
      schema: requestIdSchema,
    },
    'Cache-Control': {
      description: '`no-store`: answers carry tenant data and are never cached.',
      schema: { type: 'string' },
    },
    'Content-Disposition': {
      description: 'With Parquet only: `attachment; filename="contracts-<requestId>.parquet"` (contracts) or `attachment; filename="invoices-<requestId>.zip"` (invoices).',
      schema: { type: 'string' },
    },
    'WWW-Authenticate': {
      description: 'With `INVALID_TOKEN`: `Bearer` when no token was sent, `Bearer error="invalid_token"` when it was not valid (RFC 6750).',
      schema: { type: 'string' },
    },
    'Retry-After': {
      description: 'Seconds to wait before retrying.',
      required: true,
      schema: { type: 'integer', minimum: 0 },
    },
  };
}

/** The request parameters shared by both operations (`components.parameters`). */
export function sharedParameters(): Record<string, JsonObject> {
  return {
    'X-Request-ID': {
      name: 'X-Request-ID',
      in: 'header',
      required: false,
      description: 'Optional: your identifier for this request (1–128 of A–Z a–z 0–9 . _ : -). It is kept and returned; otherwise (absent or invalid) the gateway assigns one.',
      schema: requestIdSchema,
    },
  };
}
