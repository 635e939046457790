import { mediaTypeOf } from '../http/negotiate.js';
import type { Resource } from '../model/resources.js';
import { ENVELOPE_SCHEMA_NAMES } from './envelope-schema.js';
import { componentRef } from './component-ref.js';
import type { JsonObject } from './json-value.js';
import { schemaRef } from './component-ref.js';

/** The media type of the invoices Parquet export: a zip of two Parquet files. */
export const ZIP_MEDIA_TYPE = 'application/zip';

/** The names of the entries of the invoices zip, in archive order. */
export const INVOICE_ZIP_ENTRIES: readonly string[] = ['invoices.parquet', 'invoice_tables.parquet'];

const PARQUET_NOTE = 'The whole result (no pagination), rows in the same order as JSON with the same filters; the columns are the '
  + 'JSON `data` fields the caller may see, with the same names, order and nullability, and explicit types (UTF8 strings, '
  + 'DATE, TIMESTAMP(MILLIS, UTC), DECIMAL, INT32). An empty result is a file with the full schema and no rows. Larger than '
  + 'PARQUET_MAX_BYTES is 413 `RESULT_TOO_LARGE` instead, and no byte of the file is sent.';

/** The binary body produced for `Accept: application/vnd.apache.parquet`, per resource. */
function exportContent(resource: Resource): JsonObject {
  if (resource === 'contracts') {
    return { [mediaTypeOf('parquet')]: { schema: { type: 'string', format: 'binary', description: `One Parquet file of contract records. ${PARQUET_NOTE}` } } };
  }
  const [headers, lines] = INVOICE_ZIP_ENTRIES;
  return {
    [ZIP_MEDIA_TYPE]: {
      schema: {
        type: 'string',
        format: 'binary',
        description: `Answered when Accept is application/vnd.apache.parquet: a zip archive with exactly two entries, \`${headers}\` `
          + `(one row per invoice: the visible header fields) and \`${lines}\` (one row per invoice line: invoiceId, then the `
          + `visible line fields). ${PARQUET_NOTE}`,
      },
    },
  };
}

/** The 200 response of a summary operation: the JSON envelope, or the Parquet export. */
export function successResponse(resource: Resource): JsonObject {
  return {
    description: `The ${resource} the caller may see: a JSON page (Accept: application/json) or the whole result as Parquet (Accept: application/vnd.apache.parquet${resource === 'invoices' ? `, answered as ${ZIP_MEDIA_TYPE}` : ''}).`,
    headers: {
      'X-Request-ID': componentRef('headers', 'X-Request-ID'),
      'Cache-Control': componentRef('headers', 'Cache-Control'),
      'Content-Disposition': componentRef('headers', 'Content-Disposition'),
    },
    content: {
      [mediaTypeOf('json')]: { schema: schemaRef(ENVELOPE_SCHEMA_NAMES[resource]) },
      ...exportContent(resource),
    },
  };
}
