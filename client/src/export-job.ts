/**
 * An export job as a pull sees it (docs/api.md, "Export jobs"): started with the range, its filters
 * and the ETags the folder holds; polled as its Retry-After says until its manifest; asked again
 * for fresh file URLs. Its manifest is checked before anything of it is used: the windows the
 * range's months are, every file's table, size and digest present, nothing else trusted.
 */
import { isPermanent } from './answers.js';
import { dateMembers, type DatasetName } from './datasets.js';
import { call, PullStopped, refusal, WindowFailure, type FetchContext } from './fetch-window.js';
import { tablesOf } from './layout.js';
import { printable } from './printable.js';
import { problemCode, retryAfterMs } from './retry.js';
import type { JobStatus } from './summary-api.js';
import type { Window } from './windows.js';

/** One window of a completed job, as checked. */
export interface JobWindow {
  readonly label: string;
  readonly from: string;
  readonly to: string;
  readonly status: 'exported' | 'unchanged' | 'failed';
  readonly etag: string;
  readonly records: number;
  readonly files: readonly { readonly table: string; readonly url: string; readonly records: number; readonly bytes: number; readonly sha256: string }[];
  /** Why it failed, said by the service. */
  readonly problem?: string;
  /** Exported while its records were still being written: its ETag matches nothing (the next run checks it again). */
  readonly moving?: true;
}

/** A completed job's manifest, as checked. */
export interface JobManifest {
  readonly id: string;
  /** Every write before it is in the job's files (and in the folder's files of its unchanged windows). */
  readonly transactionTime: string;
  readonly schema: string;
  readonly windows: readonly JobWindow[];
}

/** The service takes no export job for this pull (an older service, no export storage, a range past its jobs' length): pulled window by window. */
export class JobNotOffered extends Error {
  override readonly name = 'JobNotOffered';
}

/** The job is gone (expired, cancelled) or was started for a view the caller no longer has. */
export class JobGone extends Error {
  override readonly name = 'JobGone';
}

/** The job's id in a Location (absolute, or relative as `../exports/<id>`): 32 hex digits after `exports/`. */
export const JOB_LOCATION = /(?:^|\/)exports\/([0-9a-f]{32})$/;

