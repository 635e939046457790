import { REQUEST_ID_PATTERN as REQUEST_ID } from '../shared/model/operation-contract.js';
import { exportFile } from '../shared/model/operation-contract.js';
import { DELTA_TOKEN_HEADER, DELTA_TOKEN_PATTERN } from '../shared/model/delta-operations.js';
import type { ApiModel } from './api-model.js';
import type { JsonObject } from './json-schema.js';

const requestIdSchema: JsonObject = { type: 'string', pattern: REQUEST_ID.source };

/** The response headers the document refers to (`components.headers`). */
export function responseHeaders(model: ApiModel): Record<string, JsonObject> {
  const attachments = model.resources
    .map((resource) => `\`attachment; filename="${resource.name}-<requestId>.${exportFile(resource.export).extension}"\` (${resource.name})`)
    .join(' or ');
  return {
    'X-Request-ID': {
      description: 'The gateway\'s own identifier of this request, unique per request, on every response (success or error). On a JSON success it equals meta.requestId; in a problem document, requestId. Quote it to support.',
      required: true,
      schema: requestIdSchema,
    },
    'X-Client-Request-ID': {
      description: 'Your own X-Request-ID, echoed when you sent a valid one: correlate with it in your logs; quote X-Request-ID to support.',
      schema: requestIdSchema,
    },
    Link: {
      description: 'On JSON pages whose body carried no page (RFC 8288): `<url>; rel="next"` while there is a next page (the same URL as '
        + 'pagination.nextLink), `rel="first"`, and `rel="last"` when a jump reaches the last page (the whole result within the result '
        + 'window). Each URL is absolute on the public base URL (the deployment\'s PUBLIC_BASE_URL; without it there are no links) carrying every filter and order of the request, then page and pageSize, in its query; POST it with an empty body or the same body. '
        + 'Where the next page exists but its link cannot be made, the answer is 503 `STORE_UNAVAILABLE` with Retry-After instead: ask again.',
      schema: { type: 'string' },
    },
    ETag: {
      description: 'A weak validator (RFC 9110 §8.8.3) of your result to these filters: your tenant, your roles\' view (fields, Drafts), the filters, '
        + 'the order and the format, as the result stands. The page and pageSize are not part of it: every page of a walk carries the ETag the walk '
        + 'started with. It changes whenever a record of the result is created, updated (whatever its dates say), deleted, or enters or leaves your '
        + 'view, and when a deploy changes the fields or their encoding; it stays the same otherwise, on every instance and after restarts. A '
        + 'result written to in the last few seconds gets an ETag of its own, so the next check fetches it again rather than miss a write. Send it '
        + 'back in If-None-Match to ask whether the result changed: 412 `RESULT_UNCHANGED` when it has not.',
      schema: { type: 'string', pattern: '^W/"[0-9a-f]{32}"$' },
    },
    'X-Summary-Schema': {
      description: 'The fingerprint of the answer\'s columns: your view\'s fields (and line fields) with their types, in this format. It changes '
        + 'exactly when a reader\'s schema of your answers would: a role granted or taken away, the roles-to-datapoints configuration, or a deploy '
        + 'that changes a field or its encoding. A folder of answers with one X-Summary-Schema has one schema.',
      schema: { type: 'string', pattern: '^[0-9a-f]{32}$' },
    },
    'X-Summary-As-Of': {
      description: 'The time the answer reflects (UTC, whole seconds): every write that landed before it is in the answer; writes after it may '
        + 'be or not. It is a few seconds before the service took the result\'s version, never a time any record was written. A mirror keeps '
        + 'it per window, and the oldest of its windows as its watermark: the time a later pull can be compared with. On a 412 it is the time '
        + 'the answer you hold was confirmed to be current. Absent only on a page read from a page cursor of an earlier deploy.',
      schema: { type: 'string', format: 'date-time' },
    },
    'Cache-Control': {
      description: '`no-store`: answers carry tenant data and are never cached.',
      schema: { type: 'string' },
    },
    'Content-Disposition': {
      description: `With Parquet only: ${attachments}.`,
      schema: { type: 'string' },
    },
    'WWW-Authenticate': {
      description: 'With `INVALID_TOKEN`: `Bearer` when no token was sent; `Bearer error="invalid_token", error_description="…"` when it was not valid (RFC 6750), the description saying why: expired, not valid yet, signature, audience, issuer, tenant, not an application token, malformed.',
      schema: { type: 'string' },
    },
    Location: {
      description: 'Where the export job\'s status is: `<base_url>/v1/exports/<id>` (relative to the request URL where the deployment has no public base URL). Poll it with GET.',
      required: true,
      schema: { type: 'string', format: 'uri-reference' },
    },
    [DELTA_TOKEN_HEADER]: {
      description: 'On a delta\'s Parquet answer and on its last JSON page: the token to keep for the next delta of the same filters (also `delta.deltaToken`, and the Parquet footer\'s `summary.deltaToken`).',
      schema: { type: 'string', pattern: DELTA_TOKEN_PATTERN.source },
    },
    'Retry-After': {
      description: 'Seconds to wait before retrying.',
      required: true,
      schema: { type: 'integer', minimum: 0 },
    },
  };
}
