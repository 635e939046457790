/**
 * The delta operations in the OpenAPI document: POST /v1/<resource>/delta for every resource, its
 * request body (the summary operation's filters, open date ranges, the token and the page name),
 * its JSON page (records and removal rows, the token on the last page) and its problem responses
 * (`DeltaProblem<status>`: only the codes these operations answer).
 */
import type { ErrorCode } from '../shared/errors/error-codes.js';
import { DELTA_PAGE_MEMBER, DELTA_PAGE_PATTERN, DELTA_PAGES_HOURS, DELTA_SINCE_MEMBER, DELTA_TOKEN_HEADER, DELTA_TOKEN_MEMBER, DELTA_TOKEN_PATTERN, deltaNames, INSTANT_PATTERN, KEPT_MEMBER, REMOVAL_REASONS, REMOVED_MEMBER } from '../shared/model/delta-operations.js';
import { exportFile, mediaTypeOf, PARQUET_MEDIA_TYPE } from '../shared/model/operation-contract.js';
import type { ResourceDefinition } from '../shared/model/resource-definition.js';
import { componentRef, schemaRef } from './component-ref.js';
import { narrowedProblemRefs, narrowedProblemResponses } from './error-responses.js';
import type { JsonObject } from './json-schema.js';
import { settingDefaults } from './service-defaults.js';

/** What every operation may answer before its own checks: the credentials, the gateway, a fault. */
const EDGE: readonly ErrorCode[] = ['INVALID_TOKEN', 'INVALID_API_KEY', 'INVALID_SUBSCRIPTION_KEY', 'MISSING_ROLE', 'CLIENT_NOT_REGISTERED', 'RATE_LIMITED', 'INTERNAL', 'IDENTITY_UNAVAILABLE'];

/** The codes a delta operation answers. */
export const DELTA_OPERATION_CODES: readonly ErrorCode[] = [...EDGE, 'NOT_ACCEPTABLE', 'INVALID_JSON', 'INVALID_BODY', 'UNKNOWN_FILTER', 'INVALID_FILTER', 'INVALID_DATE',
  'DATE_RANGE_REVERSED', 'PAGE_SIZE_TOO_LARGE', 'PAGINATION_NOT_ALLOWED', 'INVALID_DELTA_TOKEN', 'REQUEST_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE',
  'DELTA_VIEW_CHANGED', 'DELTA_FILTERS_CHANGED', 'DELTA_TOKEN_NOT_FOUND', 'DELTA_TOKEN_EXPIRED', 'DELTA_PAGE_NOT_FOUND', 'RESULT_TOO_LARGE',
  'STORE_UNAVAILABLE', 'EXPORTS_BUSY', 'STORAGE_UNAVAILABLE'];

/** The component name of a delta operation's problem response of a status. */
export function deltaProblemName(status: number): string {
  return `DeltaProblem${status}`;
}

/** The problem responses of the delta operations (`components.responses`). */
export function deltaErrorResponses(): Record<string, JsonObject> {
  return narrowedProblemResponses(DELTA_OPERATION_CODES, deltaProblemName);
}

const deltaSchemaName = (resource: ResourceDefinition, what: 'Request' | 'Page') => `${resource.openapi.filtersSchema.replace(/Filters$/, '')}Delta${what}`;

