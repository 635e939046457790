/**
 * What reaches a caller of a stored record, checked value by value against its fields (value-checks.ts),
 * the same for JSON and Parquet: a bad value of a nullable field becomes null; a record whose
 * required field is bad is left out, and so is a line (of a record's lines) that is not an object
 * or whose required field is bad. The answer says how many (`meta.warning`, a Parquet footer
 * entry), and the log names record and field, never the value.
 */
import type { FieldSpec } from '../model/fields.js';
import type { StoredRecord, View } from '../model/view.js';
import { checkOf, type ValueCheck } from './value-checks.js';

/** What cleaning changed in one answer. */
export interface CleaningReport {
  /** Values answered as null because they were not of their (nullable) field's type. */
  nulled: number;
  /** Records left out: a required field was missing or bad. */
  recordsLeftOut: number;
  /** Lines left out of their records (not an object, or a required field missing or bad). */
  linesLeftOut: number;
  /** The first few problems: record id and field, for the log. */
  readonly problems: { readonly record: string; readonly field: string }[];
}

/** Problems kept for the log; the counts go on. */
const PROBLEMS_KEPT = 10;

export interface RecordCleaner {
  /** The record as it may be answered (itself when nothing is wrong), or undefined to leave it out. */
  clean(record: StoredRecord): StoredRecord | undefined;
  /**
   * The record as a JSON page answers it: `clean` and the allowlist's projection in one pass, a
   * new object of exactly the view's fields in the view's order (a missing value null), then its
   * lines the same way; undefined to leave it out. This is the guard that keeps serialization to
   * allowlisted fields whatever the store returned. Counts and notes as `clean` does.
   */
  project(record: StoredRecord): StoredRecord | undefined;
  readonly report: CleaningReport;
}

/**
 * What cleaning does for one view, compiled once (made where the view is prepared: summary-endpoint.ts):
 * the checks and projections of its record fields and line fields.
 */
export interface CleaningPlan {
  readonly view: View;
  /** The value checks of the view's fields and line fields, in their order. */
  readonly recordChecks: readonly ValueCheck[];
  readonly lineChecks: readonly ValueCheck[];
  readonly recordFields: FieldsCheck;
  readonly lineFields: FieldsCheck;
  readonly recordProjector: Projector;
  readonly lineProjector: Projector;
}

/** The cleaning plan of a view. */
export function planCleaning(view: View): CleaningPlan {
  const recordChecks = Object.freeze(view.fields.map(checkOf));
  const lineChecks = Object.freeze(view.lineFields.map(checkOf));
  return Object.freeze({
    view,
    recordChecks,
    lineChecks,
    recordFields: compiledCheck(view.fields, recordChecks),
    lineFields: compiledCheck(view.lineFields, lineChecks),
    recordProjector: compiledProjector(view.fields, recordChecks),
    lineProjector: compiledProjector(view.lineFields, lineChecks),
  });
}