/** Starts a job of `range`, sending `ifNoneMatch` (window label → ETag); resolves with its id and the wait its Retry-After asks for before the first status call. */
export async function startJob(context: FetchContext, range: { readonly from: string; readonly to: string }, ifNoneMatch: Readonly<Record<string, string>>): Promise<{ id: string; waitMs: number | undefined }> {
  const members = dateMembers(context.by);
  const body = { ...context.filters, [members.from]: range.from, [members.to]: range.to, ...(Object.keys(ifNoneMatch).length > 0 ? { ifNoneMatch } : {}) };
  const result = await call(context, (signal) => context.api.kickOff(context.dataset, body, signal));
  const { response } = result;
  const requestId = response.headers.get('x-request-id') ?? '';
  if (response.status === 202) {
    const location = response.headers.get('location') ?? '';
    const id = JOB_LOCATION.exec(location.split(/[?#]/)[0]!)?.[1];
    if (!id) throw new JobNotOffered(`the service answered the job's kick-off without a job's Location (${printable(location, 80) || 'none'})`);
    return { id, waitMs: retryAfterMs(response.headers.get('retry-after')) };
  }
  const code = problemCode(result.error);
  if (response.status === 404 || response.status === 405) throw new JobNotOffered('the service offers no export jobs (an older service, or one without export storage)');
  const errors = (result.error as { errors?: { code?: unknown }[] } | undefined)?.errors;
  if (response.status === 400 && Array.isArray(errors) && errors.some((error) => error?.code === 'DATE_RANGE_TOO_LONG')) throw new JobNotOffered('the range is longer than one export job of the service may be');
  if (isPermanent(response.status, code)) refusal(response, result.error, requestId);
  throw new JobNotOffered(`the service could not start a job (${response.status} ${printable(code)})`);
}

/**
 * Asks for the job once: its manifest when completed, else its progress (and the wait its
 * Retry-After asks for). JobGone for a job that is no more (404) or no longer the caller's view (409).
 * `stop` gives the call up (its reason thrown) when the run ends first.
 */
export async function askJob(context: FetchContext, id: string, expected: readonly Window[], stop?: AbortSignal): Promise<JobManifest | { readonly done: number; readonly windows: number; readonly waitMs: number | undefined }> {
  const result = await call(context, (signal) => context.api.job(id, signal), stop);
  const { response } = result;
  const code = problemCode(result.error);
  if (response.status === 404 || (response.status === 409 && code === 'EXPORT_VIEW_CHANGED')) throw new JobGone(`the export job ${id} is gone (${response.status} ${printable(code)})`);
  if (response.status !== 200 && response.status !== 202) {
    refusal(response, result.error, response.headers.get('x-request-id') ?? '');
    throw new WindowFailure(`the service answered ${response.status} about the export job`);
  }
  const status = result.data as Partial<JobStatus> | undefined;
  if (response.status === 202) {
    const progress = status?.progress;
    return { done: Number(progress?.done) || 0, windows: Number(progress?.windows) || expected.length, waitMs: retryAfterMs(response.headers.get('retry-after')) };
  }
  return checkManifest(status, id, context.dataset, expected);
}

/**
 * The manifest if this pull can take it, else PullStopped: a service that answers something else
 * than it was asked (other windows, a table it has no folder for, a file without size or digest)
 * is not guessed at.
 */
function checkManifest(value: Partial<JobStatus> | undefined, id: string, dataset: DatasetName, expected: readonly Window[]): JobManifest {
  const refuse = (why: string): never => {
    throw new PullStopped(`the export job's manifest is refused (${why}): nothing of it was used. Run again with --via windows, and report it to the service owners`);
  };
  if (value?.status !== 'completed' || value.id !== id) refuse('it is not the completed job asked for');
  if (typeof value!.transactionTime !== 'string' || Number.isNaN(Date.parse(value!.transactionTime))) refuse('it has no transactionTime');
  if (typeof value!.schema !== 'string' || value!.schema === '') refuse('it has no schema');
  const windows = value!.windows;
  if (!Array.isArray(windows) || windows.length !== expected.length) refuse(`it lists ${Array.isArray(windows) ? windows.length : 'no'} windows, the range has ${expected.length}`);
  const tables = tablesOf(dataset, 'parquet');
  const checked = windows!.map((window, index): JobWindow => {
    const want = expected[index]!;
    if (window?.from !== want.from || window.to !== want.to || window.label !== want.month) refuse(`window ${index + 1} is not ${want.from}..${want.to}`);
    if (window.status !== 'exported' && window.status !== 'unchanged' && window.status !== 'failed') refuse(`${want.month} has status ${printable(String(window.status), 20)}`);
    if (window.status !== 'failed' && (typeof window.etag !== 'string' || window.etag === '')) refuse(`${want.month} has no ETag`);
    const files = window.status === 'exported' ? window.files : [];
    if (!Array.isArray(files)) refuse(`${want.month} lists no files`);
    for (const file of files!) {
      if (!tables.includes(file?.table)) refuse(`${want.month} lists a file of table ${printable(String(file?.table), 40)}, not one of ${tables.join(', ')}`);
      if (typeof file.url !== 'string' || !Number.isSafeInteger(file.bytes) || file.bytes < 0 || !Number.isSafeInteger(file.records) || file.records < 0 || !/^[0-9a-f]{64}$/.test(String(file.sha256))) {
        refuse(`${want.month} lists a file without its URL, size, rows or sha256`);
      }
    }
    if (window.status === 'exported' && !tables.every((table) => files!.some((file) => file.table === table))) refuse(`${want.month} lacks a table`);
    const problem = window.problem as { detail?: unknown } | undefined;
    return {
      label: want.month, from: want.from, to: want.to, status: window.status as JobWindow['status'], etag: window.etag ?? '', records: Number(window.records) || 0, files: files!,
      ...(window.status === 'failed' ? { problem: typeof problem?.detail === 'string' ? printable(problem.detail, 400) : 'the service could not export it' } : {}),
      ...(window.status === 'exported' && window.moving === true ? { moving: true as const } : {}),
    };
  });
  return { id, transactionTime: new Date(value!.transactionTime!).toISOString(), schema: value!.schema!, windows: checked };
}
