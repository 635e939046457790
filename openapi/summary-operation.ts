import type { ResourceDefinition } from '../shared/model/resource-definition.js';
import { exportFile, mediaTypeOf, operationNames, PARQUET_MEDIA_TYPE, REQUEST_ID_PATTERN as REQUEST_ID } from '../shared/model/operation-contract.js';
import type { ApiModel } from './api-model.js';
import { operationErrorCodes, problemResponseName } from './error-responses.js';
import { filterParameters } from './filter-parameters.js';
import { componentRef, schemaRef } from './component-ref.js';
import type { JsonObject } from './json-schema.js';
import type { ServiceDefaults } from './service-defaults.js';
import { successResponse } from './success-response.js';

/** ", or `application/zip`" for an export answered as a zip, which may be asked for by its own type too. */
function exportAlso(resource: ResourceDefinition): string {
  const { mediaType } = exportFile(resource.export);
  return mediaType === PARQUET_MEDIA_TYPE ? '' : ` (or \`${mediaType}\`, the type of its export)`;
}

/** The tag grouping a resource's operation. */
export function operationTag(resource: ResourceDefinition): JsonObject {
  return { name: resource.name, description: resource.openapi.summary };
}

/** The POST operation of one resource: parameters, body, the 200 response and every problem response. */
export function summaryOperation(model: ApiModel, resource: ResourceDefinition, defaults: ServiceDefaults): JsonObject {
  const responses: JsonObject = { 200: successResponse(resource) };
  for (const status of operationErrorCodes().keys()) {
    responses[String(status)] = componentRef('responses', problemResponseName(status));
  }
  return {
    operationId: operationNames(resource).id,
    tags: [resource.name],
    summary: resource.openapi.summary,
    description: `Returns the allowlisted ${resource.name} summary records of the caller's data tenant (from the server-side client registry; `
      + 'a request can never name a tenant). Which records and fields are returned depends on the caller\'s roles. '
      + `The \`Accept\` header selects the format, with q-values: \`${mediaTypeOf('json')}\` (also for \`*/*\`, \`application/*\` or no Accept) `
      + `or \`${mediaTypeOf('parquet')}\`${exportAlso(resource)}; anything else is 406 \`NOT_ACCEPTABLE\`. `
      + `JSON is paged (page ${defaults.page}, pageSize ${defaults.pageSize} by default), ordered by ${defaults.orderBy} ${defaults.order} unless orderBy/order say otherwise. `
      + 'Credentials are checked before anything about the request: a caller missing one learns nothing about the request or the data. '
      + 'Every 200 carries an ETag of the result; send it back in If-None-Match to learn whether the result changed without getting it again '
      + '(412 `RESULT_UNCHANGED`: one aggregate, no record read; else the 200 with the new result and its new ETag).',
    parameters: [componentRef('parameters', 'X-Request-ID'), componentRef('parameters', 'If-None-Match'), ...filterParameters(model, resource, defaults)],
    requestBody: {
      required: false,
      description: 'The filters as a JSON object, sent with `Content-Type: application/json` (a body with another Content-Type is 415; over 64 KiB is 413 `REQUEST_TOO_LARGE`).',
      content: {
        [mediaTypeOf('json')]: {
          schema: schemaRef(resource.openapi.filtersSchema),
          examples: {
            // Valid whatever Accept chooses: page and pageSize would make it a JSON-only example.
            oneMonth: { summary: 'Created in March 2025 (JSON pages or one export)', value: { createdFrom: '2025-03-01', createdTo: '2025-03-31' } },
          },
        },
      },
    },
    responses,
  };
}

/** The request parameters shared by both operations (`components.parameters`). */
export function sharedParameters(): Record<string, JsonObject> {
  return {
    'X-Request-ID': {
      name: 'X-Request-ID',
      in: 'header',
      required: false,
      description: `Optional: your own identifier for this request. A valid one (1–128 of A–Z a–z 0–9 . _ : -, that is ${REQUEST_ID.source}) is recorded with the request and echoed in the X-Client-Request-ID response header; any other value is ignored (never refused: the request is answered as if it had none). The response's X-Request-ID is always the gateway's own id, unique per request.`,
      schema: { type: 'string' },
    },
    'If-None-Match': {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'Optional: the ETag of an earlier answer (or a list of them). When the result of this request still has one of them, the answer '
        + 'is 412 `RESULT_UNCHANGED` with the current ETag and no records, at the cost of one aggregate in the store (RFC 9110 §13.1.2: 412, not 304, '
        + 'for POST); otherwise the request is answered as without it. It is evaluated after every other check, so a bad request is still its 4xx. '
        + '`*` always matches. A value that is not `*` or a list of entity tags is 400 `INVALID_PRECONDITION`.',
      schema: { type: 'string' },
      example: 'W/"3f2a9c0d1b7e4a5f8c6d2e1f0a9b8c7d"',
    },
  };
}
