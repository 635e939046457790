/**
 * A pull: a date range of one dataset into a folder, one file per table and calendar-month window
 * (Parquet exports, invoices' two tables taken out of the zip, or JSON Lines from walking every
 * page), resumable through the folder's manifest. Settled windows are pulled once; open ones
 * (windows.ts, isSettled) on every run, their files replaced.
 *
 * A month's files are written hidden (layout.ts) and only once all of them are complete does the
 * manifest list them and are they renamed into place, so a reader never sees half a window.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { unzipSync } from 'fflate';
import { parquetMetadata } from 'hyparquet';
import { isPermanent, permanentNetworkFailure, remedy } from './answers.js';
import { lockFolder } from './folder-lock.js';
import { DATASETS, dateMembers, type DatasetName, type DateBy, type Format } from './datasets.js';
import { dataFile, foldersOf, legacyFilePattern, MANIFEST_FILE, partialFile, strayPattern } from './layout.js';
import { doneEntries, listedFiles, ManifestError, openManifest, saveManifest, sha256, sha256File, type Manifest, type ManifestFile, type ManifestWindow } from './manifest.js';
import { printable } from './printable.js';
import { DEFAULT_RETRY, networkCause, problemCode, withRetry, type RetryPolicy } from './retry.js';
import { BodyTooLarge, type Filters, type Page, type Problem, type SummaryApi } from './summary-api.js';
import { fileLabel, halves, isSettled, monthWindows, windowLabel, type Window } from './windows.js';

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
  /** Whole days after a window's last day before it is settled (default 1): late writers' margin. */
  readonly settleDays?: number;
  /** The clock, in milliseconds since the epoch (default Date.now). */
  readonly now?: () => number;
}

export const DEFAULT_SETTLE_DAYS = 1;

/** What a pull tells its observer (the CLI's progress line). */
export type PullEvent =
  | { readonly kind: 'window-start'; readonly window: Window; readonly index: number; readonly count: number }
  | { readonly kind: 'window-skipped'; readonly window: Window; readonly entries: readonly ManifestWindow[] }
  | { readonly kind: 'window-done'; readonly entry: ManifestWindow }
  | { readonly kind: 'window-failed'; readonly entry: ManifestWindow }
  | { readonly kind: 'progress'; readonly rows: number; readonly bytes: number }
  | { readonly kind: 'retry'; readonly why: string; readonly waitMs: number }
  | { readonly kind: 'split'; readonly window: Window; readonly into: readonly [Window, Window] }
  | { readonly kind: 'orphans-removed'; readonly files: readonly string[] }
  | { readonly kind: 'files-recovered'; readonly files: readonly string[] };

export interface PullSummary {
  readonly windows: number;
  readonly pulled: number;
  readonly resumed: number;
  /** The months pulled now that are not settled yet: the next run pulls them again. */
  readonly open: readonly string[];
  readonly failed: readonly ManifestWindow[];
  /** Why the pull stopped before its last window (the service could not be reached). */
  readonly stopped?: string;
  readonly rows: number;
  readonly bytes: number;
  readonly files: readonly string[];
}

/**
 * The service refuses what no window of this pull could change (filters, credentials, roles, the
 * base URL): the pull stops at the first such answer, exit 2.
 */
export class PullStopped extends Error {
  override readonly name = 'PullStopped';
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
  if (existsSync(out) && !statSync(out).isDirectory()) throw new ManifestError(`--out ${out} is a file, not a folder`);
  // A folder that does not exist yet is made, and locked, with the first window pulled.
  let unlock = existsSync(out) ? lockFolder(out) : undefined;
  try {
    return await pullLocked(api, options, observe, () => (unlock ??= lockFolder(out)));
  } finally {
    unlock?.();
  }
}

