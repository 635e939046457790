/**
 * A pull: a date range of one dataset into a folder, one file per calendar-month window (Parquet
 * exports, invoices' two tables taken out of the zip, or JSON Lines from walking every page),
 * resumable through the folder's manifest.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { parquetMetadata } from 'hyparquet';
import { DATASETS, dateMembers, type DatasetName, type DateBy, type Format } from './datasets.js';
import { doneEntries, openManifest, recordWindow, saveManifest, sha256, type Manifest, type ManifestFile, type ManifestWindow } from './manifest.js';
import { DEFAULT_RETRY, networkCause, problemCode, withRetry, type RetryPolicy } from './retry.js';
import { TokenError, type Filters, type Problem, type SummaryApi } from './summary-api.js';
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
  | { readonly kind: 'split'; readonly window: Window; readonly into: readonly [Window, Window] };

export interface PullSummary {
  readonly windows: number;
  readonly pulled: number;
  readonly resumed: number;
  readonly failed: readonly ManifestWindow[];
  readonly rows: number;
  readonly bytes: number;
  readonly files: readonly string[];
}

/** A window that could not be pulled, with the reason recorded in the manifest. */
class WindowFailure extends Error {}

export async function pull(api: SummaryApi, options: PullOptions, observe: (event: PullEvent) => void = () => {}): Promise<PullSummary> {
  const { dataset, by, format, out } = options;
  if (!(DATASETS[dataset].dateBy as readonly string[]).includes(by)) {
    throw new RangeError(`${dataset} cannot be split by ${by}: use ${DATASETS[dataset].dateBy.join(' or ')}`);
  }
  const months = monthWindows(options.from, options.to);
  mkdirSync(out, { recursive: true });
  const manifest = openManifest(out, { dataset, format, by, filters: options.filters });
  const retry = options.retry ?? DEFAULT_RETRY;
  const summary = { pulled: 0, resumed: 0, rows: 0, bytes: 0, failed: [] as ManifestWindow[], files: [] as string[] };

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
      const label = windowLabel(window, month);
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
        if (error instanceof TokenError) throw error;
        const message = error instanceof WindowFailure ? error.message : `unexpected: ${error instanceof Error ? networkCause(error) : String(error)}`;
        const entry: ManifestWindow = { window: label, from: window.from, to: window.to, status: 'failed', rows: 0, bytes: 0, files: [], requestIds: [], error: message, finishedAt: new Date().toISOString() };
        recordWindow(manifest, entry);
        summary.failed.push(entry);
        observe({ kind: 'window-failed', entry });
        failed = true;
        break;
      } finally {
        saveManifest(out, manifest);
      }
    }
    if (!failed) summary.pulled++;
  }
  return { windows: months.length, ...summary };
}

function tally(summary: { rows: number; bytes: number; files: string[] }, entry: ManifestWindow): void {
  summary.rows += entry.rows;
  summary.bytes += entry.bytes;
  summary.files.push(...entry.files.map((file) => file.file));
}

/** Drops what the manifest and the folder hold of a window about to be pulled again (a part-done or failed month). */
function forget(manifest: Manifest, dir: string, month: Window): void {
  const stale = manifest.windows.filter((entry) => entry.from <= month.to && entry.to >= month.from);
  for (const entry of stale) for (const file of entry.files) rmSync(join(dir, file.file), { force: true });
  manifest.windows = manifest.windows.filter((entry) => !stale.includes(entry));
}

function windowFilters(options: PullOptions, window: Window): Filters {
  const members = dateMembers(options.by);
  return { ...options.filters, [members.from]: window.from, [members.to]: window.to };
}

