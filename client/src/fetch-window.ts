/**
 * One window's answer, as a conditional request: unchanged since the ETag sent (412), too large
 * for one answer (to be halved), or its files written hidden (`.name.partial`) with the answer's
 * validators and the time it reflects (asOf). A pulled answer is then confirmed once: asked again
 * with its own ETag, so that a window written to while it was read is read again (a walk's pages
 * or an export's store pages are not a snapshot). A window still being written answers that check
 * with its data as it is now: that second answer is kept as pulled (`confirmed: false`), with its
 * asOf, and the next run checks it again. So a busy window costs two exports a run, never more.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { unzipSync } from 'fflate';
import { checkParquet, UnsafeParquet, type CheckedParquet } from './decoded-size.js';
import { zipShapeProblem } from './document-shape.js';
import { isPermanent, permanentNetworkFailure, remedy } from './answers.js';
import { DATASETS, dateMembers, type DatasetName, type DateBy, type Format } from './datasets.js';
import { dataFile, partialFile } from './layout.js';
import { sha256, type ManifestFile } from './manifest.js';
import { printable } from './printable.js';
import { DeadlinePassed, networkCause, problemCode, withRetry, type RetryPolicy } from './retry.js';
import { BodyTooLarge, Stalled, UnaskedCoding, UnsafeDocument, isUnchanged, validatorsOf, type Filters, type Page, type Problem, type SummaryApi } from './summary-api.js';
import type { Window } from './windows.js';
import { SummaryClientError } from './client-error.js';

/** What fetching a window needs to know of the pull. */
export interface FetchContext {
  readonly api: SummaryApi;
  readonly dataset: DatasetName;
  readonly by: DateBy;
  readonly format: Format;
  readonly filters: Readonly<Record<string, string>>;
  readonly out: string;
  readonly pageSize: number;
  readonly retry: RetryPolicy;
  /**
   * The wait before a pulled answer's one confirmation: 0 for a nightly run; a strict run
   * (--until-quiet) waits past the service's quiet period, since a result written to in its last
   * seconds has an ETag no check can match.
   */
  readonly confirmWaitMs: number;
  readonly onRetry: (why: string, waitMs: number) => void;
  readonly onProgress: (rows: number, bytes: number) => void;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A window's answer, its files written hidden. */
export interface FetchedFiles {
  readonly kind: 'pulled';
  readonly etag: string;
  /** The answer's X-Summary-Schema. */
  readonly schema: string;
  /** Asked again with its ETag, the service said it is unchanged: the files are the result as it stands. */
  readonly confirmed: boolean;
  /** X-Summary-As-Of of the answer (of the confirmation when confirmed): every write before it is in the files; '' when the service sent none. */
  readonly asOf: string;
  readonly rows: number;
  readonly bytes: number;
  /** Written hidden (partialFile), renamed into place when the window is committed. */
  readonly files: readonly ManifestFile[];
  readonly requestIds: readonly string[];
  /** A walk whose last announced page still said there was more: the pages it announced. */
  readonly grewPast?: number;
}

export type Fetched = { readonly kind: 'unchanged'; readonly schema: string; readonly asOf: string } | { readonly kind: 'too-large' } | FetchedFiles;

/** The service refuses what no window of this pull could change: the pull stops (exit 2). */
export class PullStopped extends SummaryClientError {
  override readonly name = 'PullStopped';
  readonly code = 'PULL_STOPPED';
}

/** A window that could not be pulled, with the reason and the service's request id for the manifest. */
export class WindowFailure extends Error {
  constructor(message: string, readonly requestId = '') {
    super(message);
  }
}

/** The service could not be reached even after the retries: the next windows would fare no better. */
export class Unreachable extends WindowFailure {}

/**
 * The window's answer to `ifNoneMatch` (an ETag, or none for a window pulled whole), confirmed
 * once. Files are named by `label`; on a failure none is left.
 */
export async function fetchWindow(context: FetchContext, window: Window, label: string, ifNoneMatch: string | undefined): Promise<Fetched> {
  const current = await fetchOnce(context, window, label, ifNoneMatch);
  if (current.kind !== 'pulled') return current;
  refuseUnconfirmable(context, current);
  const pulled: FetchedFiles = current;
  let check: Fetched;
  try {
    if (context.confirmWaitMs > 0) await (context.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))))(context.confirmWaitMs);
    check = await fetchOnce(context, window, label, pulled.etag, pulled.files);
  } catch (error) {
    discard(context, pulled);
    throw error;
  }
  if (check.kind === 'unchanged') return { ...pulled, confirmed: true, asOf: check.asOf };
  // Changed while it was read (or still being written): the check's answer is the window as it is
  // now, kept only if the next run can check it (an ETag) and it is whole (a walk that did not stop short).
  if (check.kind === 'too-large') discard(context, pulled);
  else refuseUnconfirmable(context, check);
  return check;
}

