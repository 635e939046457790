/**
 * A pull's range through one export job (pull.ts, --via job): the job is started with the ETags
 * of the folder's months, polled to its manifest, and the changed windows' files are downloaded
 * from storage in parallel (DOWNLOADS at a time, in date order) while the passes of
 * pull-passes.ts take each window's answer in order and commit it as they do the windows path's:
 * a window's files hidden first, the manifest, then the files into place. A window the job split
 * into several files per table is pulled the windows way (its months halved as the folder names
 * them); a window the job failed fails. Each window's asOf is the job's transactionTime: every
 * write before it is in the window's files, downloaded or unchanged.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { downloadFile, FileRefused, UrlRefused, type JobFile } from './download-file.js';
import { askJob, JobGone, startJob, type JobManifest, type JobWindow } from './export-job.js';
import { WindowFailure } from './fetch-window.js';
import { dataFile, partialFile } from './layout.js';
import { listedFiles, type ManifestFile, type ManifestWindow } from './manifest.js';
import type { Unit } from './plan.js';
import type { Answer, WindowSource } from './pull-passes.js';
import type { Rewrite } from './pull-summary.js';
import { expectSchema, SCHEMA_CHANGED, type Run } from './run-state.js';
import { fileLabel, isGrowing, monthWindows, windowLabel, type Window } from './windows.js';

/** Files downloaded at once: storage serves each at its own pace; four keep a link busy without crowding memory. */
export const DOWNLOADS = 4;

/** The longest wait between two status calls, whatever Retry-After says; and the wait when it says nothing. */
export const MAX_POLL_WAIT_MS = 30_000;
export const DEFAULT_POLL_WAIT_MS = 2_000;
/**
 * The shortest wait between two status calls of a running job, whatever Retry-After says: a
 * service (or a gateway) answering 202 with `Retry-After: 0` over and over gets one call a second,
 * each with the token and both keys, not thousands. (The kick-off's own Retry-After is taken as it
 * is: 0 there means the job is complete already.)
 */
export const MIN_POLL_WAIT_MS = 1_000;
/** Status calls of one job at the most: then the run stops, as at its deadline (with Prefer: wait, hours of a running job). */
export const MAX_STATUS_CALLS = 600;

/**
 * The job of a run as its passes' source: its manifest, whether the folder is rewritten, and each
 * range window's answer from the job's files; a window the job cannot answer (split into several
 * files, unchanged for an ETag this run did not send) goes to `fallback`, the service.
 */
export interface JobPass extends WindowSource {
  readonly manifest: JobManifest;
  readonly rewrite: Rewrite | undefined;
}

/**
 * Runs the job of the run's range to its manifest and starts its downloads. Throws JobNotOffered
 * (the run goes the windows way), PullStopped, or WindowFailure (Unreachable: the run stops).
 */
export async function openJob(run: Run, units: readonly Unit[], fallback: WindowSource): Promise<JobPass> {
  const { options, manifest } = run;
  const months = monthWindows(options.from, options.to);
  const older = manifest.schema === undefined && listedFiles(manifest).size > 0;
  const etags: Record<string, string> = {};
  for (const unit of units) {
    const only = unit.parts?.length === 1 ? unit.parts[0]! : undefined;
    if (only?.etag && only.from === unit.window.from && only.to === unit.window.to && months.some((month) => month.from === unit.window.from)) etags[unit.window.month] = only.etag;
  }
  let job = await runJob(run, months, etags);
  let sent: Readonly<Record<string, string>> = etags;
  const rewrite: Rewrite | undefined = older ? 'older-client' : run.schema !== undefined && job.schema !== run.schema ? 'schema' : undefined;
  // A folder rewritten whole needs every window's files in the new columns: none may be unchanged.
  if (rewrite && job.windows.some((window) => window.status === 'unchanged')) {
    sent = {};
    job = await runJob(run, months, sent);
  }
  const downloads = startDownloads(run, job, months);
  const answer = (unit: Unit) => answerOf(run, job, downloads, unit, sent);
  return {
    manifest: job,
    rewrite,
    update: (unit) => (answer(unit) ?? (() => fallback.update(unit)))(),
    whole: (unit) => (answer(unit) ?? (() => fallback.whole(unit)))(),
    close: downloads.close,
  };
}

