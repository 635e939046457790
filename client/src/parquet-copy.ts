/**
 * A delta merged into a Parquet folder's windows (delta-pass.ts). The delta comes as the service's
 * Parquet answer (invoices: both tables of its zip), read with its values raw (parquet-table.ts);
 * a window's tables are read the same way, the records the delta names taken out, the changed
 * ones put in (in their rows' places, else after; an invoice's lines with it), and each table
 * whose rows changed written hidden, in the file's own schema and footer.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parquetReadObjects, type SchemaElement } from 'hyparquet';
import { checkParquet, UnsafeParquet } from './decoded-size.js';
import { DeltaRestart, type DeltaFiles } from './delta-walk.js';
import { WindowFailure } from './fetch-window.js';
import { partialFile } from './layout.js';
import { readListedFile, sha256, type ManifestWindow } from './manifest.js';
import { readRawTable, sameColumns, textOf, writeRawTable, type RawTable, type RawValue } from './parquet-table.js';
import { printable } from './printable.js';
import { formatDay } from './windows.js';
import type { MergedWindow } from './delta-pass.js';

/** The column of a delta's record table that says a row is a removal (docs/api.md, "Deltas"). */
const REMOVED_COLUMN = '_removed';

/** One table of a delta: its file as read, and its rows by record id (a record's row; an invoice's lines). */
interface DeltaTable {
  readonly name: string;
  readonly table: RawTable;
  readonly rows: ReadonlyMap<string, readonly RawValue[][]>;
}

/** A Parquet delta as the merge takes it: its tables, the removals, and each changed record's day by the pull's date. */
export interface ParquetDelta {
  readonly tables: readonly DeltaTable[];
  readonly removed: ReadonlyMap<string, string>;
  /** Changed records by id: the day of their `--by` date. */
  readonly changed: ReadonlyMap<string, string>;
}

/** Reads a delta's files (each checked as a pulled file is first) into its rows by record id. */
export async function readParquetDelta(files: DeltaFiles, idField: string, dateField: string): Promise<ParquetDelta> {
  const tables: DeltaTable[] = [];
  const removed = new Map<string, string>();
  const changed = new Map<string, string>();
  for (const [index, { table: name, bytes }] of files.tables.entries()) {
    try {
      checkParquet(bytes);
    } catch (error) {
      if (!(error instanceof UnsafeParquet)) throw error;
      throw new WindowFailure(`the delta's ${name}: the service sent a file that no reader of the folder should open: ${printable(error.message)}`, files.requestId);
    }
    const table = await readRawTable(bytes);
    const id = columnIndex(table, idField, name, files.requestId);
    const rows = new Map<string, RawValue[][]>();
    const removal = index === 0 ? table.columns.findIndex((column) => column.name === REMOVED_COLUMN) : -1;
    const date = index === 0 ? columnIndex(table, dateField, name, files.requestId) : -1;
    for (const row of table.rows) {
      const key = textOf(row[id]!);
      if (key === undefined) throw new WindowFailure(`a row of the delta's ${name} has no ${idField}`, files.requestId);
      if (removal >= 0 && row[removal] !== null) {
        removed.set(key, textOf(row[removal]!) ?? String(row[removal]));
        continue;
      }
      if (index === 0) {
        const day = dayOf(row[date]!, table.columns[date]!);
        if (day === undefined) throw new WindowFailure(`the delta's ${printable(key)} has no ${dateField} a window can be found by`, files.requestId);
        changed.set(key, day);
      }
      rows.set(key, [...(rows.get(key) ?? []), row]);
    }
    tables.push({ name, table, rows });
  }
  return { tables, removed, changed };
}

/**
 * The record ids of a window's first table (its files must be the ones the manifest lists, one per
 * table), or undefined when the window is no copy to merge into.
 */
export async function readWindowIds(dir: string, entry: ManifestWindow, tables: readonly string[], idField: string): Promise<Set<string> | undefined> {
  if (entry.files.length !== tables.length) return undefined;
  let first: Uint8Array | undefined;
  for (const [index, file] of entry.files.entries()) {
    const bytes = readListedFile(dir, file);
    if (!bytes) return undefined;
    if (index === 0) first = bytes;
  }
  const buffer = first!.buffer.slice(first!.byteOffset, first!.byteOffset + first!.byteLength) as ArrayBuffer;
  const rows = await parquetReadObjects({ file: buffer, columns: [idField], parsers: { stringFromBytes: (bytes: Uint8Array | undefined) => bytes && textOf(bytes) } });
  const ids = new Set<string>();
  for (const row of rows) {
    const id = row[idField];
    if (typeof id !== 'string' || ids.has(id)) return undefined;
    ids.add(id);
  }
  return ids;
}

/**
 * A window after the delta: each table's rows of `entry` it keeps (`keep`), the changed records
 * whose home it is (`mine`) in their rows' places or after them, and each table whose rows
 * changed written hidden under the name it had, in its file's schema and footer (the delta's
 * request id and time in place of the export's). `into`: every table written under the names of
 * other days than `entry`'s (a range made wider grew the window, or added it: then `entry` is
 * another month's, its files only the folder's schema and footer), its footers naming those days.
 */