/** An answer without an ETag, or a walk cut at the pages it announced, is no answer to keep: its files are removed. */
function refuseUnconfirmable(context: FetchContext, pulled: FetchedFiles): void {
  if (pulled.etag !== '' && pulled.grewPast === undefined) return;
  discard(context, pulled);
  const announced = pulled.grewPast;
  throw new WindowFailure(announced !== undefined
    ? `the service announced ${announced} page${announced === 1 ? '' : 's'}, and page ${announced} says there is more: records changed during the walk; the next run pulls the window again`
    : 'the service answered without an ETag: this client cannot tell when the window changes (a service older than this client?)', pulled.requestIds.at(-1));
}

/** Removes a pulled answer's hidden files. */
export function discard(context: Pick<FetchContext, 'out'>, pulled: { readonly files: readonly Pick<ManifestFile, 'file'>[] }): void {
  for (const file of pulled.files) rmSync(join(context.out, partialFile(file.file)), { force: true });
}

/**
 * One conditional request of the window (an export, or a walk of its pages whose first page is the
 * conditional one). `replacing`: hidden files of an earlier answer that a new answer overwrites
 * (the same names), removed when the new answer has fewer.
 */
async function fetchOnce(context: FetchContext, window: Window, label: string, ifNoneMatch: string | undefined, replacing: readonly ManifestFile[] = []): Promise<Fetched> {
  try {
    const fetched = context.format === 'jsonl' ? await walkPages(context, window, label, ifNoneMatch) : await exportWindow(context, window, label, ifNoneMatch);
    if (fetched.kind !== 'unchanged') {
      const kept = new Set(fetched.kind === 'pulled' ? fetched.files.map((file) => file.file) : []);
      discard(context, { files: replacing.filter((file) => !kept.has(file.file)) });
    }
    return fetched;
  } catch (error) {
    // An export past the cap is halved.
    if (error instanceof BodyTooLarge && error.exporting) return { kind: 'too-large' };
    throw unreadAnswer(error);
  }
}

/**
 * What an answer refused before it was read (summary-api.ts: a coding not asked for, a body past
 * its cap, a document too costly to parse) means for the pull: the window fails, or (an answer that
 * large to a refusal) the pull stops. Anything else is returned as it is.
 */
export function unreadAnswer(error: unknown): unknown {
  if (error instanceof UnsafeDocument) return new WindowFailure(error.message);
  if (error instanceof UnaskedCoding) return new WindowFailure(`the service answered in the ${printable(error.coding)} coding, which this client did not ask for (it asks for identity on exports, gzip on pages): refused before reading it`);
  if (!(error instanceof BodyTooLarge)) return error;
  if (isPermanent(error.status, '')) return new PullStopped(`the service refuses this pull (${error.status}, with an answer of more than ${error.limit} bytes), whatever the window: check SUMMARY_BASE_URL and the keys`);
  return new WindowFailure(error.status < 300 ? `a page is larger than ${error.limit} bytes: use a smaller --page-size` : `the service answered ${error.status} with more than ${error.limit} bytes`);
}

