import type { View } from '../access/allowlist.js';
import type { StoredRecord } from '../store/record-store.js';
import { projectRecord } from './project-record.js';

/** The JSON response envelope of both summary operations (see the spec). */
export interface JsonEnvelope {
  data: Readonly<Record<string, unknown>>[];
  pagination: { page: number; pageSize: number; totalRecords: number; totalPages: number; hasNext: boolean };
  meta: { requestId: string; generatedAt: string; warning?: string };
}

/** What one page is. */
export interface PageInfo {
  readonly page: number;
  readonly pageSize: number;
  readonly totalRecords: number;
}

/** Builds the envelope for one page of records, projected through the caller's view. */
export function buildJsonEnvelope(
  records: readonly StoredRecord[],
  view: View,
  { page, pageSize, totalRecords }: PageInfo,
  meta: { requestId: string; generatedAt: Date },
): JsonEnvelope {
  const totalPages = Math.ceil(totalRecords / pageSize);
  const envelope: JsonEnvelope = {
    data: records.map((record) => projectRecord(record, view)),
    pagination: { page, pageSize, totalRecords, totalPages, hasNext: page < totalPages },
    meta: { requestId: meta.requestId, generatedAt: meta.generatedAt.toISOString() },
  };
  if (page > 1 && page > totalPages) {
    envelope.meta.warning = `Page ${page} is past the last page (${totalPages}); there are no records on it.`;
  }
  return envelope;
}