async function pullLocked(api: SummaryApi, options: PullOptions, observe: (event: PullEvent) => void, lock: () => void): Promise<PullSummary> {
  const { dataset, by, format, out } = options;
  const months = monthWindows(options.from, options.to);
  const now = options.now ?? Date.now;
  const settleDays = options.settleDays ?? DEFAULT_SETTLE_DAYS;
  const manifest = openManifest(out, { ...options.source, dataset, format, by, filters: options.filters }, settleDays);
  // A folder with no manifest yet gets one only with the first window pulled: a pull refused at
  // its start (a wrong secret, a bad filter) leaves nothing that would hold the folder.
  let saved = existsSync(join(out, MANIFEST_FILE));
  const save = () => {
    mkdirSync(out, { recursive: true });
    lock();
    saveManifest(out, manifest);
    saved = true;
  };
  const { recovered, removed } = tidyFolder(out, manifest, options, saved);
  if (recovered.length > 0) observe({ kind: 'files-recovered', files: recovered });
  if (removed.length > 0) observe({ kind: 'orphans-removed', files: removed });
  const retry = options.retry ?? DEFAULT_RETRY;
  const summary = { pulled: 0, resumed: 0, rows: 0, bytes: 0, open: [] as string[], failed: [] as ManifestWindow[], files: [] as string[], stopped: undefined as string | undefined };

  for (const [index, month] of months.entries()) {
    // Only a settled window is ever skipped: an open one may have gained records since.
    const done = isSettled(month, now(), settleDays) ? doneEntries(manifest, out, month.from, month.to) : null;
    if (done) {
      observe({ kind: 'window-skipped', window: month, entries: done });
      summary.resumed++;
      for (const entry of done) tally(summary, entry);
      continue;
    }
    observe({ kind: 'window-start', window: month, index, count: months.length });
    refuseStraddling(manifest, out, month);
    try {
      const entries = await pullMonth(api, options, month, { retry, observe, now, settleDays });
      commit(manifest, out, month, entries, save);
      // A day too large for any answer fails alone: the month's other days are kept.
      const failedDays = entries.filter((entry) => entry.status === 'failed');
      if (failedDays.length === 0) summary.pulled++;
      if (entries.some((entry) => entry.status === 'open')) summary.open.push(windowLabel(month));
      for (const entry of entries) {
        tally(summary, entry);
        if (entry.status === 'failed') summary.failed.push(entry);
        observe({ kind: entry.status === 'failed' ? 'window-failed' : 'window-done', entry });
      }
    } catch (error) {
      if (!(error instanceof WindowFailure)) throw error;
      const entry: ManifestWindow = { window: windowLabel(month), from: month.from, to: month.to, status: 'failed', rows: 0, bytes: 0, files: [], requestIds: error.requestId ? [error.requestId] : [], error: error.message, finishedAt: new Date(now()).toISOString() };
      summary.failed.push(entry);
      observe({ kind: 'window-failed', entry });
      // The files pulled before stay listed; the failure is kept beside them for support.
      manifest.windows = [...manifest.windows.filter((existing) => !(existing.status === 'failed' && overlaps(existing, month))), entry].sort(byFrom);
      if (saved) save();
      if (error instanceof Unreachable) {
        summary.stopped = `the service could not be reached (${error.message})`;
        break;
      }
    }
  }
  return { windows: months.length, ...summary };
}

interface MonthContext {
  readonly retry: RetryPolicy;
  readonly observe: (event: PullEvent) => void;
  readonly now: () => number;
  readonly settleDays: number;
}

/**
 * Pulls a month, halving a window that is too large for one answer down to single days, depth
 * first so the parts come in date order; a single day still too large is a failed entry of its
 * own among them. The files are left hidden; on any other failure none is left.
 */
async function pullMonth(api: SummaryApi, options: PullOptions, month: Window, context: MonthContext): Promise<ManifestWindow[]> {
  const entries: ManifestWindow[] = [];
  const pending: Window[] = [month];
  try {
    while (pending.length > 0) {
      const window = pending.shift()!;
      const result = await pullWindow(api, options, window, context);
      const finishedAt = new Date(context.now()).toISOString();
      if (result === 'too-large') {
        const parts = halves(window);
        if (parts) {
          context.observe({ kind: 'split', window, into: parts });
          pending.unshift(...parts);
        } else {
          const error = `${window.from} alone is larger than one answer may be (the service's PARQUET_MAX_BYTES, or this client's SUMMARY_MAX_EXPORT_BYTES): raise SUMMARY_MAX_EXPORT_BYTES if it is this client's limit, else ask the service owners; the month's other days are kept`;
          entries.push({ window: windowLabel(window), from: window.from, to: window.to, status: 'failed', rows: 0, bytes: 0, files: [], requestIds: [], error, finishedAt });
        }
        continue;
      }
      const status = isSettled(window, context.now(), context.settleDays) ? 'done' : 'open';
      entries.push({ window: windowLabel(window), from: window.from, to: window.to, status, ...result, finishedAt });
    }
    return entries;
  } catch (error) {
    for (const entry of entries) for (const file of entry.files) rmSync(join(options.out, partialFile(file.file)), { force: true });
    throw error;
  }
}