/** The delta operations' schemas (`components.schemas`): each resource's request and JSON page. */
export function deltaSchemas(filterSchemas: Readonly<Record<string, JsonObject>>, resources: readonly ResourceDefinition[]): Record<string, JsonObject> {
  const schemas: Record<string, JsonObject> = {
    DeltaPagination: {
      type: 'object',
      description: 'Where this page sits in the delta: its rows (changed records and removals) over all pages.',
      properties: {
        page: { type: 'integer', minimum: 1 },
        pageSize: { type: 'integer', minimum: 1, description: 'Rows per page: pageSize as asked for, else MAX_PAGE_SIZE.' },
        totalRecords: { type: 'integer', minimum: 0, description: 'Rows of the delta, over all pages.' },
        totalPages: { type: 'integer', minimum: 1 },
        hasNext: { type: 'boolean' },
        nextLink: { type: 'string', format: 'uri', description: 'The next page as an absolute URL on the public base URL (PUBLIC_BASE_URL; without it no links): POST it with an empty body. Present exactly when hasNext is true.' },
      },
      required: ['page', 'pageSize', 'totalRecords', 'totalPages', 'hasNext'],
      additionalProperties: false,
    },
    DeltaLinks: {
      type: 'object',
      description: 'How the delta goes on: the next page while there is one; on the last page, the token to keep and the link that asks the next delta.',
      properties: {
        nextPage: { type: 'string', pattern: DELTA_PAGE_PATTERN.source, description: `The next page\'s name: send it as \`${DELTA_PAGE_MEMBER}\` (body or query) to get it (kept ${DELTA_PAGES_HOURS} hours).` },
        deltaToken: { type: 'string', pattern: DELTA_TOKEN_PATTERN.source, description: `On the last page: keep it, and send it as \`${DELTA_TOKEN_MEMBER}\` with the same filters for the changes since this delta (answered for DELTA_TOKEN_DAYS, default ${settingDefaults().deltaTokenDays} days). Also in the ${DELTA_TOKEN_HEADER} header.` },
        deltaLink: { type: 'string', format: 'uri', description: 'On the last page, with a public base URL: the next delta as a URL (the filters, pageSize if you gave one, and deltaToken in its query): POST it with an empty body tomorrow.' },
      },
      additionalProperties: false,
    },
  };
  for (const resource of resources) {
    const filters = filterSchemas[resource.openapi.filtersSchema] as { properties: JsonObject };
    const { page: _page, orderBy: _orderBy, order: _order, ...properties } = filters.properties;
    schemas[deltaSchemaName(resource, 'Request')] = {
      type: 'object',
      description: `A delta of ${resource.name}: the summary operation's filters and pageSize, where a date range may have one end only (open) and span any number of months, and optionally `
        + `\`${DELTA_TOKEN_MEMBER}\` (absent: the whole view as of now), \`${DELTA_SINCE_MEMBER}\` (instead of a token, for a copy made without one) or \`${DELTA_PAGE_MEMBER}\` (a later page). No page (later pages are reached by their links), no order (rows are merged by id, in no particular order). Every member may also be sent in the query string; the body wins.`,
      properties: {
        ...properties,
        [DELTA_TOKEN_MEMBER]: { type: 'string', pattern: DELTA_TOKEN_PATTERN.source, description: 'The token of your last delta of these filters, as it was given.' },
        [DELTA_PAGE_MEMBER]: { type: 'string', pattern: DELTA_PAGE_PATTERN.source, description: 'A later page\'s name, as `delta.nextPage` gave it (with the same filters, or none).' },
        [DELTA_SINCE_MEMBER]: {
          type: 'string', pattern: INSTANT_PATTERN.source,
          description: `Instead of \`${DELTA_TOKEN_MEMBER}\`, for a copy you made without one (a folder pulled month by month or by an export job): the time it holds every write before (its X-Summary-As-Of, a pull's watermark). `
            + `The delta is then what changed since, and a kept row (\`${KEPT_MEMBER}\`) for every other record of your view now: drop from your copy what is in no row. JSON only; it reads the view's ids once.`,
        },
      },
      additionalProperties: false,
    };
    schemas[deltaSchemaName(resource, 'Page')] = {
      type: 'object',
      description: `One page of a ${resource.name} delta: the records created or changed since the token, in their current version, then a removal row for each record you were given that left your view; after a start with \`since\`, a kept row for every other record of your view.`,
      properties: {
        data: {
          type: 'array',
          items: {
            oneOf: [
              schemaRef(resource.openapi.recordSchema),
              {
                type: 'object',
                description: `A removal: the record\'s ${resource.idField}, and \`${REMOVED_MEMBER}\`: \`deleted\` (it is gone from the store) or \`leftView\` (it is no longer in your view and filters: turned Draft, moved out of the range or workspace). Delete it from your copy.`,
                properties: { [resource.idField]: { type: 'string' }, [REMOVED_MEMBER]: { enum: [...REMOVAL_REASONS] } },
                required: [resource.idField, REMOVED_MEMBER],
                additionalProperties: false,
              },
              {
                type: 'object',
                description: `Only in a delta started with \`${DELTA_SINCE_MEMBER}\`: the record is in your view and unchanged since then; keep it as your copy holds it.`,
                properties: { [resource.idField]: { type: 'string' }, [KEPT_MEMBER]: { const: true } },
                required: [resource.idField, KEPT_MEMBER],
                additionalProperties: false,
              },
            ],
          },
        },
        pagination: schemaRef('DeltaPagination'),
        delta: schemaRef('DeltaLinks'),
        meta: schemaRef('Meta'),
      },
      required: ['data', 'pagination', 'delta', 'meta'],
      additionalProperties: false,
    };
  }
  return schemas;
}