/** A cleaner for the records of one answer, seen through the plan's view. */
export function createRecordCleaner(plan: CleaningPlan): RecordCleaner {
  const { view, recordChecks, lineChecks, recordFields, lineFields, recordProjector, lineProjector } = plan;
  const { resource } = view;
  const linesMember = resource.lines?.member;
  const report: CleaningReport = { nulled: 0, recordsLeftOut: 0, linesLeftOut: 0, problems: [] };
  const note = (record: StoredRecord, field: string) => {
    if (report.problems.length < PROBLEMS_KEPT) report.problems.push({ record: idOf(record, resource.idField), field });
  };
  // What `clean` and `project` both say of lines: one place, so their counts and notes stay equal.
  const linesNotAnArray = (record: StoredRecord, raw: unknown) => {
    if (raw !== undefined && raw !== null) {
      report.nulled++;
      note(record, linesMember!);
    }
  };
  const lineLeftOut = (record: StoredRecord, i: number, line: unknown) => {
    report.linesLeftOut++;
    note(record, `${linesMember}[${i}]${isObject(line) ? `.${firstBad(line, view.lineFields, lineChecks)}` : ''}`);
  };
  /** Fields of the record (or line) being projected whose malformed nullable value became null (emptied after each). */
  const pending: string[] = [];
  const pend = (field: string) => void pending.push(field);
  const projectLines = (record: StoredRecord, raw: unknown): StoredRecord[] => {
    if (!Array.isArray(raw)) {
      linesNotAnArray(record, raw);
      return [];
    }
    const lines: StoredRecord[] = [];
    for (let i = 0; i < raw.length; i++) {
      const line = raw[i] as unknown;
      const projected = isObject(line) ? lineProjector(line, pend) : undefined;
      if (projected === undefined) {
        pending.length = 0;
        lineLeftOut(record, i, line);
        continue;
      }
      if (pending.length > 0) {
        for (const field of pending.splice(0)) {
          report.nulled++;
          note(record, `${linesMember}[${i}].${field}`);
        }
      }
      lines.push(projected);
    }
    return lines;
  };
  return {
    report,
    clean(record) {
      const fields = recordFields(record);
      if (fields === REQUIRED_BAD) {
        report.recordsLeftOut++;
        note(record, firstBad(record, view.fields, recordChecks));
        return undefined;
      }
      let lines: StoredRecord[] | undefined;
      if (linesMember !== undefined) {
        const raw = record[linesMember];
        if (!Array.isArray(raw)) {
          lines = [];
          linesNotAnArray(record, raw);
        } else {
          for (let i = 0; i < raw.length; i++) {
            const line = raw[i] as unknown;
            const state = isObject(line) ? lineFields(line) : REQUIRED_BAD;
            if (state === CLEAN && lines === undefined) continue;
            lines ??= (raw as StoredRecord[]).slice(0, i);
            if (state === REQUIRED_BAD) {
              lineLeftOut(record, i, line);
            } else {
              lines.push(state === CLEAN ? line as StoredRecord : nullBad(line as StoredRecord, view.lineFields, lineChecks, report, (field) => note(record, `${linesMember}[${i}].${field}`)));
            }
          }
        }
      }
      if (fields === CLEAN && lines === undefined) return record;
      const cleaned: Record<string, unknown> = fields === CLEAN ? { ...record } : nullBad(record, view.fields, recordChecks, report, (field) => note(record, field));
      if (linesMember !== undefined && lines !== undefined) cleaned[linesMember] = lines;
      return cleaned;
    },
    project(record) {
      const projected = recordProjector(record, pend);
      if (projected === undefined) {
        pending.length = 0;
        report.recordsLeftOut++;
        note(record, firstBad(record, view.fields, recordChecks));
        return undefined;
      }
      // Noted after the lines, as `clean` notes them.
      const nulledFields = pending.length > 0 ? pending.splice(0) : undefined;
      if (linesMember !== undefined) projected[linesMember] = projectLines(record, record[linesMember]);
      if (nulledFields !== undefined) {
        for (const field of nulledFields) {
          report.nulled++;
          note(record, field);
        }
      }
      return projected;
    },
  };
}

const CLEAN = 0;
const NULLABLE_BAD = 1;
const REQUIRED_BAD = 2;

type FieldsState = typeof CLEAN | typeof NULLABLE_BAD | typeof REQUIRED_BAD;

/** The worst of a record's fields: all good, a bad nullable value, or a bad (or missing) required one. */
type FieldsCheck = (record: StoredRecord) => FieldsState;

/**
 * The checks and projections are compiled into straight code, as fastify compiles its serializers:
 * each field read by its name and checked by its own value check. Kept because users' JSON pages
 * feel it: the page of 1000 of `npm run bench` reads 1.69× the bare baseline with a loop over
 * names and checks (megamorphic property reads and calls), 1.27× compiled (target ≤ 1.30×). A
 * view's plan is compiled once (summary-endpoint.ts). The names are the model's plain
 * identifiers (FIELD_NAME), quoted all the same.
 */
