import type { FieldSpec } from '../model/fields.js';
import type { StoredRecord, View } from '../model/view.js';

/**
 * Exactly the view's fields, in the view's order, of a stored record; a missing value becomes
 * null. This is the guard that keeps serialization to allowlisted fields whatever the store
 * returned. A record that already is exactly that (what the store's SELECT yields) is passed
 * through as it is: copying it cost more than serializing it (measured on 1000-row pages).
 */
export function projectRecord(record: StoredRecord, view: View): Readonly<Record<string, unknown>> {
  const linesMember = view.resource.lines?.member;
  if (hasExactly(record, view.fields, linesMember) && (linesMember === undefined || linesHaveExactly(record[linesMember], view.lineFields))) return record;
  const out = copyFields(record, view.fields);
  if (linesMember !== undefined) {
    const lines = Array.isArray(record[linesMember]) ? (record[linesMember] as StoredRecord[]) : [];
    out[linesMember] = lines.map((line) => copyFields(line, view.lineFields));
  }
  return out;
}

function copyFields(source: StoredRecord, fields: readonly FieldSpec[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) out[field.name] = source[field.name] ?? null;
  return out;
}

/** Own keys are the fields in order (then the lines member, when given), each holding a defined value. */
function hasExactly(record: StoredRecord, fields: readonly FieldSpec[], linesMember: string | undefined): boolean {
  let index = 0;
  for (const key in record) {
    if (index < fields.length) {
      if (key !== fields[index]!.name || record[key] === undefined) return false;
    } else if (!(index === fields.length && key === linesMember)) {
      return false;
    }
    index++;
  }
  return index === fields.length + (linesMember === undefined ? 0 : 1) && Object.getPrototypeOf(record) === Object.prototype;
}

function linesHaveExactly(lines: unknown, fields: readonly FieldSpec[]): boolean {
  if (!Array.isArray(lines)) return false;
  for (const line of lines) if (typeof line !== 'object' || line === null || !hasExactly(line as StoredRecord, fields, undefined)) return false;
  return true;
}