export async function mergeTables(dir: string, entry: ManifestWindow, delta: ParquetDelta, mine: readonly string[], keep: (id: string) => boolean, idField: string, requestId: string, into?: WindowInto): Promise<MergedWindow> {
  const files: MergedWindow['files'][number][] = [];
  const homed = new Set(mine);
  let rows = 0;
  let removed = 0;
  for (const [index, file] of entry.files.entries()) {
    const held = await readRawTable(readFileSync(join(dir, file.file)));
    const source = delta.tables[index];
    const pick = source && mine.length > 0 ? deltaColumns(held, source) : (row: readonly RawValue[]) => [...row];
    const id = columnIndex(held, idField, file.file, requestId);
    const out: RawValue[][] = [];
    const placed = new Set<string>();
    for (const row of into?.fresh ? [] : held.rows) {
      const key = textOf(row[id]!) ?? String(row[id]);
      if (homed.has(key)) {
        // A changed record takes its first row's place (a record's one row; an invoice's lines, together).
        if (!placed.has(key)) out.push(...(source?.rows.get(key) ?? []).map(pick));
        placed.add(key);
      } else if (keep(key)) {
        out.push(row);
      } else if (index === 0) {
        removed++;
      }
    }
    for (const key of mine) if (!placed.has(key)) out.push(...(source?.rows.get(key) ?? []).map(pick));
    if (index === 0) rows = out.length;
    const same = into?.fresh ? undefined : sameColumns(held.rows, out, held.columns.length);
    if (!into && same?.every(Boolean)) {
      files.push({ file, staged: false });
      continue;
    }
    const name = into?.names[index] ?? file.file;
    const keyValues = held.keyValues.map((pair) => (pair.key === 'summary.requestId' ? { key: pair.key, value: requestId }
      : pair.key === 'summary.generatedAt' ? { key: pair.key, value: deltaGeneratedAt(delta) ?? pair.value }
        : pair.key === 'summary.filters' && into ? { key: pair.key, value: into.filters(pair.value ?? '') } : pair));
    // A column whose values are all as they were is copied from the file (a month's records updated in place change a few columns).
    const bytes = writeRawTable({ ...held, keyValues }, out, same);
    const path = join(dir, partialFile(name));
    try {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, bytes);
    } catch (error) {
      rmSync(path, { force: true });
      for (const written of files) if (written.staged) rmSync(join(dir, partialFile(written.file.file)), { force: true });
      throw new WindowFailure(`cannot write ${path}: ${(error as Error).message}`);
    }
    files.push({ file: { file: name, rows: out.length, bytes: bytes.byteLength, sha256: sha256(bytes) }, staged: true });
  }
  return { same: files.every((file) => !file.staged), files, rows, changed: mine.length, removed };
}

/** A window whose files are named for other days than the held entry's (mergeTables): a range made wider grew it, or added it. */
export interface WindowInto {
  /** Each table's file, in the held entry's order. */
  readonly names: readonly string[];
  /** The held entry is only a template: none of its rows are the window's. */
  readonly fresh: boolean;
  /** The footer's `summary.filters` (the members a window is asked with) for the window. */
  readonly filters: (held: string) => string;
}

/** The time the delta was answered (its footer's), for the footers of the files it changed. */
function deltaGeneratedAt(delta: ParquetDelta): string | undefined {
  return delta.tables[0]?.table.keyValues.find((pair) => pair.key === 'summary.generatedAt')?.value;
}

/**
 * A delta's row in the order of a held file's columns. Every column of the file must be in the
 * delta with the same physical and logical type (the delta's are nullable): else the folder is
 * of other columns than the delta, which starts again.
 */
function deltaColumns(held: RawTable, delta: DeltaTable): (row: readonly RawValue[]) => RawValue[] {
  const at = held.columns.map((column) => {
    const index = delta.table.columns.findIndex((candidate) => candidate.name === column.name);
    const other = delta.table.columns[index];
    if (!other || !sameType(column, other)) throw new DeltaRestart('SCHEMA_CHANGED', `the delta's ${delta.name} has no column ${column.name} of the folder's type`);
    return index;
  });
  return (row) => at.map((index) => row[index] ?? null);
}

function sameType(a: SchemaElement, b: SchemaElement): boolean {
  return a.type === b.type && a.type_length === b.type_length && a.converted_type === b.converted_type && a.scale === b.scale && a.precision === b.precision
    && JSON.stringify(a.logical_type ?? null) === JSON.stringify(b.logical_type ?? null);
}

function columnIndex(table: RawTable, name: string, file: string, requestId: string): number {
  const index = table.columns.findIndex((column) => column.name === name);
  if (index < 0) throw new WindowFailure(`${file} has no column ${name}`, requestId);
  return index;
}

const DAY_MS = 86_400_000;

/** The day (`YYYY-MM-DD`, UTC) of a raw date, instant or text value, as the service's day ranges compare it. */
function dayOf(value: RawValue, element: SchemaElement): string | undefined {
  if (value instanceof Uint8Array) return textOf(value)?.slice(0, 10);
  if (typeof value !== 'number' && typeof value !== 'bigint') return undefined;
  const logical = element.logical_type;
  if (element.converted_type === 'DATE' || logical?.type === 'DATE') return formatDay(Number(value) * DAY_MS);
  const unit = logical?.type === 'TIMESTAMP' ? logical.unit : element.converted_type === 'TIMESTAMP_MILLIS' ? 'MILLIS' : element.converted_type === 'TIMESTAMP_MICROS' ? 'MICROS' : undefined;
  const big = BigInt(value);
  if (unit === 'MILLIS') return formatDay(Number(big));
  if (unit === 'MICROS') return formatDay(Number(big / 1000n));
  if (unit === 'NANOS') return formatDay(Number(big / 1_000_000n));
  return undefined;
}