/** The delta operations' paths. */
export function deltaPaths(resources: readonly ResourceDefinition[]): JsonObject {
  const paths: JsonObject = {};
  const base = { 'X-Request-ID': componentRef('headers', 'X-Request-ID'), 'Cache-Control': componentRef('headers', 'Cache-Control') };
  for (const resource of resources) {
    const names = deltaNames(resource);
    const { mediaType } = exportFile(resource.export);
    const responses: JsonObject = {
      200: {
        description: `A page of the delta (JSON), or the whole delta as ${mediaType === PARQUET_MEDIA_TYPE ? 'one Parquet file' : `a zip of two Parquet files (Accept: ${PARQUET_MEDIA_TYPE} or ${mediaType})`}: the view's columns, each nullable, then \`${REMOVED_MEMBER}\` (null on changed rows).`,
        headers: { ...base, [DELTA_TOKEN_HEADER]: componentRef('headers', DELTA_TOKEN_HEADER), 'X-Summary-As-Of': componentRef('headers', 'X-Summary-As-Of'), 'X-Summary-Schema': componentRef('headers', 'X-Summary-Schema'), Link: componentRef('headers', 'Link'), 'Content-Disposition': componentRef('headers', 'Content-Disposition') },
        content: {
          [mediaTypeOf('json')]: { schema: schemaRef(deltaSchemaName(resource, 'Page')) },
          [mediaType]: { schema: { type: 'string', format: 'binary' } },
        },
      },
    };
    Object.assign(responses, narrowedProblemRefs(DELTA_OPERATION_CODES, deltaProblemName));
    paths[names.path] = {
      post: {
        operationId: names.id,
        tags: [resource.name],
        summary: `What changed in your ${resource.name} view since a token`,
        description: 'Without a token: the whole view as of now, then a token. With the token of your last delta (and the same filters): every record of your view created or changed since it '
          + '(every write counts, whatever its dates say), in its current version, and a removal row for every record you were given that is no longer in your view: deleted, turned Draft, moved out of your range or workspace. '
          + 'Never a record you could not see. JSON comes in pages: follow `pagination.nextLink` (or send `delta.nextPage` as deltaPage) to the last page, which carries `delta.deltaToken` and `delta.deltaLink`. '
          + 'A copy made without a token (a folder pulled before) starts with `since`, its X-Summary-As-Of, instead: what changed since, and a kept row for every other record. '
          + 'A token is bound to your client, tenant, view and filters: another\'s or an altered one is 410 `DELTA_TOKEN_NOT_FOUND`; a changed view 409 `DELTA_VIEW_CHANGED`; other filters 409 `DELTA_FILTERS_CHANGED` (the same filters with a wider date range, an earlier From or a later To, go on: the records of the added days come as changed); an old one 410 `DELTA_TOKEN_EXPIRED`. Each says to start again without a token.',
        requestBody: {
          required: false,
          content: { [mediaTypeOf('json')]: { schema: schemaRef(deltaSchemaName(resource, 'Request')), examples: { first: { summary: 'The whole view, then a token', value: { createdFrom: '2024-01-01' } } } } },
        },
        responses,
      },
    };
  }
  return paths;
}
