import { z } from 'zod';
import { REQUEST_ID_PATTERN as REQUEST_ID } from '../shared/model/operation-contract.js';
import type { ResourceDefinition } from '../shared/model/resource-definition.js';
import type { ApiModel } from './api-model.js';
import type { JsonObject } from './json-schema.js';
import { schemaRef } from './component-ref.js';
import { toJsonSchema } from './json-schema.js';

/** `pagination` of the JSON envelope (kept equal to `JsonEnvelope['pagination']` by a type test). */
export const PaginationSchema = z.strictObject({
  page: z.int().min(1).meta({ description: 'The page answered (from 1).' }),
  pageSize: z.int().min(1).meta({ description: 'Records per page, as asked for with pageSize (or its default).' }),
  totalRecords: z.int().min(0).meta({ description: 'Records matching the filters that the caller may see, over all pages.' }),
  totalPages: z.int().min(0).meta({ description: 'ceil(totalRecords / pageSize).' }),
  hasNext: z.boolean().meta({ description: 'Whether a page after this one has records.' }),
  nextLink: z.url().optional().meta({
    description: 'The next page as an absolute URL on the public base URL (the deployment\'s PUBLIC_BASE_URL setting: the gateway\'s base_url; a deployment without it sends no links), with every filter and order of the request, then page and pageSize, in its query (the query form the contract allows): '
      + 'POST it with an empty body, or with the same body (without page), to get the next page of the same result. Present exactly when hasNext is true and the body carried no page (the body beats the query: '
      + 'a body with page would answer the same page for ever). The same URL as the Link header\'s rel="next". An extension of the '
      + 'contract\'s pagination object (docs/decisions.md).',
  }),
}).meta({ description: 'Where this page sits in the whole result.' });

/** `meta` of the JSON envelope (kept equal to `JsonEnvelope['meta']` by a type test). */
export const MetaSchema = z.strictObject({
  requestId: z.string().regex(REQUEST_ID).meta({ description: 'The request identifier; equals the X-Request-ID response header. Quote it to support.' }),
  generatedAt: z.string().meta({ format: 'date-time', description: 'When the response was generated (UTC, ISO 8601).' }),
  warning: z.string().optional().meta({ description: 'Present when something about the answer needs attention, e.g. a page past the last page (then data is empty).' }),
}).meta({ description: 'About this response.' });

/** The `Pagination` and `Meta` components and one envelope per resource, around its record schema. */
export function envelopeSchemas(model: ApiModel): Record<string, JsonObject> {
  const envelope = (resource: ResourceDefinition): JsonObject => ({
    type: 'object',
    description: `The JSON response of POST /v1/${resource.name}/summary: one page of ${resource.name} records the caller may see.`,
    properties: {
      data: {
        type: 'array',
        items: schemaRef(resource.openapi.recordSchema),
        description: 'The records of this page, allowlisted fields only; empty past the last page.',
      },
      pagination: schemaRef('Pagination'),
      meta: schemaRef('Meta'),
    },
    required: ['data', 'pagination', 'meta'],
    additionalProperties: false,
  });
  return {
    Pagination: toJsonSchema(PaginationSchema),
    Meta: toJsonSchema(MetaSchema),
    ...Object.fromEntries(model.resources.map((resource) => [resource.openapi.envelopeSchema, envelope(resource)])),
  };
}
