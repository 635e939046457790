/**
 * What reaches a caller of a stored record, checked value by value against its fields (parquet/value-reading.ts),
 * the same for JSON and Parquet: a bad value of a nullable field becomes null; a record whose
 * required field is bad is left out, and so is a line (of a record's lines) that is not an object
 * or whose required field is bad. The answer says how many (`meta.warning`, a Parquet footer
 * entry), and the log names record and field, never the value.
 *
 * One plain function does it for both renderers, from the view's fields as data: a record comes
 * out as exactly the view's fields in the view's order (a missing value null), then its lines the
 * same way — as values by position for Parquet (cleanRow), as an object for JSON (cleanRecord).
 * That is also the guard that keeps every answer to allowlisted fields, whatever the store returned.
 */
import type { FieldSpec } from '../model/fields.js';
import type { StoredRecord, View } from '../model/view.js';
import { MALFORMED, readingOf, readValue, type Physical, type ValueReading } from './parquet/value-reading.js';

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

/** One field as cleaning reads it: its name, whether it may be null, and how its values are read. */
interface FieldRule {
  readonly name: string;
  readonly nullable: boolean;
  readonly reading: ValueReading;
}

/** What cleaning does for one view, made once where the view is prepared (summary-endpoint.ts). */
export interface CleaningPlan {
  readonly view: View;
  readonly recordRules: readonly FieldRule[];
  readonly lineRules: readonly FieldRule[];
  /** The member holding a record's lines, if the resource has lines. */
  readonly linesMember: string | undefined;
}

/** The cleaning plan of a view. */
export function planCleaning(view: View): CleaningPlan {
  const rules = (fields: readonly FieldSpec[]) => Object.freeze(fields.map((field) => Object.freeze({ name: field.name, nullable: field.nullable, reading: readingOf(field) })));
  return Object.freeze({ view, recordRules: rules(view.fields), lineRules: rules(view.lineFields), linesMember: view.resource.lines?.member });
}

/** A report with nothing counted yet: one per answer. */
export function newCleaningReport(): CleaningReport {
  return { nulled: 0, recordsLeftOut: 0, linesLeftOut: 0, problems: [] };
}

/** A record cleaned as rows: its physical values in the plan's field order, and each line's in the line fields' order. */
export interface CleanedRow {
  readonly values: (Physical | null)[];
  readonly lines: readonly (Physical | null)[][];
}

/** As CleanedRow, of physical or of stored values. */
interface Cleaned {
  readonly values: unknown[];
  readonly lines: readonly unknown[][];
}

/**
 * The record as the Parquet export writes it, by position: the plan's fields' physical values in
 * order (parquet/value-reading.ts: days, milliseconds, unscaled decimals; a bad nullable value null), then
 * its lines the same way; undefined to leave it out. Counts and notes what it changed in `report`
 * (a record's lines before its fields). What ParquetTableWriter.addRow takes, with no object made
 * per record or line and every value read once.
 */
export function cleanRow(plan: CleaningPlan, record: StoredRecord, report: CleaningReport): CleanedRow | undefined {
  // Read physical, every value is one (or null).
  return cleaned(plan, record, report, true) as CleanedRow | undefined;
}

/**
 * The record as it may be answered: a new object of exactly the plan's fields in order (a bad
 * nullable value null), then its lines the same way; undefined to leave it out. Counts and notes
 * what it changed in `report` as cleanRow does.
 *
 * @example
 * const plan = planCleaning(view); // once per view
 * const report = newCleaningReport(); // once per answer
 * const answered = stored.map((record) => cleanRecord(plan, record, report)).filter((record) => record !== undefined);
 * cleaningWarning(report); // what was nulled or left out, for meta.warning; undefined when nothing
 */
export function cleanRecord(plan: CleaningPlan, record: StoredRecord, report: CleaningReport): StoredRecord | undefined {
  const row = cleaned(plan, record, report, false);
  if (row === undefined) return undefined;
  const answered = objectOf(plan.recordRules, row.values);
  if (plan.linesMember !== undefined) answered[plan.linesMember] = row.lines.map((line) => objectOf(plan.lineRules, line));
  return answered;
}