/**
 * Lists a month's new entries in the manifest in place of what it held of the month, then renames
 * their files into place and removes the files they replace. Stopped in between, the next run
 * finds a file that does not match the manifest (pulled again) or one it does not list (removed).
 */
function commit(manifest: Manifest, dir: string, month: Window, entries: readonly ManifestWindow[], save: () => void): void {
  const replaced = manifest.windows.filter((entry) => overlaps(entry, month));
  manifest.windows = [...manifest.windows.filter((entry) => !replaced.includes(entry)), ...entries].sort(byFrom);
  save();
  const kept = new Set(entries.flatMap((entry) => entry.files.map((file) => file.file)));
  for (const file of kept) renameSync(join(dir, partialFile(file)), join(dir, file));
  for (const entry of replaced) for (const file of entry.files) if (!kept.has(file.file)) rmSync(join(dir, file.file), { force: true });
}

function overlaps(entry: Pick<Window, 'from' | 'to'>, window: Window): boolean {
  return entry.from <= window.to && entry.to >= window.from;
}

function byFrom(a: ManifestWindow, b: ManifestWindow): number {
  return a.from.localeCompare(b.from);
}

function tally(summary: { rows: number; bytes: number; files: string[] }, entry: ManifestWindow): void {
  summary.rows += entry.rows;
  summary.bytes += entry.bytes;
  summary.files.push(...entry.files.map((file) => file.file));
}

/**
 * Sets right what a stopped run left. A hidden file the manifest lists whole (the run stopped
 * after listing a month, before renaming its files into place) is renamed into place. Every other
 * hidden `.partial` of this pull is removed; in a folder this pull owns (it has a manifest), so
 * are this dataset's data files the manifest does not list (a glob would load them twice), among
 * them the visible `.partial` and top-level invoice tables of summary-client 0.1.
 */
function tidyFolder(dir: string, manifest: Manifest, options: PullOptions, owned: boolean): { recovered: string[]; removed: string[] } {
  const listed = listedFiles(manifest);
  const sums = new Map(manifest.windows.flatMap((entry) => entry.files.map((file) => [file.file, file.sha256] as const)));
  const recovered: string[] = [];
  const removed: string[] = [];
  const legacy = legacyFilePattern(options.dataset, options.format);
  for (const folder of new Set(['', ...foldersOf(options.dataset, options.format)])) {
    const path = join(dir, folder);
    if (!existsSync(path)) continue;
    const own = strayPattern(options.dataset, options.format, folder);
    for (const name of readdirSync(path)) {
      const file = `${folder}${name}`;
      if (listed.has(file)) continue;
      const hidden = name.startsWith('.') && own.test(name);
      const finished = hidden ? `${folder}${name.slice(1, -'.partial'.length)}` : '';
      const sum = sums.get(finished);
      if (sum !== undefined && sha256File(join(dir, finished)) !== sum && sha256File(join(dir, file)) === sum) {
        renameSync(join(dir, file), join(dir, finished));
        recovered.push(finished);
        continue;
      }
      const visible = own.test(name) || (folder === '' && (legacy.test(name) || legacy.test(name.replace(/\.partial$/, ''))));
      if (hidden || (owned && visible)) {
        rmSync(join(dir, file), { force: true });
        removed.push(file);
      }
    }
  }
  return { recovered, removed };
}

/**
 * A window about to be pulled replaces what the manifest holds inside it. An entry reaching
 * outside it would be pulled twice in part: refused, the folder left as it is.
 */
function refuseStraddling(manifest: Manifest, dir: string, window: Window): void {
  const straddling = manifest.windows.find((entry) => entry.status !== 'failed' && overlaps(entry, window) && (entry.from < window.from || entry.to > window.to));
  if (straddling) {
    throw new ManifestError(`${dir} holds ${straddling.from}..${straddling.to}, which ${window.from}..${window.to} overlaps only in part: pulling it would duplicate records. Pull whole months (or the same days as before), or into another --out`);
  }
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
    if (!(error instanceof TypeError)) throw error;
    const permanent = permanentNetworkFailure(error);
    if (permanent) throw new PullStopped(`${permanent} (${networkCause(error)})`);
    throw new Unreachable(networkCause(error));
  }
}

type WindowResult = Pick<ManifestWindow, 'rows' | 'bytes' | 'files' | 'requestIds'>;

