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

/** Whether a record's own keys are exactly the fields in order (then the lines member), each holding a defined value. */
type ExactCheck = (record: StoredRecord) => boolean;

const exactChecks = new WeakMap<readonly FieldSpec[], Map<string | undefined, ExactCheck>>();

/**
 * The check, compiled once per field list into straight code over `Object.keys` (whose array V8
 * keeps per object shape): 0.5 µs for a page of 25 contracts against 2.9 µs for a `for...in` over
 * each record, measured. Names are the model's plain identifiers (FIELD_NAME), quoted all the same.
 */
function hasExactly(record: StoredRecord, fields: readonly FieldSpec[], linesMember: string | undefined): boolean {
  let byMember = exactChecks.get(fields);
  if (byMember === undefined) exactChecks.set(fields, (byMember = new Map()));
  let check = byMember.get(linesMember);
  if (check === undefined) {
    const names = [...fields.map((field) => field.name), ...(linesMember === undefined ? [] : [linesMember])];
    const keys = names.map((name, i) => `k[${i}] === ${JSON.stringify(name)} && r[${JSON.stringify(name)}] !== undefined`);
    check = new Function('proto', `return function hasExactly(r) { const k = Object.keys(r); return k.length === ${names.length}${keys.map((key) => ` && ${key}`).join('')} && Object.getPrototypeOf(r) === proto; };`)(Object.prototype) as ExactCheck;
    byMember.set(linesMember, check);
  }
  return check(record);
}

function linesHaveExactly(lines: unknown, fields: readonly FieldSpec[]): boolean {
  if (!Array.isArray(lines)) return false;
  for (const line of lines) if (typeof line !== 'object' || line === null || !hasExactly(line as StoredRecord, fields, undefined)) return false;
  return true;
}