/** Starts a job and polls it to its manifest; a job gone meanwhile (expired, cancelled, another view) is started again, once. */
async function runJob(run: Run, months: readonly Window[], etags: Readonly<Record<string, string>>): Promise<JobManifest> {
  const { context } = run;
  for (let attempt = 1; ; attempt++) {
    const { id, waitMs } = await startJob(context, { from: run.options.from, to: run.options.to }, etags);
    run.observe({ kind: 'job-started', id, windows: months.length, unchangedAsked: Object.keys(etags).length });
    const giveUpAt = run.now() + context.retry.deadlineMs;
    try {
      await run.sleep(Math.min(MAX_POLL_WAIT_MS, waitMs ?? DEFAULT_POLL_WAIT_MS));
      for (let calls = 1; ; calls++) {
        const answer = await askJob(context, id, months);
        if ('transactionTime' in answer) return answer;
        run.observe({ kind: 'job-progress', done: answer.done, windows: answer.windows });
        const wait = Math.max(MIN_POLL_WAIT_MS, Math.min(MAX_POLL_WAIT_MS, answer.waitMs ?? DEFAULT_POLL_WAIT_MS));
        if (run.now() + wait > giveUpAt || calls >= MAX_STATUS_CALLS) {
          const after = calls >= MAX_STATUS_CALLS ? `${calls} status calls` : `${context.retry.deadlineMs / 1000} s (SUMMARY_DEADLINE_SECONDS)`;
          throw new WindowFailure(`the export job ${id} had ${answer.done} of ${answer.windows} windows done after ${after}: run again later`);
        }
        await run.sleep(wait);
      }
    } catch (error) {
      if (!(error instanceof JobGone) || attempt >= 2) throw error;
    }
  }
}

/** One window of the job and its files: downloading, then taken by a pass (or removed by close). */
interface JobEntry {
  readonly window: JobWindow;
  files?: Promise<ManifestFile[]>;
  written: ManifestFile[];
  taken: boolean;
}

/** The job's windows by first day, their files downloading in date order, DOWNLOADS at a time; `close` stops them. */
interface Downloads {
  readonly entries: ReadonlyMap<string, JobEntry>;
  close(): Promise<void>;
}

function startDownloads(run: Run, job: JobManifest, months: readonly Window[]): Downloads {
  const controller = new AbortController();
  const limit = pool(DOWNLOADS);
  const entries = new Map<string, JobEntry>();
  let refreshed: Promise<JobManifest> | undefined;
  /** New URLs for the job's files (a URL storage refused), asked for once per run. */
  const refresh = () => (refreshed ??= (async () => {
    // The run's end gives it up: close() waits for nothing it no longer needs.
    const answer = await askJob(run.context, job.id, months, controller.signal);
    if (!('transactionTime' in answer)) throw new FileRefused('the job is running again');
    return answer;
  })());
  for (const [index, window] of job.windows.entries()) {
    const month = months[index]!;
    const entry: JobEntry = { window, written: [], taken: false };
    entries.set(month.from, entry);
    if (window.status !== 'exported' || !isSingle(window)) continue;
    const label = fileLabel(month, isGrowing(month, run.now()));
    const options = { out: run.out, retry: run.context.retry, maxBytes: run.context.api.maxExportBytes, signal: controller.signal, onRetry: run.context.onRetry };
    const tasks = window.files.map((file) => limit(async () => {
      const target: JobFile = { ...file, file: dataFile(run.options.dataset, file.table, label, 'parquet') };
      let written: ManifestFile;
      try {
        written = await downloadFile(target, options);
      } catch (error) {
        if (!(error instanceof UrlRefused)) throw error;
        // Its URL expired or was revoked mid-run: the job is asked again for a new one.
        let again: JobManifest;
        try {
          again = await refresh();
        } catch (cause) {
          throw new FileRefused(`${target.file}: storage refused its URL, and the job could not give a new one (${(cause as Error).message}): run again`);
        }
        const url = again.windows[index]?.files.find((candidate) => candidate.table === file.table)?.url ?? '';
        written = await downloadFile({ ...target, url }, options);
      }
      entry.written.push(written);
      // A row of the dataset is a row of its first table (invoices: not their lines).
      run.context.onProgress(file.table === window.files[0]!.table ? written.rows : 0, written.bytes);
      return written;
    }));
    entry.files = Promise.allSettled(tasks).then((settled) => {
      const failure = settled.find((result) => result.status === 'rejected');
      if (!failure) return settled.map((result) => (result as PromiseFulfilledResult<ManifestFile>).value);
      removeHidden(run, entry.written);
      entry.written = [];
      const reason = failure.reason as unknown;
      if (reason instanceof FileRefused || reason instanceof UrlRefused) throw new WindowFailure(reason.message);
      throw reason;
    });
    // Taken by a pass, or by close(): never a rejection nobody hears.
    entry.files.catch(() => {});
  }
  return {
    entries,
    async close() {
      controller.abort(new FileRefused('the run ended'));
      await Promise.allSettled([...entries.values()].map((entry) => entry.files));
      for (const entry of entries.values()) if (!entry.taken) removeHidden(run, entry.written);
    },
  };
}

