/**
 * A pull: a date range of one dataset into a folder, one file per calendar-month window (Parquet
 * exports, invoices' two tables taken out of the zip, or JSON Lines from walking every page),
 * resumable through the folder's manifest.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { parquetMetadata } from 'hyparquet';
import { DATASETS, dateMembers, type DatasetName, type DateBy, type Format } from './datasets.js';
import { doneEntries, listedFiles, ManifestError, openManifest, recordWindow, saveManifest, sha256, type Manifest, type ManifestFile, type ManifestWindow } from './manifest.js';
import { DEFAULT_RETRY, networkCause, problemCode, withRetry, type RetryPolicy } from './retry.js';
import type { Filters, Problem, SummaryApi } from './summary-api.js';
import { halves, monthWindows, windowLabel, type Window } from './windows.js';

export interface PullOptions {
  readonly dataset: DatasetName;
  readonly from: string;
  readonly to: string;
  readonly by: DateBy;
  readonly format: Format;
  /** Further filters, as body members (`status`, `supplierId`, ...). */
  readonly filters: Readonly<Record<string, string>>;
  readonly out: string;
  /** Whom the files come from: the service's base URL and the client id (kept in the manifest). */
  readonly source: { readonly service: string; readonly client: string };
  readonly pageSize?: number;
  readonly retry?: RetryPolicy;
}

/** What a pull tells its observer (the CLI's progress line). */
export type PullEvent =
  | { readonly kind: 'window-start'; readonly window: Window; readonly index: number; readonly count: number }
  | { readonly kind: 'window-skipped'; readonly window: Window; readonly entries: readonly ManifestWindow[] }
  | { readonly kind: 'window-done'; readonly entry: ManifestWindow }
  | { readonly kind: 'window-failed'; readonly entry: ManifestWindow }
  | { readonly kind: 'progress'; readonly rows: number; readonly bytes: number }
  | { readonly kind: 'retry'; readonly why: string; readonly waitMs: number }
  | { readonly kind: 'split'; readonly window: Window; readonly into: readonly [Window, Window] }
  | { readonly kind: 'orphans-removed'; readonly files: readonly string[] };

export interface PullSummary {
  readonly windows: number;
  readonly pulled: number;
  readonly resumed: number;
  readonly failed: readonly ManifestWindow[];
  /** Why the pull stopped before its last window (the service could not be reached). */
  readonly stopped?: string;
  readonly rows: number;
  readonly bytes: number;
  readonly files: readonly string[];
}

/** A window that could not be pulled, with the reason and the service's request id for the manifest. */
class WindowFailure extends Error {
  constructor(message: string, readonly requestId = '') {
    super(message);
  }
}

/** The service could not be reached even after the retries: the next windows would fare no better. */
class Unreachable extends WindowFailure {}

export async function pull(api: SummaryApi, options: PullOptions, observe: (event: PullEvent) => void = () => {}): Promise<PullSummary> {
  const { dataset, by, format, out } = options;
  if (!(DATASETS[dataset].dateBy as readonly string[]).includes(by)) {
    throw new RangeError(`${dataset} cannot be split by ${by}: use ${DATASETS[dataset].dateBy.join(' or ')}`);
  }
  const months = monthWindows(options.from, options.to);
  try {
    mkdirSync(out, { recursive: true });
  } catch (error) {
    throw new ManifestError(`cannot use ${out} as the --out folder: ${(error as Error).message}`);
  }
  const manifest = openManifest(out, { ...options.source, dataset, format, by, filters: options.filters });
  const orphans = removeOrphans(out, manifest, options);
  if (orphans.length > 0) observe({ kind: 'orphans-removed', files: orphans });
  const retry = options.retry ?? DEFAULT_RETRY;
  const summary = { pulled: 0, resumed: 0, rows: 0, bytes: 0, failed: [] as ManifestWindow[], files: [] as string[], stopped: undefined as string | undefined };

  for (const [index, month] of months.entries()) {
    const done = doneEntries(manifest, out, month.from, month.to);
    if (done) {
      observe({ kind: 'window-skipped', window: month, entries: done });
      summary.resumed++;
      for (const entry of done) tally(summary, entry);
      continue;
    }
    observe({ kind: 'window-start', window: month, index, count: months.length });
    forget(manifest, out, month);
    let failed = false;
    // Depth first, so the parts of a split month are pulled and recorded in date order.
    const pending: Window[] = [month];
    while (pending.length > 0) {
      const window = pending.shift()!;
      const label = windowLabel(window);
      try {
        const entry = await pullWindow(api, options, window, label, retry, observe);
        if (entry === 'too-large') {
          const parts = halves(window)!;
          observe({ kind: 'split', window, into: parts });
          pending.unshift(...parts);
          continue;
        }
        recordWindow(manifest, entry);
        tally(summary, entry);
        observe({ kind: 'window-done', entry });
      } catch (error) {
        if (!(error instanceof WindowFailure)) throw error;
        const entry: ManifestWindow = { window: label, from: window.from, to: window.to, status: 'failed', rows: 0, bytes: 0, files: [], requestIds: error.requestId ? [error.requestId] : [], error: error.message, finishedAt: new Date().toISOString() };
        recordWindow(manifest, entry);
        summary.failed.push(entry);
        observe({ kind: 'window-failed', entry });
        if (error instanceof Unreachable) summary.stopped = `the service could not be reached (${error.message})`;
        failed = true;
        break;
      } finally {
        saveManifest(out, manifest);
      }
    }
    if (!failed) summary.pulled++;
    if (summary.stopped) break;
  }
  return { windows: months.length, ...summary };
}

