/**
 * What decoding a Parquet file costs, by its footer alone, and how much a file may cost: the pull
 * client refuses to write into a folder a file that every reader of the folder would decode to far
 * more than it weighs. The Python loader applies the same rule (_load.py), and checks the
 * dictionaries' expansion too, before it decodes.
 */
import type { FileMetaData } from 'hyparquet';

/** Bytes one value of a fixed-width Parquet type decodes to (a boolean: one byte in the count). */
const WIDTHS: Readonly<Record<string, number>> = { BOOLEAN: 1, INT32: 4, INT64: 8, INT96: 12, FLOAT: 4, DOUBLE: 8 };
/** Decoded bytes of a variable-width value besides its own: an offset and validity. */
const OFFSET_BYTES = 8;
/**
 * However small its file, a Parquet file may decode to this much; past it, to at most
 * MAX_DECODED_RATIO times its size (the Python loader's rule, _load.py). The service's files
 * decode to a few times their size.
 */
export const MIN_DECODED_LIMIT = 64 * 1024 * 1024;
export const MAX_DECODED_RATIO = 256;

export function decodedLimit(fileBytes: number): number {
  return Math.max(MIN_DECODED_LIMIT, MAX_DECODED_RATIO * fileBytes);
}

/**
 * What a file's footer says decoding it costs: per column chunk, its pages' uncompressed size or
 * its values times their width, whichever is more. A file written into the folder is decoded by
 * every reader that opens it, so one that claims far more than it weighs is refused. (The
 * dictionaries' expansion is not in the footer: the Python loader checks that before decoding.)
 */
export function decodedSize(metadata: FileMetaData): number {
  let size = 0;
  for (const group of metadata.row_groups) {
    for (const chunk of group.columns) {
      const column = chunk.meta_data;
      if (!column) continue;
      const leaf = metadata.schema.find((element) => element.name === column.path_in_schema.at(-1));
      const width = WIDTHS[column.type] ?? leaf?.type_length ?? OFFSET_BYTES;
      size += Math.max(Number(column.total_uncompressed_size), Number(column.num_values) * width);
    }
  }
  return size;
}
