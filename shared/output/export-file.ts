/**
 * What an export is, without the Parquet writer: its media type and file name, and the error of an
 * export past its size limit. Kept apart from the encoder so that the request path loads the
 * writer (hyparquet-writer, snappy) only when an export is asked for.
 */
import type { ExportShape } from '../model/resource-definition.js';
import { unreachable } from '../util/unreachable.js';

/** The Parquet media type (RFC pending; as registered with IANA by the Parquet project). */
export const PARQUET_MEDIA_TYPE = 'application/vnd.apache.parquet';

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

/** The output would exceed its byte limit. */
export class OutputLimitExceeded extends Error {
  override readonly name = 'OutputLimitExceeded';
}