function tally(summary: { rows: number; bytes: number; files: string[] }, entry: ManifestWindow): void {
  summary.rows += entry.rows;
  summary.bytes += entry.bytes;
  summary.files.push(...entry.files.map((file) => file.file));
}

/** The name prefixes of a dataset's files: the dataset, or the tables of its zip. */
function filePrefixes(dataset: DatasetName): string[] {
  const tables = DATASETS[dataset].zipEntries;
  return tables === null ? [dataset] : tables.map((name) => name.replace(/\.parquet$/, ''));
}

/**
 * Removes this dataset's data files the manifest does not list: left by a run stopped between
 * writing a file and recording it. The manifest is what a folder holds; a stray file would be
 * loaded twice by a warehouse's glob.
 */
function removeOrphans(dir: string, manifest: Manifest, options: PullOptions): string[] {
  const listed = listedFiles(manifest);
  const pattern = new RegExp(`^(${filePrefixes(options.dataset).join('|')})-\\d{4}-\\d{2}(-\\d{2}_\\d{4}-\\d{2}-\\d{2})?\\.(parquet|jsonl)(\\.partial)?$`);
  const orphans = readdirSync(dir).filter((name) => pattern.test(name) && !listed.has(name));
  for (const name of orphans) rmSync(join(dir, name), { force: true });
  return orphans;
}

/**
 * Drops what the manifest and the folder hold inside a window about to be pulled (again). An
 * entry reaching outside it would be pulled twice in part: refused, the folder left as it is.
 */
function forget(manifest: Manifest, dir: string, window: Window): void {
  const overlapping = manifest.windows.filter((entry) => entry.from <= window.to && entry.to >= window.from);
  const straddling = overlapping.find((entry) => entry.from < window.from || entry.to > window.to);
  if (straddling) {
    throw new ManifestError(`${dir} holds ${straddling.from}..${straddling.to}, which ${window.from}..${window.to} overlaps only in part: pulling it would duplicate records. Pull whole months (or the same days as before), or into another --out`);
  }
  for (const entry of overlapping) for (const file of entry.files) rmSync(join(dir, file.file), { force: true });
  manifest.windows = manifest.windows.filter((entry) => !overlapping.includes(entry));
}

function windowFilters(options: PullOptions, window: Window): Filters {
  const members = dateMembers(options.by);
  return { ...options.filters, [members.from]: window.from, [members.to]: window.to };
}

/** Calls with retries; a network failure that outlasts them stops the pull. */
async function call<T extends { response: Response }>(send: () => Promise<T>, retry: RetryPolicy, onRetry: (why: string, waitMs: number) => void): Promise<T> {
  try {
    return await withRetry(send, retry, onRetry);
  } catch (error) {
    if (error instanceof TypeError) throw new Unreachable(networkCause(error));
    throw error;
  }
}

async function pullWindow(api: SummaryApi, options: PullOptions, window: Window, label: string, retry: RetryPolicy, observe: (event: PullEvent) => void): Promise<ManifestWindow | 'too-large'> {
  const onRetry = (why: string, waitMs: number) => observe({ kind: 'retry', why, waitMs });
  const base = { window: label, from: window.from, to: window.to };
  if (options.format === 'jsonl') return { ...base, ...(await walkPages(api, options, window, label, retry, onRetry, observe)) };

  const result = await call(() => api.export(options.dataset, windowFilters(options, window)), retry, onRetry);
  const requestId = result.response.headers.get('x-request-id') ?? '';
  if (result.response.status === 413 && problemCode(result.error) === 'RESULT_TOO_LARGE' && halves(window)) return 'too-large';
  if (!result.data) throw failure(result.response, result.error, requestId);
  const bytes = new Uint8Array(result.data);
  const tables = DATASETS[options.dataset].zipEntries;
  let parts: { name: string; bytes: Uint8Array }[];
  if (tables === null) {
    parts = [{ name: `${options.dataset}-${label}.parquet`, bytes }];
  } else {
    let entries: Record<string, Uint8Array>;
    try {
      entries = unzipSync(bytes);
    } catch (error) {
      throw new WindowFailure(`the export is not a zip (${(error as Error).message})`, requestId);
    }
    parts = tables.map((name) => {
      const entry = entries[name];
      if (!entry) throw new WindowFailure(`the export has no ${name}`, requestId);
      return { name: `${name.replace(/\.parquet$/, '')}-${label}.parquet`, bytes: entry };
    });
  }
  const files = writeParquetFiles(options.out, parts, requestId);
  observe({ kind: 'progress', rows: files[0]!.rows, bytes: sum(files, 'bytes') });
  // A row of the dataset is a row of its first table (invoices: not their lines).
  return { ...base, status: 'done', rows: files[0]!.rows, bytes: sum(files, 'bytes'), files, requestIds: [requestId], finishedAt: new Date().toISOString() };
}

