import type { StoredRecord } from '../model/view.js';

/** The JSON response envelope of both summary operations (see the spec). */
export interface JsonEnvelope {
  data: Readonly<Record<string, unknown>>[];
  pagination: { page: number; pageSize: number; totalRecords: number; totalPages: number; hasNext: boolean; nextLink?: string };
  meta: { requestId: string; generatedAt: string; warning?: string };
}

/** What one page is. */
export interface PageInfo {
  readonly page: number;
  readonly pageSize: number;
  readonly totalRecords: number;
  /** The deepest record a jump to a page may reach (MAX_RESULT_WINDOW). */
  readonly resultWindow: number;
  /** A cursor for the next page is stored, so it is reachable whatever the window. */
  readonly nextReachable?: boolean;
}

/** Builds the envelope for one page of records, already projected through the caller's view (`RecordCleaner.project`). */
export function buildJsonEnvelope(
  records: StoredRecord[],
  { page, pageSize, totalRecords, resultWindow, nextReachable = false }: PageInfo,
  meta: { requestId: string; generatedAt: Date; warning?: string },
): JsonEnvelope {
  const totalPages = Math.ceil(totalRecords / pageSize);
  // The next page must be reachable, not merely exist: a client following hasNext never hits
  // RESULT_WINDOW_EXCEEDED (past the window only a stored cursor reaches it). A jump to the next
  // page reads up to its last record, min((page + 1) × pageSize, totalRecords).
  const windowEnds = page < totalPages && Math.min((page + 1) * pageSize, totalRecords) > resultWindow && !nextReachable;
  const envelope: JsonEnvelope = {
    data: records,
    pagination: { page, pageSize, totalRecords, totalPages, hasNext: page < totalPages && !windowEnds },
    meta: { requestId: meta.requestId, generatedAt: meta.generatedAt.toISOString() },
  };
  let warning: string | undefined;
  if (page > 1 && page > totalPages) {
    warning = `Page ${page} is past the last page (${totalPages}); there are no records on it.`;
  } else if (windowEnds) {
    warning = `Pages reach the first ${resultWindow} of ${totalRecords} records only; narrow the filters (for example a shorter date range) or export the whole result as Parquet.`;
  }
  // Joined with what the caller adds (malformed stored data), each a sentence of its own.
  if (warning !== undefined || meta.warning !== undefined) envelope.meta.warning = warning === undefined ? meta.warning : meta.warning === undefined ? warning : `${warning} ${meta.warning}`;
  return envelope;
}

/**
 * The envelope as UTF-8 JSON: the same bytes as `JSON.stringify(envelope)` (a test holds them
 * equal), `data` first as the envelope is built. Its records are written one by one, never joined
 * into one text: a page as one string turns two-byte as soon as one record holds a character past
 * U+00FF, and stringifying and encoding it then cost a third more (measured on the page of 1000
 * of `npm run bench`), where most records stay one-byte strings. The answer holds its room until
 * it is sent: three times its size at most.
 */
export function jsonEnvelopeBytes(envelope: JsonEnvelope): Buffer {
  const { data, ...rest } = envelope;
  const head = '{"data":[';
  const tail = `],${JSON.stringify(rest).slice(1)}`;
  const records = data.map((record) => JSON.stringify(record));
  // Room for the worst case, three bytes a UTF-16 unit, and a comma between records.
  let units = head.length + tail.length + records.length;
  for (const record of records) units += record.length;
  const bytes = Buffer.allocUnsafe(units * 3);
  let at = bytes.write(head, 0);
  for (let i = 0; i < records.length; i++) {
    if (i > 0) bytes[at++] = COMMA;
    at += bytes.write(records[i]!, at);
  }
  at += bytes.write(tail, at);
  return bytes.subarray(0, at);
}

const COMMA = 0x2c;
