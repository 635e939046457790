import { ERROR_CODES, type ErrorCode } from '../shared/errors/error-codes.js';
import { operationNames } from '../shared/model/operation-contract.js';
import { SERVICE_MODEL, type ApiModel } from './api-model.js';
import { envelopeSchemas } from './envelope-schema.js';
import { errorResponses, NOT_OPERATION_CODES } from './error-responses.js';
import { filterBodySchema } from './filter-body-schema.js';
import { responseHeaders } from './response-headers.js';
import type { JsonObject } from './json-schema.js';
import { problemSchemas } from './problem-schema.js';
import { recordSchemas } from './record-schemas.js';
import { referenceTables } from './reference-tables.js';
import { securityRequirements, securitySchemes } from './security-schemes.js';
import { serviceDefaults, settingDefaults } from './service-defaults.js';
import { operationTag, sharedParameters, summaryOperation } from './summary-operation.js';
import { exportErrorResponses, exportPaths, exportSchemas, EXPORTS_TAG } from './export-operations.js';
import { deltaErrorResponses, deltaPaths, deltaSchemas } from './delta-operations.js';

/** Where the generated document is committed, relative to the repository root. */
export const OPENAPI_FILE = 'openapi/openapi.json';

/** The document's own version; the API's major version is the `/v1/` path segment. */
const DOCUMENT_VERSION = '1.0.0';

/** A placeholder of the gateway base (the default of `{base_url}`): no local URL in the deployed document; the local stack's /docs serves its own. */
const GATEWAY_BASE_URL = 'https://your-gateway.azure-api.net/summary';

/**
 * Builds the OpenAPI 3.1 document of the service from the code's own definitions: the resource
 * definitions (fields, filters as data with their zod rules, export shapes), the roles → datapoints
 * configuration, the error registry and the service's defaults. Deterministic (no clock, no
 * environment), so the committed file can be compared with a fresh build.
 */
export function buildOpenApi(model: ApiModel = SERVICE_MODEL): JsonObject {
  const paths: JsonObject = {};
  const filterSchemas: JsonObject = {};
  for (const resource of model.resources) {
    const defaults = serviceDefaults(resource);
    paths[operationNames(resource).path] = { post: summaryOperation(model, resource, defaults) };
    filterSchemas[resource.openapi.filtersSchema] = filterBodySchema(model, resource, defaults);
  }
  const schemes = securitySchemes(settingDefaults().authorityHost);
  const problem = problemSchemas();
  const problemSchema = problem.Problem!;
  const elsewhere = Object.entries(NOT_OPERATION_CODES).map(([code, when]) => `\`${code}\` (${ERROR_CODES[code as ErrorCode].status}) answers ${when}`);
  problemSchema.description = `${String(problemSchema.description)} Beside the codes listed under each operation's responses, ${elsewhere.join('; ')}.`;

  return {
    openapi: '3.1.0',
    info: {
      title: 'Contracts & Invoices Summary Data Service',
      version: DOCUMENT_VERSION,
      description: 'A read-only data service: allowlisted summary records of contracts and of invoices, as JSON (paged) or as Parquet, '
        + 'limited to the caller\'s tenant. Every call needs three credentials together: an Entra ID access token, the gateway '
        + 'subscription key and the backend API key. Which records and fields a caller sees is decided by its app roles and the '
        + 'server-side roles → datapoints configuration (each field\'s description names the role that grants it); a request '
        + 'cannot ask for other fields. Every error is an RFC 9457 problem document with a stable `code`; every response carries '
        + `X-Request-ID. Generated from the code by \`npm run openapi\` (${OPENAPI_FILE}); do not edit by hand.\n\n${referenceTables(schemes)}`,
    },
    servers: [{
      url: '{base_url}',
      // The variable's own `description` would be valid OpenAPI 3.1, but the 3.1 schema bundled with
      // swagger-parser (2021-04-15) misspells it, so the server carries the explanation.
      description: 'base_url is the gateway base address and already includes the service\'s path prefix: the API Management '
        + 'gateway URL plus the API\'s path (e.g. https://<gateway>/summary); locally (npm start) https://127.0.0.1:<PORT>/api, '
        + 'which the reference page at /docs fills in itself.',
      variables: { base_url: { default: GATEWAY_BASE_URL } },
    }],
    security: securityRequirements(),
    tags: [...model.resources.map(operationTag), EXPORTS_TAG],
    paths: { ...paths, ...deltaPaths(model.resources), ...exportPaths(model.resources) },
    components: {
      schemas: { ...filterSchemas, ...exportSchemas(filterSchemas as Record<string, JsonObject>, model.resources), ...deltaSchemas(filterSchemas as Record<string, JsonObject>, model.resources), ...recordSchemas(model), ...envelopeSchemas(model), ...problem },
      responses: { ...errorResponses(), ...exportErrorResponses(), ...deltaErrorResponses() },
      parameters: sharedParameters(),
      headers: responseHeaders(model),
      securitySchemes: schemes,
    },
  };
}