/** A 412 RESULT_UNCHANGED: the result's schema and the time it was found unchanged. */
function unchanged(response: Response): Fetched {
  const { schema, asOf } = validatorsOf(response);
  return { kind: 'unchanged', schema, asOf };
}

function windowFilters(context: FetchContext, window: Window): Filters {
  const members = dateMembers(context.by);
  return { ...context.filters, [members.from]: window.from, [members.to]: window.to };
}

/** Calls with retries; a network failure that outlasts them, or the call's deadline, stops the pull. */
export async function call<T extends { response: Response }>(context: FetchContext, send: (signal: AbortSignal) => Promise<T>, stop?: AbortSignal): Promise<T> {
  try {
    return await withRetry(send, context.retry, context.onRetry, undefined, stop);
  } catch (error) {
    if (error instanceof DeadlinePassed) throw new Unreachable(`the service gave ${error.message}: try again later, or raise SUMMARY_DEADLINE_SECONDS for a slow link`);
    if (error instanceof Stalled) throw new Unreachable(`the service was silent: ${error.message}`);
    if (!(error instanceof TypeError)) throw error;
    const permanent = permanentNetworkFailure(error);
    if (permanent) throw new PullStopped(`${permanent} (${networkCause(error)})`);
    throw new Unreachable(networkCause(error));
  }
}

async function exportWindow(context: FetchContext, window: Window, label: string, ifNoneMatch: string | undefined): Promise<Fetched> {
  const result = await call(context, (signal) => context.api.export(context.dataset, windowFilters(context, window), ifNoneMatch, signal));
  const requestId = result.response.headers.get('x-request-id') ?? '';
  if (isUnchanged(result.response, result.error)) return unchanged(result.response);
  if (!result.data) return refusal(result.response, result.error, requestId);
  const files = writeParquetFiles(context, label, unpack(context.dataset, new Uint8Array(result.data), context.api.maxExportBytes, requestId), requestId);
  // A row of the dataset is a row of its first table (invoices: not their lines).
  const rows = files[0]!.rows;
  const bytes = files.reduce((total, file) => total + file.bytes, 0);
  context.onProgress(rows, bytes);
  return { kind: 'pulled', ...validatorsOf(result.response), confirmed: false, rows, bytes, files, requestIds: [requestId] };
}

/**
 * An answer that is not the data: a window too large for one answer is halved; what no window
 * could change stops the pull; the rest (retries spent) fails the window.
 */
export function refusal(response: Response, error: unknown, requestId: string): { kind: 'too-large' } {
  const code = problemCode(error);
  if ((response.status === 413 && code === 'RESULT_TOO_LARGE') || (response.status === 400 && code === 'RESULT_WINDOW_EXCEEDED')) return { kind: 'too-large' };
  const problem = error as Partial<Problem> | undefined;
  const detail = typeof problem?.detail === 'string' ? `: ${printable(problem.detail)}` : '';
  const said = `${response.status} ${printable(code)}${detail} (request ${printable(requestId) || 'without id'})`;
  if (isPermanent(response.status, code)) throw new PullStopped(`the service refuses this pull (${said}), whatever the window: ${remedy(response.status, code)}. Nothing was pulled after this`);
  const retryAfter = response.headers.get('retry-after')?.trim();
  const wait = retryAfter && (/^\d+$/.test(retryAfter) ? `${retryAfter} s` : `until ${printable(retryAfter, 64)}`);
  const later = wait && (response.status === 429 || response.status === 503) ? ` (the service asks to retry after ${wait}, beyond --max-retry-wait or the attempts)` : '';
  const failed = response.status === 500 ? ': the service failed on this request (asking again fails alike): report the request id to the service owners' : '';
  throw new WindowFailure(`${said}${later}${failed}`, requestId);
}