async function pullWindow(api: SummaryApi, options: PullOptions, window: Window, context: MonthContext): Promise<WindowResult | 'too-large'> {
  const onRetry = (why: string, waitMs: number) => context.observe({ kind: 'retry', why, waitMs });
  const label = fileLabel(window, !isSettled(window, context.now(), context.settleDays));
  try {
    if (options.format === 'jsonl') return await walkPages(api, options, window, label, context, onRetry);
    const result = await call(() => api.export(options.dataset, windowFilters(options, window)), context.retry, onRetry);
    const requestId = result.response.headers.get('x-request-id') ?? '';
    if (!result.data) return refusal(result.response, result.error, requestId);
    const files = writeParquetFiles(options, label, unpack(options.dataset, new Uint8Array(result.data), api.maxExportBytes, requestId), requestId);
    context.observe({ kind: 'progress', rows: files[0]!.rows, bytes: sum(files, 'bytes') });
    // A row of the dataset is a row of its first table (invoices: not their lines).
    return { rows: files[0]!.rows, bytes: sum(files, 'bytes'), files, requestIds: [requestId] };
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    // An export past the cap is halved; any other answer that large says nothing a window could change.
    if (error.exporting) return 'too-large';
    if (isPermanent(error.status, '')) throw new PullStopped(`the service refuses this pull (${error.status}, with an answer of more than ${error.limit} bytes), whatever the window: check SUMMARY_BASE_URL and the keys`);
    throw new WindowFailure(error.status < 300 ? `a page is larger than ${error.limit} bytes: use a smaller --page-size` : `the service answered ${error.status} with more than ${error.limit} bytes`);
  }
}

/**
 * An answer that is not the data: a window too large for one answer is halved; what no window
 * could change stops the pull; the rest (retries spent) fails the window.
 */
function refusal(response: Response, error: unknown, requestId: string): 'too-large' {
  const code = problemCode(error);
  if ((response.status === 413 && code === 'RESULT_TOO_LARGE') || (response.status === 400 && code === 'RESULT_WINDOW_EXCEEDED')) return 'too-large';
  const problem = error as Partial<Problem> | undefined;
  const detail = typeof problem?.detail === 'string' ? `: ${printable(problem.detail)}` : '';
  const said = `${response.status} ${printable(code)}${detail} (request ${printable(requestId) || 'without id'})`;
  if (isPermanent(response.status, code)) throw new PullStopped(`the service refuses this pull (${said}), whatever the window: ${remedy(response.status, code)}. Nothing was pulled after this`);
  const retryAfter = response.headers.get('retry-after')?.trim();
  const wait = retryAfter && (/^\d+$/.test(retryAfter) ? `${retryAfter} s` : `until ${printable(retryAfter, 64)}`);
  const later = wait && (response.status === 429 || response.status === 503) ? ` (the service asks to retry after ${wait}, beyond --max-retry-wait or the attempts)` : '';
  throw new WindowFailure(`${said}${later}`, requestId);
}

