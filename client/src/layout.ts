/**
 * Where a pull's files go in its --out folder, so that every reader opens it as a dataset: one
 * table per folder, and nothing else visible in it. The manifest and files still being written
 * start with `_` or `.`, which Spark, Hive, pyarrow, pandas, polars and DuckDB globs skip.
 *
 *   contracts (parquet)  --out/contracts-2025-03.parquet
 *   invoices (parquet)   --out/invoices/invoices-2025-03.parquet, --out/invoice_tables/invoice_tables-2025-03.parquet
 *   any (jsonl)          --out/<dataset>-2025-03.jsonl
 *   being written        the same folder, `.<name>.partial`
 */
import { DATASETS, type DatasetName, type Format } from './datasets.js';

export const MANIFEST_FILE = '_manifest.json';
/** Where summary-client 0.1 kept its manifest: taken over once (manifest.ts). */
export const LEGACY_MANIFEST_FILE = 'manifest.json';

/** `YYYY-MM` for a whole month, `YYYY-MM-DD_YYYY-MM-DD` for a part of one (windows.ts, windowLabel). */
const LABEL = String.raw`\d{4}-\d{2}(?:-\d{2}_\d{4}-\d{2}-\d{2})?`;

/**
 * The tables a window's files hold: the Parquet entries of the dataset's zip (without `.parquet`),
 * else the dataset itself (JSON Lines carry an invoice's lines inside it).
 */
export function tablesOf(dataset: DatasetName, format: Format): string[] {
  const entries = DATASETS[dataset].zipEntries;
  return entries === null || format === 'jsonl' ? [dataset] : entries.map((entry) => entry.replace(/\.parquet$/, ''));
}

/** The folder (relative to --out, '' for its top) a table's files go to. */
function folderOf(dataset: DatasetName, table: string, format: Format): string {
  return tablesOf(dataset, format).length > 1 ? `${table}/` : '';
}

/** A window's file of one table, relative to --out. */
export function dataFile(dataset: DatasetName, table: string, label: string, format: Format): string {
  return `${folderOf(dataset, table, format)}${table}-${label}.${format}`;
}

/** The name a file has while it is written: hidden beside where it goes. */
export function partialFile(file: string): string {
  const slash = file.lastIndexOf('/') + 1;
  return `${file.slice(0, slash)}.${file.slice(slash)}.partial`;
}

/** The folders (relative to --out) a dataset's files of a format live in. */
export function foldersOf(dataset: DatasetName, format: Format): string[] {
  return [...new Set(tablesOf(dataset, format).map((table) => folderOf(dataset, table, format)))];
}

/** Exactly the data files a pull of `dataset` as `format` names: what a manifest may list. */
export function dataFilePattern(dataset: DatasetName, format: Format): RegExp {
  const files = tablesOf(dataset, format).map((table) => `${escape(folderOf(dataset, table, format))}${escape(table)}-${LABEL}\\.${format}`);
  return new RegExp(`^(?:${files.join('|')})$`);
}

/**
 * Names in one folder that are this pull's own but may be left unlisted by a stopped run: its
 * data files, their hidden `.partial` copies, and the `.partial` files summary-client 0.1 wrote
 * visibly. `folder` is relative to --out ('' or `invoices/`).
 */
export function strayPattern(dataset: DatasetName, format: Format, folder: string): RegExp {
  const tables = tablesOf(dataset, format).filter((table) => folderOf(dataset, table, format) === folder).map(escape);
  if (tables.length === 0) return /(?!)/;
  const name = `(?:${tables.join('|')})-${LABEL}\\.${format}`;
  return new RegExp(`^(?:\\.${name}\\.partial|${name}(?:\\.partial)?)$`);
}

/** The file names summary-client 0.1 used (every table at the top of --out). */
export function legacyFilePattern(dataset: DatasetName, format: Format): RegExp {
  return new RegExp(`^(?:${tablesOf(dataset, format).map(escape).join('|')})-${LABEL}\\.${format}$`);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