/** The Parquet files of an export: the file itself, or the expected entries of its zip, each capped. */
export function unpack(dataset: DatasetName, bytes: Uint8Array, cap: number, requestId: string): { table: string; bytes: Uint8Array }[] {
  const entries = DATASETS[dataset].zipEntries;
  if (entries === null) return [{ table: dataset, bytes }];
  const expected: readonly string[] = entries;
  const shape = zipShapeProblem(bytes);
  if (shape) throw new WindowFailure(`the export is refused before it is unpacked: ${shape}`, requestId);
  let files: Record<string, Uint8Array>;
  try {
    // Only the two expected entries are taken, each within its declared size, itself capped.
    files = unzipSync(bytes, {
      // The service stores its entries (Parquet is compressed already): one that would have to be
      // inflated is refused, as inflating is what a zip bomb needs; a stored one is taken as it is.
      filter: (entry) => {
        if (!expected.includes(entry.name)) return false;
        if (entry.compression !== 0) throw new WindowFailure(`the export's ${entry.name} is compressed (zip method ${entry.compression}); the service stores its entries, and this client inflates none`, requestId);
        if (entry.originalSize > cap || entry.size !== entry.originalSize) throw new WindowFailure(`the export's ${entry.name} declares ${entry.originalSize} bytes (${entry.size} stored), more than SUMMARY_MAX_EXPORT_BYTES (${cap}) or not what is stored`, requestId);
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
 * Writes a window's Parquet files hidden: each is checked first as every reader of the folder would
 * open it (decoded-size.ts: its footer, its pages, what it decodes to); a file that fails the check
 * fails the window, and never enters the folder.
 */
function writeParquetFiles(context: FetchContext, label: string, parts: readonly { table: string; bytes: Uint8Array }[], requestId: string): ManifestFile[] {
  const files = parts.map(({ table, bytes }) => {
    const file = dataFile(context.dataset, table, label, 'parquet');
    let checked: CheckedParquet;
    try {
      checked = checkParquet(bytes);
    } catch (error) {
      if (!(error instanceof UnsafeParquet)) throw error;
      throw new WindowFailure(`${file}: the service sent a file that no reader of the folder should open: ${printable(error.message)}`, requestId);
    }
    return { file, rows: checked.rows, bytes: bytes.byteLength, sha256: sha256(bytes) };
  });
  const written: string[] = [];
  try {
    for (const [index, { bytes }] of parts.entries()) {
      const path = join(context.out, partialFile(files[index]!.file));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, bytes);
      written.push(path);
    }
  } catch (error) {
    for (const path of written) rmSync(path, { force: true });
    throw new WindowFailure(`cannot write into ${context.out}: ${(error as Error).message}`, requestId);
  }
  return files;
}

/**
 * Walks every JSON page of a window into `<dataset>-<label>.jsonl`, one record per line, written
 * hidden; the first page is the conditional one, and the file is opened with it, so an unchanged
 * or refused window leaves nothing.
 */
async function walkPages(context: FetchContext, window: Window, label: string, ifNoneMatch: string | undefined): Promise<Fetched> {
  const name = dataFile(context.dataset, context.dataset, label, 'jsonl');
  const partial = join(context.out, partialFile(name));
  const hash = createHash('sha256');
  const requestIds: string[] = [];
  let rows = 0;
  let bytes = 0;
  let validators = { etag: '', schema: '', asOf: '' };
  let more = false;
  let file: FileHandle | undefined;
  try {
    let announced = Number.POSITIVE_INFINITY;
    let previous = '';
    // Never past the pages the first answer announced: a server that says hasNext forever ends here.
    for (let page = 1; page <= announced; page++) {
      const filters = { ...windowFilters(context, window), page, pageSize: context.pageSize };
      const result = await call(context, (signal) => context.api.page(context.dataset, filters, page === 1 ? ifNoneMatch : undefined, signal));
      const requestId = result.response.headers.get('x-request-id') ?? '';
      if (page === 1 && isUnchanged(result.response, result.error)) return unchanged(result.response);
      if (!result.data) {
        await file?.close();
        rmSync(partial, { force: true });
        return refusal(result.response, result.error, requestId);
      }
      if (!isPage(result.data)) throw new WindowFailure(`page ${page} is not a summary page (data and pagination with whole totalPages and a hasNext)`, requestId);
      const { data, pagination } = result.data;
      // A later page that names another result (the data changed, and its cursor was lost) is
      // caught by the confirmation: the walk's ETag is the first page's.
      if (page === 1) {
        // What a server may make it walk: the pages its own count needs, and never more than
        // MAX_WALK_RECORDS' worth, whatever totalPages says.
        announced = Math.min(pagination.totalPages, Math.ceil(pagination.totalRecords / context.pageSize), Math.ceil(MAX_WALK_RECORDS / context.pageSize));
        validators = validatorsOf(result.response);
      }
      if (pagination.hasNext && data.length === 0) throw new WindowFailure(`page ${page} is empty but says there is more: the service does not move through the pages`, requestId);
      requestIds.push(requestId);
      more = pagination.hasNext;
      const text = data.map((record) => `${JSON.stringify(record)}\n`).join('');
      if (text !== '' && text === previous) throw new WindowFailure(`page ${page} repeats page ${page - 1}: the service does not move through the pages`, requestId);
      previous = text;
      const encoded = Buffer.from(text, 'utf8');
      try {
        if (!file) {
          mkdirSync(dirname(partial), { recursive: true });
          file = await open(partial, 'w');
        }
        await file.write(encoded);
      } catch (error) {
        throw new WindowFailure(`cannot write ${partial}: ${(error as Error).message}`, requestId);
      }
      hash.update(encoded);
      rows += data.length;
      bytes += encoded.byteLength;
      context.onProgress(data.length, encoded.byteLength);
      if (!pagination.hasNext) {
        if (page < announced) throw new WindowFailure(`the walk stopped at page ${page} of ${announced}: ${printable(result.data.meta?.warning ?? 'no next page')}`, requestId);
        break;
      }
    }
    await file?.close();
  } catch (error) {
    await file?.close().catch(() => {});
    rmSync(partial, { force: true });
    throw error;
  }
  if (more && requestIds.length >= Math.ceil(MAX_WALK_RECORDS / context.pageSize)) {
    discard(context, { files: [{ file: name }] });
    throw new WindowFailure(`the window has more than ${MAX_WALK_RECORDS} records, more than one walk takes: narrow it with --filter, or pull it as Parquet (--format parquet)`, requestIds.at(-1));
  }
  const grew = more ? { grewPast: requestIds.length } : {};
  // An empty window has no file: an empty .jsonl trips some readers.
  if (rows === 0) {
    rmSync(partial, { force: true });
    return { kind: 'pulled', ...validators, confirmed: false, rows, bytes, files: [], requestIds, ...grew };
  }
  return { kind: 'pulled', ...validators, confirmed: false, rows, bytes, files: [{ file: name, rows, bytes, sha256: hash.digest('hex') }], requestIds, ...grew };
}

/** The most records one window's walk takes (a month past it fails, naming --filter and Parquet). */
const MAX_WALK_RECORDS = 10_000_000;

/** Whether a 200 answer is a page the walk can go by. */
function isPage(value: unknown): value is Page {
  const page = value as Partial<Page> | null;
  const pagination = page?.pagination as Partial<Page['pagination']> | undefined;
  return Array.isArray(page?.data) && Number.isSafeInteger(pagination?.totalPages) && pagination!.totalPages! >= 0
    && Number.isSafeInteger(pagination?.totalRecords) && pagination!.totalRecords! >= 0 && typeof pagination?.hasNext === 'boolean';
}
