import { ApiError } from '../errors/api-error.js';
import { toProblem, type ProblemDocument } from '../errors/problem-response.js';
import type { ExportJob, WindowOutcome } from '../store/export-jobs.js';
import { isMoving } from '../output/result-etag.js';

/** A job's status document: progress while it runs, the manifest once every window has its outcome. */
export interface JobStatusDocument {
  readonly id: string;
  readonly resource: string;
  readonly status: 'running' | 'completed';
  /** The request as understood: the filters and order, the whole range. */
  readonly request: Readonly<Record<string, string>>;
  readonly transactionTime: string;
  readonly expires: string;
  /** X-Summary-Schema of the files' columns. */
  readonly schema: string;
  readonly progress: { readonly windows: number; readonly done: number; readonly failed: number };
  /**
   * Once completed, when any window failed: what a caller (or a generic poller's) sees without
   * walking the windows. The job is `completed` all the same: every window has its outcome, and
   * the others' files are listed.
   */
  readonly problem?: ProblemDocument;
  readonly windows: readonly ManifestWindow[];
  /** Once completed: the windows' files in one list, each with its window and its place among its table's files. */
  readonly files?: readonly ManifestFile[];
}

/** One file of a completed job, in its flat list. */
export type ManifestFile = NonNullable<ManifestWindow['files']>[number] & { readonly window: string; readonly part: number };

/** One window in a status document. */
export interface ManifestWindow {
  readonly label: string;
  readonly from: string;
  readonly to: string;
  readonly status: 'pending' | WindowOutcome['status'];
  readonly etag?: string;
  readonly records?: number;
  readonly files?: readonly { readonly table: string; readonly url: string; readonly records: number; readonly bytes: number; readonly sha256: string }[];
  readonly problem?: WindowOutcome['problem'];
  /** An exported window whose records were still being written when it was read (isMoving): its ETag matches nothing, so the next job exports it again. */
  readonly moving?: true;
}

/** Whether every window of the job has its outcome. */
export function isComplete(job: ExportJob, outcomes: readonly WindowOutcome[]): boolean {
  const labels = new Set(outcomes.map((outcome) => outcome.label));
  return job.windows.every((window) => labels.has(window.label));
}

/**
 * The status document of a job: every window in order with its outcome so far; once complete,
 * each exported window's files with their URLs (`urls`: blob name → read-only URL).
 *
 * @example
 * jobStatus(job, outcomes, urls).windows[0]; // { label: '2025-01', from, to, status: 'exported', etag, records, files: [{ table, url, records, bytes, sha256 }] }
 */
export function jobStatus(job: ExportJob, outcomes: readonly WindowOutcome[], urls?: ReadonlyMap<string, string>): JobStatusDocument {
  const byLabel = new Map(outcomes.map((outcome) => [outcome.label, outcome]));
  const complete = isComplete(job, outcomes);
  const windows = windowsOf(job, byLabel, urls);
  const failed = windows.filter((window) => window.status === 'failed').map((window) => window.label);
  return {
    id: job.id,
    resource: job.resource,
    status: complete ? 'completed' : 'running',
    request: job.request,
    transactionTime: job.transactionTime,
    expires: job.expires,
    schema: job.schema,
    progress: { windows: job.windows.length, done: job.windows.filter((window) => byLabel.has(window.label)).length, failed: failed.length },
    ...(complete && failed.length > 0 ? { problem: windowsFailed(job, failed) } : {}),
    windows,
    ...(urls ? { files: windows.flatMap((window) => (window.files ?? []).map((file, index, all) => ({ window: window.label, part: all.slice(0, index).filter((other) => other.table === file.table).length, ...file }))) } : {}),
  };
}

/** The job-level problem of a completed job some of whose windows failed. */
function windowsFailed(job: ExportJob, failed: readonly string[]): ProblemDocument {
  const error = new ApiError('EXPORT_WINDOW_FAILED', `${failed.length} of the job's ${job.windows.length} windows failed (${failed.join(', ')}): they have no files here, and each says why in its problem. The other windows are complete. Start a new job for the failed months, or pull them with the summary operation.`);
  return toProblem(error, `export-${job.id}`);
}

function windowsOf(job: ExportJob, byLabel: ReadonlyMap<string, WindowOutcome>, urls: ReadonlyMap<string, string> | undefined): ManifestWindow[] {
  return job.windows.map((window): ManifestWindow => {
    const outcome = byLabel.get(window.label);
    if (!outcome) return { ...window, status: 'pending' };
    return {
      ...window,
      status: outcome.status,
      ...(outcome.etag === undefined ? {} : { etag: outcome.etag }),
      records: outcome.records,
      ...(urls ? { files: outcome.files.map(({ blob, ...file }) => ({ table: file.table, url: urls.get(blob)!, records: file.records, bytes: file.bytes, sha256: file.sha256 })) } : {}),
      ...(outcome.problem ? { problem: outcome.problem } : {}),
      ...(outcome.status === 'exported' && outcome.checked && isMoving(outcome.checked.latestWrite, outcome.checked.takenAt) ? { moving: true as const } : {}),
    };
  });
}
