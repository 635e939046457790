import type { ResourceDefinition } from '../shared/model/resource-definition.js';
import { exportFile, mediaTypeOf, PARQUET_MEDIA_TYPE } from '../shared/model/operation-contract.js';
import { unreachable } from '../shared/util/unreachable.js';
import { componentRef, schemaRef } from './component-ref.js';
import type { JsonObject } from './json-schema.js';

const PARQUET_NOTE = 'The whole result (no pagination), rows in the same order as JSON with the same filters; the columns are the '
  + 'JSON `data` fields the caller may see, with the same names, order and nullability, and explicit types (UTF8 strings, '
  + 'DATE, TIMESTAMP(MILLIS, UTC), DECIMAL, INT32). An empty result is a file with the full schema and no rows. Larger than '
  + 'PARQUET_MAX_BYTES is 413 `RESULT_TOO_LARGE` instead, and no byte of the file is sent.';

/** The binary body produced for `Accept: application/vnd.apache.parquet`, in the resource's export shape. */
function exportContent(resource: ResourceDefinition): JsonObject {
  const shape = resource.export;
  const { mediaType } = exportFile(shape);
  const noun = resource.openapi.recordNoun;
  switch (shape.kind) {
    case 'file':
      return { [mediaType]: { schema: { type: 'string', format: 'binary', description: `One Parquet file of ${noun} records. ${PARQUET_NOTE}` } } };
    case 'zip':
      return {
        [mediaType]: {
          // Machine-readable for clients (the pull client's datasets.ts is generated from it).
          'x-zip-entries': [shape.records, shape.lines],
          schema: {
            type: 'string',
            format: 'binary',
            description: `Answered when Accept is ${PARQUET_MEDIA_TYPE}: a zip archive with exactly two entries, \`${shape.records}\` `
              + `(one row per ${noun}: the visible header fields) and \`${shape.lines}\` (one row per ${noun} line: ${resource.idField}, then the `
              + `visible line fields). ${PARQUET_NOTE}`,
          },
        },
      };
    default:
      return unreachable(shape, 'export shape');
  }
}

/** The 200 response of a summary operation: the JSON envelope, or the Parquet export. */
export function successResponse(resource: ResourceDefinition): JsonObject {
  const { mediaType } = exportFile(resource.export);
  const answeredAs = mediaType === PARQUET_MEDIA_TYPE ? '' : `, answered as ${mediaType}`;
  return {
    description: `The ${resource.name} the caller may see: a JSON page (Accept: application/json) or the whole result as Parquet (Accept: ${PARQUET_MEDIA_TYPE}${answeredAs}).`,
    headers: {
      'X-Request-ID': componentRef('headers', 'X-Request-ID'),
      'X-Client-Request-ID': componentRef('headers', 'X-Client-Request-ID'),
      'Cache-Control': componentRef('headers', 'Cache-Control'),
      ETag: componentRef('headers', 'ETag'),
      'X-Summary-Schema': componentRef('headers', 'X-Summary-Schema'),
      'X-Summary-As-Of': componentRef('headers', 'X-Summary-As-Of'),
      Link: componentRef('headers', 'Link'),
      'Content-Disposition': componentRef('headers', 'Content-Disposition'),
    },
    content: {
      [mediaTypeOf('json')]: { schema: schemaRef(resource.openapi.envelopeSchema) },
      ...exportContent(resource),
    },
  };
}
