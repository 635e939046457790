import { ApiError } from '../errors/api-error.js';
import { toProblem } from '../errors/problem-response.js';
import type { ExportJob, WindowOutcome } from '../store/export-jobs.js';
import type { ExportDeps } from './export-deps.js';
import type { WindowMessage } from './export-storage.js';
import { nextInChain } from './window-chains.js';

/**
 * Records a window's outcome, unless another try recorded one first, and goes on with its chain.
 * The try whose outcome is recorded deletes what the others wrote or left (a worker that died
 * mid-window, a duplicate delivery): no other outcome can be recorded after it. One that lost
 * deletes its own files (`tryFolder`).
 */
export async function settleWindow(job: ExportJob, message: WindowMessage, outcome: WindowOutcome, deps: ExportDeps, tryFolder?: string): Promise<void> {
  const recorded = await deps.jobs.record(job, outcome);
  if (recorded) await deps.files.removeAll(windowFolder(job, outcome.label), new Set(outcome.files.map((file) => file.blob)));
  else if (tryFolder) await deps.files.removeAll(tryFolder);
  await goOn(job, message, await deps.jobs.outcomes(job.tenant, job.id), deps);
}

/**
 * A message's window has its outcome: its chain goes on with the next window that has none, and
 * once every window has one, the job no longer counts against its caps.
 */
export async function goOn(job: ExportJob, message: WindowMessage, outcomes: readonly WindowOutcome[], deps: ExportDeps): Promise<void> {
  const labels = new Set(outcomes.map((outcome) => outcome.label));
  const next = nextInChain(message, labels);
  if (next) await deps.queue.send(next);
  if (job.windows.every((window) => labels.has(window.label))) await deps.jobs.markDone(job);
}

/** Where a window's files are, every try's folder in it. */
export function windowFolder(job: ExportJob, label: string): string {
  return `${job.id}/${label}/`;
}

/** The job of a message, unless it is gone, cancelled or expired. */
export async function liveJob(message: WindowMessage, deps: ExportDeps): Promise<ExportJob | undefined> {
  const job = await deps.jobs.get(message.tenant, message.jobId);
  return job && !job.cancelled && Date.parse(job.expires) > deps.results.clock() ? job : undefined;
}

/** The outcome of a window that failed for good, with its problem. */
export function failedOutcome(label: string, error: ApiError, requestId: string): WindowOutcome {
  return { label, status: 'failed', records: 0, files: [], problem: toProblem(error, requestId) };
}
