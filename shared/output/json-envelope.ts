import type { StoredRecord } from '../model/view.js';
import type { Pagination } from './pagination.js';

/** The JSON response envelope of both summary operations (see the spec). */
export interface JsonEnvelope {
  data: Readonly<Record<string, unknown>>[];
  pagination: { page: number; pageSize: number; totalRecords: number; totalPages: number; hasNext: boolean; nextLink?: string };
  meta: { requestId: string; generatedAt: string; warning?: string };
}

/**
 * Builds the envelope for one page of records, already projected through the caller's view
 * (`RecordCleaner.project`), at its place in the result (pagination.ts); `meta.warning` (what the
 * caller adds: malformed stored data) follows the page's own, each a sentence of its own.
 */
export function buildJsonEnvelope(records: StoredRecord[], pagination: Pagination, meta: { requestId: string; generatedAt: Date; warning?: string }): JsonEnvelope {
  const { page, pageSize, totalRecords, totalPages, hasNext } = pagination;
  const envelope: JsonEnvelope = {
    data: records,
    pagination: { page, pageSize, totalRecords, totalPages, hasNext },
    meta: { requestId: meta.requestId, generatedAt: meta.generatedAt.toISOString() },
  };
  const warnings = [pagination.warning, meta.warning].filter((warning) => warning !== undefined);
  if (warnings.length > 0) envelope.meta.warning = warnings.join(' ');
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
