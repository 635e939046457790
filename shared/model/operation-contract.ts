/**
 * The facts of the summary operations' wire contract that both the request pipeline and the
 * OpenAPI document read: where an operation is, which media types it answers, what a request id
 * may be, and the page defaults. Said here once.
 */
import type { ExportShape, ResourceDefinition } from './resource-definition.js';
import { unreachable } from '../util/unreachable.js';

/**
 * The names of a resource's summary operation, every one derived here from the resource's name:
 * nowhere else spells one.
 */
export interface OperationNames {
  /** The `operationId` in the OpenAPI document, which is also the Azure Functions function name (`contractsSummary`). */
  readonly id: string;
  /** The operation's path (`/v1/contracts/summary`): in the OpenAPI document, the gateway and the links. */
  readonly path: string;
  /** The path as the Functions host registers it, under its `api` prefix (`v1/contracts/summary`). */
  readonly route: string;
  /** The operation as the log line and metrics name it (`contracts.summary`). */
  readonly logName: string;
  /** The request span's name (`POST /v1/contracts/summary`). */
  readonly spanName: string;
}

/** The names of a resource's summary operation. */
export function operationNames(resource: ResourceDefinition): OperationNames {
  const route = `v1/${resource.name}/summary`;
  return Object.freeze({ id: `${resource.name}Summary`, path: `/${route}`, route, logName: `${resource.name}.summary`, spanName: `POST /${route}` });
}

/** The response formats the service can produce. */
export type Format = 'json' | 'parquet';

/** The Parquet media type (as registered with IANA by the Parquet project). */
export const PARQUET_MEDIA_TYPE = 'application/vnd.apache.parquet';

const MEDIA_TYPES: Readonly<Record<Format, string>> = {
  json: 'application/json',
  parquet: PARQUET_MEDIA_TYPE,
};

/** The media type of a format. */
export function mediaTypeOf(format: Format): string {
  return MEDIA_TYPES[format];
}

/** How an export's body is labelled: its media type and its file name's extension. */
export interface ExportFile {
  readonly mediaType: string;
  readonly extension: string;
}

/** The media type and extension of an export of this shape. */
export function exportFile(shape: ExportShape): ExportFile {
  switch (shape.kind) {
    case 'file':
      return { mediaType: PARQUET_MEDIA_TYPE, extension: 'parquet' };
    case 'zip':
      return { mediaType: 'application/zip', extension: 'zip' };
    default:
      return unreachable(shape, 'export shape');
  }
}

/**
 * The media types a resource's export answers to, in the order they are offered after JSON:
 * Parquet's, and the export file's own when it is not one Parquet file (the invoices' zip). Read by
 * the negotiation and by the gateway's export rule (infra/scripts/render-export-rule.ts).
 */
export function exportMediaTypes(resource: ResourceDefinition): string[] {
  const { mediaType } = exportFile(resource.export);
  return mediaType === PARQUET_MEDIA_TYPE ? [PARQUET_MEDIA_TYPE] : [PARQUET_MEDIA_TYPE, mediaType];
}

/** What a request id may look like to be kept: 1–128 of `[A-Za-z0-9._:-]`. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** The header in which the gateway passes on (and echoes) the caller's own request id. */
export const CLIENT_REQUEST_ID_HEADER = 'X-Client-Request-ID';

/** The page a JSON request gets without `page`, and its size without `pageSize` (the spec's defaults). */
export const PAGE_DEFAULTS = { page: 1, pageSize: 25 } as const;
