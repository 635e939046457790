import { operationId, type ResourceDefinition } from '../shared/model/resource-definition.js';
import { exportFile, mediaTypeOf, PARQUET_MEDIA_TYPE, REQUEST_ID_PATTERN as REQUEST_ID } from '../shared/model/operation-contract.js';
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
    operationId: operationId(resource),
    tags: [resource.name],
    summary: resource.openapi.summary,
    description: `Returns the allowlisted ${resource.name} summary records of the caller's data tenant (from the server-side client registry; `
      + 'a request can never name a tenant). Which records and fields are returned depends on the caller\'s roles. '
      + `The \`Accept\` header selects the format, with q-values: \`${mediaTypeOf('json')}\` (also for \`*/*\`, \`application/*\` or no Accept) `
      + `or \`${mediaTypeOf('parquet')}\`${exportAlso(resource)}; anything else is 406 \`NOT_ACCEPTABLE\`. `
      + `JSON is paged (page ${defaults.page}, pageSize ${defaults.pageSize} by default), ordered by ${defaults.orderBy} ${defaults.order} unless orderBy/order say otherwise. `
      + 'Credentials are checked before anything about the request: a caller missing one learns nothing about the request or the data.',
    parameters: [componentRef('parameters', 'X-Request-ID'), ...filterParameters(model, resource, defaults)],
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
  };
}