function compiledCheck(fields: readonly FieldSpec[], checks: readonly ValueCheck[]): FieldsCheck {
  const steps = fields.map((field, i) => `v = r[${JSON.stringify(field.name)}];
    if (v === null || v === undefined) { ${field.nullable ? '' : `return ${REQUIRED_BAD};`} }
    else if (!c${i}(v)) { ${field.nullable ? `s = ${NULLABLE_BAD};` : `return ${REQUIRED_BAD};`} }`);
  const make = new Function(...fields.map((_, i) => `c${i}`), `return function checkFields(r) { let s = ${CLEAN}, v;\n${steps.join('\n')}\nreturn s; };`) as (...checks: ValueCheck[]) => FieldsCheck;
  return make(...checks);
}

/** A list of fields' projection with its checks: a new record of exactly those fields, or undefined when a required one is bad. */
type Projector = (record: StoredRecord, nulled: (field: string) => void) => Record<string, unknown> | undefined;

/**
 * The projection of a list of fields, compiled as `compiledCheck` is: each field read once,
 * checked, and written into one object literal (so every record of a page has the same shape).
 * A bad nullable value becomes null and is told to `nulled`; a bad or missing required one leaves
 * the record out.
 */
function compiledProjector(fields: readonly FieldSpec[], checks: readonly ValueCheck[]): Projector {
  const steps = fields.map((field, i) => `let v${i} = r[${JSON.stringify(field.name)}];
    if (v${i} === null || v${i} === undefined) { ${field.nullable ? `v${i} = null;` : 'return undefined;'} }
    else if (!c${i}(v${i})) { ${field.nullable ? `v${i} = null; nulled(${JSON.stringify(field.name)});` : 'return undefined;'} }`);
  const literal = fields.map((field, i) => `${JSON.stringify(field.name)}: v${i}`).join(', ');
  const make = new Function(...fields.map((_, i) => `c${i}`), `return function project(r, nulled) {\n${steps.join('\n')}\nreturn { ${literal} }; };`) as (...checks: ValueCheck[]) => Projector;
  return make(...checks);
}

/** A copy of the record with its bad nullable values as null (each counted and noted). */
function nullBad(record: StoredRecord, fields: readonly FieldSpec[], checks: readonly ValueCheck[], report: CleaningReport, note: (field: string) => void): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...record };
  for (const [i, field] of fields.entries()) {
    const value = record[field.name];
    if (value !== null && value !== undefined && !checks[i]!(value)) {
      copy[field.name] = null;
      report.nulled++;
      note(field.name);
    }
  }
  return copy;
}

function firstBad(record: StoredRecord, fields: readonly FieldSpec[], checks: readonly ValueCheck[]): string {
  const bad = fields.find((field, i) => {
    const value = record[field.name];
    return !field.nullable && (value === null || value === undefined || !checks[i]!(value));
  });
  return bad?.name ?? '?';
}

function isObject(value: unknown): value is StoredRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The record's id as the log names it: its id field when that is text, else the document id. */
function idOf(record: StoredRecord, idField: string): string {
  const id = typeof record[idField] === 'string' ? record[idField] : record.id;
  return typeof id === 'string' ? id.slice(0, 64) : '(no id)';
}

/** The sentence an answer carries about cleaning, or undefined when nothing was cleaned. */
export function cleaningWarning(report: CleaningReport): string | undefined {
  if (report.recordsLeftOut === 0 && report.linesLeftOut === 0 && report.nulled === 0) return undefined;
  const parts = [
    report.recordsLeftOut > 0 ? `${report.recordsLeftOut} record${report.recordsLeftOut === 1 ? '' : 's'} left out (a required value was missing or malformed)` : '',
    report.linesLeftOut > 0 ? `${report.linesLeftOut} line${report.linesLeftOut === 1 ? '' : 's'} left out` : '',
    report.nulled > 0 ? `${report.nulled} malformed value${report.nulled === 1 ? '' : 's'} answered as null` : '',
  ].filter(Boolean);
  return `Stored data did not match its fields: ${parts.join('; ')}. The counts of pagination are the store's.`;
}