/** The record's values and lines by position, physical or as stored; undefined to leave it out (cleanRow). */
function cleaned(plan: CleaningPlan, record: StoredRecord, report: CleaningReport, physical: boolean): Cleaned | undefined {
  const nulled = RECORD_NULLED;
  // Emptied only when it holds something: setting an array's length is a call of its own.
  if (nulled.length > 0) nulled.length = 0;
  const values = cleanValues(plan.recordRules, record, nulled, physical);
  if (values === undefined) {
    report.recordsLeftOut++;
    note(plan, record, report, firstBad(plan.recordRules, record));
    return undefined;
  }
  const lines = plan.linesMember === undefined ? NO_LINES : cleanLines(plan, record, report, physical);
  for (const field of nulled) {
    report.nulled++;
    note(plan, record, report, field);
  }
  return { values, lines };
}

/**
 * Where the names of the fields nulled in one record, and in one line, are gathered: cleaning is
 * synchronous, so one array each serves every call (an export cleans millions of records, and
 * almost none has one).
 */
const RECORD_NULLED: string[] = [];
const LINE_NULLED: string[] = [];

/** The lines of a resource without lines. */
const NO_LINES: readonly unknown[][] = Object.freeze([]);

/** Notes a problem of `record` for the log, while fewer than PROBLEMS_KEPT are. */
function note(plan: CleaningPlan, record: StoredRecord, report: CleaningReport, field: string): void {
  if (report.problems.length < PROBLEMS_KEPT) report.problems.push({ record: idOf(record, plan.view.resource.idField), field });
}

/** A record's lines, each cleaned as a record is (a line that is not an object, or whose required field is bad, left out). */
function cleanLines(plan: CleaningPlan, record: StoredRecord, report: CleaningReport, physical: boolean): unknown[][] {
  const member = plan.linesMember!;
  const raw = record[member];
  if (!Array.isArray(raw)) {
    if (raw !== undefined && raw !== null) {
      report.nulled++;
      note(plan, record, report, member);
    }
    return [];
  }
  const lines: unknown[][] = [];
  const nulled = LINE_NULLED;
  for (let i = 0; i < raw.length; i++) {
    const line = raw[i] as unknown;
    if (nulled.length > 0) nulled.length = 0;
    const values = isObject(line) ? cleanValues(plan.lineRules, line, nulled, physical) : undefined;
    if (values === undefined) {
      report.linesLeftOut++;
      note(plan, record, report, `${member}[${i}]${isObject(line) ? `.${firstBad(plan.lineRules, line)}` : ''}`);
      continue;
    }
    for (const field of nulled) {
      report.nulled++;
      note(plan, record, report, `${member}[${i}].${field}`);
    }
    lines.push(values);
  }
  return lines;
}

/**
 * `rules`' values of `source` in order, each read (a bad nullable value null, its name told to
 * `nulled`): the physical value, or the stored one; undefined when a required one is bad or missing.
 */
function cleanValues(rules: readonly FieldRule[], source: StoredRecord, nulled: string[], physical: boolean): unknown[] | undefined {
  const values: unknown[] = new Array(rules.length);
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    const value = source[rule.name];
    if (value === null || value === undefined) {
      if (!rule.nullable) return undefined;
      values[i] = null;
      continue;
    }
    const read = readValue(rule.reading, value);
    if (read === MALFORMED) {
      if (!rule.nullable) return undefined;
      values[i] = null;
      nulled.push(rule.name);
    } else {
      values[i] = physical ? read : value;
    }
  }
  return values;
}

/** The object of `rules`' names and `values`, in order. */
function objectOf(rules: readonly FieldRule[], values: readonly unknown[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < rules.length; i++) object[rules[i]!.name] = values[i];
  return object;
}

/** The first required field of `source` that is missing or bad, as the log names it. */
function firstBad(rules: readonly FieldRule[], source: StoredRecord): string {
  const bad = rules.find((rule) => {
    const value = source[rule.name];
    return !rule.nullable && (value === null || value === undefined || readValue(rule.reading, value) === MALFORMED);
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