/**
 * The job's answer of a window of the range, or undefined: the window is pulled the windows way
 * (split by the job into several files per table, or `unchanged` for an ETag this run did not send).
 */
function answerOf(run: Run, job: JobManifest, downloads: Downloads, unit: Unit, sent: Readonly<Record<string, string>>): (() => Promise<Answer>) | undefined {
  const entry = downloads.entries.get(unit.window.from);
  if (!entry || entry.window.to !== unit.window.to) return undefined;
  const { window } = entry;
  if (window.status === 'exported' && !entry.files) return undefined;
  // Unchanged is the answer to the ETag this run sent for the window, and to nothing else.
  const held = unit.parts?.length === 1 ? unit.parts[0]! : undefined;
  if (window.status === 'unchanged' && (sent[window.label] === undefined || sent[window.label] !== window.etag || held?.etag !== window.etag || held.from !== unit.window.from || held.to !== unit.window.to)) return undefined;
  return async () => {
    if (window.status === 'failed') throw new WindowFailure(`the export job failed this window: ${window.problem}`, `export-${job.id}`);
    if (!expectSchema(run, job.schema)) return SCHEMA_CHANGED;
    if (window.status === 'unchanged') return { kind: 'unchanged', kept: [{ ...withoutMoving(held!), asOf: job.transactionTime }] };
    const files = await entry.files!;
    for (const file of files) run.staged.add(file.file);
    entry.taken = true;
    const pulled: ManifestWindow = {
      window: windowLabel(unit.window), from: unit.window.from, to: unit.window.to, status: 'done', etag: window.etag, asOf: job.transactionTime,
      // Exported while it was being written: kept as pulled, named, and checked again by the next run (as the windows path does).
      ...(window.moving ? { moving: true as const } : {}),
      // A row of the dataset is a row of its first table (invoices: not their lines).
      rows: files[0]!.rows, bytes: files.reduce((total, file) => total + file.bytes, 0), files,
      requestIds: [`export-${job.id}-${window.label}`], finishedAt: new Date(run.now()).toISOString(),
    };
    return { kind: 'pulled', fresh: [pulled], kept: [], staged: files.map((file) => file.file) };
  };
}

/** Whether a window's files are one per table: the folder names one file per table and window. */
function isSingle(window: JobWindow): boolean {
  return new Set(window.files.map((file) => file.table)).size === window.files.length;
}

function withoutMoving(entry: ManifestWindow): ManifestWindow {
  const { moving: _moving, ...rest } = entry;
  return rest;
}

function removeHidden(run: Run, files: readonly ManifestFile[]): void {
  for (const file of files) rmSync(join(run.out, partialFile(file.file)), { force: true });
}

/** Runs tasks `limit` at a time, in the order they were given. */
function pool(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: (() => void)[] = [];
  const next = () => {
    while (active < limit && queue.length > 0) {
      active++;
      queue.shift()!();
    }
  };
  return (task) => new Promise((resolve, reject) => {
    queue.push(() => {
      task().then(resolve, reject).finally(() => {
        active--;
        next();
      });
    });
    next();
  });
}