async function pullWindow(api: SummaryApi, options: PullOptions, window: Window, label: string, retry: RetryPolicy, observe: (event: PullEvent) => void): Promise<ManifestWindow | 'too-large'> {
  const onRetry = (why: string, waitMs: number) => observe({ kind: 'retry', why, waitMs });
  const base = { window: label, from: window.from, to: window.to };
  if (options.format === 'jsonl') return { ...base, ...(await walkPages(api, options, window, label, retry, onRetry, observe)) };

  const result = await withRetry(() => api.export(options.dataset, windowFilters(options, window)), retry, onRetry);
  const requestId = result.response.headers.get('x-request-id') ?? '';
  if (result.response.status === 413 && problemCode(result.error) === 'RESULT_TOO_LARGE' && halves(window)) return 'too-large';
  if (!result.data) throw failure(result.response, result.error, requestId);
  const bytes = new Uint8Array(result.data);
  const tables = DATASETS[options.dataset].zipEntries;
  const files: ManifestFile[] = [];
  if (tables === null) {
    files.push(writeParquet(options.out, `${options.dataset}-${label}.parquet`, bytes));
  } else {
    const entries = unzipSync(bytes);
    for (const name of tables) {
      const entry = entries[name];
      if (!entry) throw new WindowFailure(`the export has no ${name} (request ${requestId})`);
      files.push(writeParquet(options.out, `${name.replace(/\.parquet$/, '')}-${label}.parquet`, entry));
    }
  }
  observe({ kind: 'progress', rows: files[0]!.rows, bytes: sum(files, 'bytes') });
  // A row of the dataset is a row of its first table (invoices: not their lines).
  return { ...base, status: 'done', rows: files[0]!.rows, bytes: sum(files, 'bytes'), files, requestIds: [requestId], finishedAt: new Date().toISOString() };
}

/** Walks every JSON page of a window into `<dataset>-<label>.jsonl`, one record per line. */
async function walkPages(api: SummaryApi, options: PullOptions, window: Window, label: string, retry: RetryPolicy, onRetry: (why: string, waitMs: number) => void, observe: (event: PullEvent) => void) {
  const name = `${options.dataset}-${label}.jsonl`;
  const partial = join(options.out, `${name}.partial`);
  const stream = createWriteStream(partial);
  const hash = createHash('sha256');
  const requestIds: string[] = [];
  let rows = 0;
  let bytes = 0;
  try {
    for (let page = 1; ; page++) {
      const filters = { ...windowFilters(options, window), page, pageSize: options.pageSize ?? 1000 };
      const result = await withRetry(() => api.page(options.dataset, filters), retry, onRetry);
      const requestId = result.response.headers.get('x-request-id') ?? '';
      if (!result.data) throw failure(result.response, result.error, requestId);
      requestIds.push(requestId);
      const text = result.data.data.map((record) => `${JSON.stringify(record)}\n`).join('');
      if (text.length > 0 && !stream.write(text)) await once(stream, 'drain');
      hash.update(text);
      rows += result.data.data.length;
      bytes += Buffer.byteLength(text);
      observe({ kind: 'progress', rows: result.data.data.length, bytes: Buffer.byteLength(text) });
      if (!result.data.pagination.hasNext) {
        if (page < result.data.pagination.totalPages) throw new WindowFailure(`the walk stopped at page ${page} of ${result.data.pagination.totalPages}: ${result.data.meta.warning ?? 'no next page'} (request ${requestId})`);
        break;
      }
    }
    stream.end();
    await once(stream, 'close');
  } catch (error) {
    stream.destroy();
    rmSync(partial, { force: true });
    throw error;
  }
  renameSync(partial, join(options.out, name));
  return { status: 'done' as const, rows, bytes, files: [{ file: name, rows, bytes, sha256: hash.digest('hex') }], requestIds, finishedAt: new Date().toISOString() };
}

/** Writes a Parquet file atomically and reads its row count from its footer (a file that does not parse fails the window). */
function writeParquet(dir: string, name: string, bytes: Uint8Array): ManifestFile {
  let rows: number;
  try {
    rows = Number(parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer).num_rows);
  } catch (error) {
    throw new WindowFailure(`${name}: the service sent a file that is not Parquet (${error instanceof Error ? error.message : String(error)})`);
  }
  const path = join(dir, name);
  writeFileSync(`${path}.partial`, bytes);
  renameSync(`${path}.partial`, path);
  return { file: name, rows, bytes: bytes.byteLength, sha256: sha256(bytes) };
}

function failure(response: Response, error: unknown, requestId: string): WindowFailure {
  const problem = error as Partial<Problem> | undefined;
  const detail = typeof problem?.detail === 'string' ? `: ${problem.detail}` : '';
  return new WindowFailure(`${response.status} ${problemCode(error)}${detail} (request ${requestId || 'without id'})`);
}

function sum(files: readonly ManifestFile[], key: 'bytes' | 'rows'): number {
  return files.reduce((total, file) => total + file[key], 0);
}
