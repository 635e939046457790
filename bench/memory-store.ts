import type { StoredRecord } from '../shared/model/view.js';
import type { PageCursor, PageCursors } from '../shared/cursors/page-cursors.js';
import { STREAM_PAGE_SIZE, type RecordStore } from '../shared/store/record-store.js';

/**
 * A `RecordStore` over pre-built records, shaped as the Cosmos store returns them (visible fields
 * only): it ignores scope and filters, so it measures or tests what happens after the store. Used
 * by the JSON-path benchmark. Its continuation is the position, as text.
 */
export function memoryStore(records: readonly StoredRecord[]): RecordStore {
  return {
    // No write times: the version only counts (the benchmark never writes).
    version: async () => ({ records: records.length, latestWrite: 0 }),
    page: async (_scope, _query, { skip, take, continuation }) => {
      const start = Number(continuation ?? 0) + skip;
      const end = Math.min(start + take, records.length);
      return { records: records.slice(start, end), ...(end < records.length ? { continuation: String(end) } : {}) };
    },
    stream: async function* () {
      for (let start = 0; start < records.length; start += STREAM_PAGE_SIZE) yield records.slice(start, start + STREAM_PAGE_SIZE);
    },
  };
}

/** Page cursors in a Map: the same contract as the Cosmos container, without the store. */
export function memoryCursors(): PageCursors & { readonly entries: Map<string, PageCursor> } {
  const entries = new Map<string, PageCursor>();
  return {
    entries,
    get: async (tenant, key) => entries.get(`${tenant}/${key}`),
    put: async (tenant, key, cursor) => {
      entries.set(`${tenant}/${key}`, cursor);
    },
  };
}
