import type { View } from '../access/allowlist.js';
import type { StoredRecord } from '../store/record-store.js';

/**
 * Copies exactly the view's fields, in the view's order, out of a stored record; a missing value
 * becomes null. This is the guard that keeps serialization to allowlisted fields whatever the
 * store returned.
 */
export function projectRecord(record: StoredRecord, view: View): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of view.fields) out[field.name] = record[field.name] ?? null;
  if (view.resource === 'invoices') {
    const lines = Array.isArray(record.lines) ? (record.lines as StoredRecord[]) : [];
    out.lines = lines.map((line) => {
      const projected: Record<string, unknown> = {};
      for (const field of view.lineFields) projected[field.name] = line[field.name] ?? null;
      return projected;
    });
  }
  return out;
}