/** The Parquet files of an export: the file itself, or the expected entries of its zip, each capped. */
function unpack(dataset: DatasetName, bytes: Uint8Array, cap: number, requestId: string): { table: string; bytes: Uint8Array }[] {
  const entries = DATASETS[dataset].zipEntries;
  if (entries === null) return [{ table: dataset, bytes }];
  const expected: readonly string[] = entries;
  let files: Record<string, Uint8Array>;
  try {
    // Only the two expected entries are inflated, and only up to their declared size, itself capped.
    files = unzipSync(bytes, {
      filter: (entry) => {
        if (!expected.includes(entry.name)) return false;
        if (entry.originalSize > cap) throw new WindowFailure(`the export's ${entry.name} declares ${entry.originalSize} bytes, more than SUMMARY_MAX_EXPORT_BYTES (${cap})`, requestId);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof WindowFailure) throw error;
    throw new WindowFailure(`the export is not a zip (${printable((error as Error).message)})`, requestId);
  }
  return expected.map((name) => {
    const entry = files[name];
    if (!entry) throw new WindowFailure(`the export has no ${name}`, requestId);
    return { table: name.replace(/\.parquet$/, ''), bytes: entry };
  });
}

/**
 * Walks every JSON page of a window into `<dataset>-<label>.jsonl`, one record per line, written
 * hidden; the file is opened with the first page, so a refused window leaves nothing.
 */
async function walkPages(api: SummaryApi, options: PullOptions, window: Window, label: string, context: MonthContext, onRetry: (why: string, waitMs: number) => void): Promise<WindowResult | 'too-large'> {
  const name = dataFile(options.dataset, options.dataset, label, 'jsonl');
  const partial = join(options.out, partialFile(name));
  const hash = createHash('sha256');
  const requestIds: string[] = [];
  let rows = 0;
  let bytes = 0;
  let file: FileHandle | undefined;
  try {
    let announced = Number.POSITIVE_INFINITY;
    let previous = '';
    let more = false;
    // Never past the pages the first answer announced: a server that says hasNext forever ends here.
    for (let page = 1; page <= announced; page++) {
      const filters = { ...windowFilters(options, window), page, pageSize: options.pageSize ?? 1000 };
      const result = await call(() => api.page(options.dataset, filters), context.retry, onRetry);
      const requestId = result.response.headers.get('x-request-id') ?? '';
      if (!result.data) {
        await file?.close();
        rmSync(partial, { force: true });
        return refusal(result.response, result.error, requestId);
      }
      if (!isPage(result.data)) throw new WindowFailure(`page ${page} is not a summary page (data and pagination with whole totalPages and a hasNext)`, requestId);
      const { data, pagination } = result.data;
      if (page === 1) announced = pagination.totalPages;
      more = pagination.hasNext;
      requestIds.push(requestId);
      const text = data.map((record) => `${JSON.stringify(record)}\n`).join('');
      if (text !== '' && text === previous) throw new WindowFailure(`page ${page} repeats page ${page - 1}: the service does not move through the pages`, requestId);
      previous = text;
      const encoded = Buffer.from(text, 'utf8');
      try {
        if (!file) {
          mkdirSync(options.out, { recursive: true });
          file = await open(partial, 'w');
        }
        await file.write(encoded);
      } catch (error) {
        throw new WindowFailure(`cannot write ${partial}: ${(error as Error).message}`, requestId);
      }
      hash.update(encoded);
      rows += data.length;
      bytes += encoded.byteLength;
      context.observe({ kind: 'progress', rows: data.length, bytes: encoded.byteLength });
      if (!pagination.hasNext) {
        if (page < announced) throw new WindowFailure(`the walk stopped at page ${page} of ${announced}: ${printable(result.data.meta?.warning ?? 'no next page')}`, requestId);
        break;
      }
    }
    // Past the pages announced, the service still says there is more. Records created during the
    // walk of an open window: the next run pulls it again. A settled window should not grow.
    if (more && isSettled(window, context.now(), context.settleDays)) {
      throw new WindowFailure(`the service announced ${announced} page${announced === 1 ? '' : 's'}, and page ${announced} says there is more: records changed during the walk`, requestIds.at(-1));
    }
    await file?.close();
  } catch (error) {
    await file?.close().catch(() => {});
    rmSync(partial, { force: true });
    throw error;
  }
  // An empty window has no file: an empty .jsonl trips some readers.
  if (rows === 0) {
    rmSync(partial, { force: true });
    return { rows, bytes, files: [], requestIds };
  }
  return { rows, bytes, files: [{ file: name, rows, bytes, sha256: hash.digest('hex') }], requestIds };
}

/** Whether a 200 answer is a page the walk can go by. */
function isPage(value: unknown): value is Page {
  const page = value as Partial<Page> | null;
  const pagination = page?.pagination as Partial<Page['pagination']> | undefined;
  return Array.isArray(page?.data) && Number.isSafeInteger(pagination?.totalPages) && pagination!.totalPages! >= 0 && typeof pagination?.hasNext === 'boolean';
}

/**
 * Writes a window's Parquet files, hidden until the month is committed: each is read back first
 * (its row count from its footer; a file that does not parse fails the window).
 */
function writeParquetFiles(options: PullOptions, label: string, parts: readonly { table: string; bytes: Uint8Array }[], requestId: string): ManifestFile[] {
  const files = parts.map(({ table, bytes }) => {
    const file = dataFile(options.dataset, table, label, 'parquet');
    let rows: number;
    try {
      rows = Number(parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer).num_rows);
    } catch (error) {
      throw new WindowFailure(`${file}: the service sent a file that is not Parquet (${printable(error instanceof Error ? error.message : String(error))})`, requestId);
    }
    return { file, rows, bytes: bytes.byteLength, sha256: sha256(bytes) };
  });
  const written: string[] = [];
  try {
    for (const [index, { bytes }] of parts.entries()) {
      const path = join(options.out, partialFile(files[index]!.file));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, bytes);
      written.push(path);
    }
  } catch (error) {
    for (const path of written) rmSync(path, { force: true });
    throw new WindowFailure(`cannot write into ${options.out}: ${(error as Error).message}`, requestId);
  }
  return files;
}

function sum(files: readonly ManifestFile[], key: 'bytes' | 'rows'): number {
  return files.reduce((total, file) => total + file[key], 0);
}