/** Walks every JSON page of a window into `<dataset>-<label>.jsonl`, one record per line. */
async function walkPages(api: SummaryApi, options: PullOptions, window: Window, label: string, retry: RetryPolicy, onRetry: (why: string, waitMs: number) => void, observe: (event: PullEvent) => void) {
  const name = `${options.dataset}-${label}.jsonl`;
  const partial = join(options.out, `${name}.partial`);
  const hash = createHash('sha256');
  const requestIds: string[] = [];
  let rows = 0;
  let bytes = 0;
  const file = await open(partial, 'w').catch((error: Error) => {
    throw new WindowFailure(`cannot write ${partial}: ${error.message}`);
  });
  try {
    for (let page = 1; ; page++) {
      const filters = { ...windowFilters(options, window), page, pageSize: options.pageSize ?? 1000 };
      const result = await call(() => api.page(options.dataset, filters), retry, onRetry);
      const requestId = result.response.headers.get('x-request-id') ?? '';
      if (!result.data) throw failure(result.response, result.error, requestId);
      requestIds.push(requestId);
      const text = result.data.data.map((record) => `${JSON.stringify(record)}\n`).join('');
      const encoded = Buffer.from(text, 'utf8');
      await file.write(encoded).catch((error: Error) => {
        throw new WindowFailure(`cannot write ${partial}: ${error.message}`, requestId);
      });
      hash.update(encoded);
      rows += result.data.data.length;
      bytes += encoded.byteLength;
      observe({ kind: 'progress', rows: result.data.data.length, bytes: encoded.byteLength });
      if (!result.data.pagination.hasNext) {
        if (page < result.data.pagination.totalPages) throw new WindowFailure(`the walk stopped at page ${page} of ${result.data.pagination.totalPages}: ${result.data.meta.warning ?? 'no next page'}`, requestId);
        break;
      }
    }
    await file.close();
  } catch (error) {
    await file.close().catch(() => {});
    rmSync(partial, { force: true });
    throw error;
  }
  renameSync(partial, join(options.out, name));
  return { status: 'done' as const, rows, bytes, files: [{ file: name, rows, bytes, sha256: hash.digest('hex') }], requestIds, finishedAt: new Date().toISOString() };
}

/**
 * Writes a window's Parquet files all or none: each is read back (its row count from its footer;
 * a file that does not parse fails the window) and written as `.partial`, and only when all are
 * written are they renamed into place.
 */
function writeParquetFiles(dir: string, parts: readonly { name: string; bytes: Uint8Array }[], requestId: string): ManifestFile[] {
  const files = parts.map(({ name, bytes }) => {
    let rows: number;
    try {
      rows = Number(parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer).num_rows);
    } catch (error) {
      throw new WindowFailure(`${name}: the service sent a file that is not Parquet (${error instanceof Error ? error.message : String(error)})`, requestId);
    }
    return { file: name, rows, bytes: bytes.byteLength, sha256: sha256(bytes) };
  });
  const written: string[] = [];
  try {
    for (const { name, bytes } of parts) {
      writeFileSync(join(dir, `${name}.partial`), bytes);
      written.push(join(dir, `${name}.partial`));
    }
  } catch (error) {
    for (const path of written) rmSync(path, { force: true });
    throw new WindowFailure(`cannot write into ${dir}: ${(error as Error).message}`, requestId);
  }
  for (const { name } of parts) renameSync(join(dir, `${name}.partial`), join(dir, name));
  return files;
}

function failure(response: Response, error: unknown, requestId: string): WindowFailure {
  const problem = error as Partial<Problem> | undefined;
  const detail = typeof problem?.detail === 'string' ? `: ${problem.detail}` : '';
  const retryAfter = response.headers.get('retry-after');
  const later = retryAfter && (response.status === 429 || response.status === 503) ? ` (the service asks to retry after ${retryAfter} s, beyond --max-retry-wait or the attempts)` : '';
  return new WindowFailure(`${response.status} ${problemCode(error)}${detail}${later} (request ${requestId || 'without id'})`, requestId);
}

function sum(files: readonly ManifestFile[], key: 'bytes' | 'rows'): number {
  return files.reduce((total, file) => total + file[key], 0);
}
