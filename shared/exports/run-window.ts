/**
 * The window worker: one queue message, one window of one job, exported into its files. It reads
 * through the result reader as the synchronous export does (the version and ETag first, the
 * caller's ETag answered as unchanged, an export slot as a guest of its tenant's synchronous
 * exports, the store streamed), renders into files instead of a body, records what the window came
 * to, and sends the next window of its chain (settle-window.ts, window-chains.ts).
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import { EXPORT_DEADLINE_MS } from '../config/platform-limit.js';
import { footerMetadata } from '../output/export-parquet.js';
import { readResult, type WholeOutcome } from '../results/result-reader.js';
import type { WindowOutcome } from '../store/export-jobs.js';
import type { StoreMeter } from '../store/record-store.js';
import type { ExportDeps } from './export-deps.js';
import { failedOutcome, goOn, liveJob, settleWindow, windowFolder } from './settle-window.js';
import { writeWindowFiles, type WindowFiles } from './window-files.js';
import { readWindowMessage } from './window-message.js';
import { viewChanged, windowView } from './window-view.js';

/**
 * How long one window may take: a synchronous export's deadline. A window never waits for a slot
 * (it is refused one at once), so its whole budget is this, with 30 s of the host's functionTimeout
 * left to record its outcome (held by test/unit/http/platform-limit.test.ts).
 */
export const WINDOW_DEADLINE_MS = EXPORT_DEADLINE_MS;

/**
 * Exports one window, then sends the next of its chain. Idempotent: a window with an outcome is
 * not redone (its chain goes on), and each try writes into a folder of its own, so a redelivered
 * message that redoes a window leaves nothing of what a worker that died wrote. A job that is
 * gone, cancelled or expired is not worked on (its chains end). A window refused a slot goes back
 * on the queue for as long as the reader says (BUSY_RETRY_SECONDS), within the job's life. Throws
 * for a fault worth retrying (the store, storage, the deadline): the host delivers the message
 * again, and after its last attempt the poison handler records the window as failed.
 */
export async function runWindow(raw: unknown, deps: ExportDeps): Promise<void> {
  const message = readWindowMessage(raw);
  if (!message) return;
  const job = await liveJob(message, deps);
  const window = job?.windows.find((candidate) => candidate.label === message.label);
  if (!job || !window) return;
  const done = await deps.jobs.outcomes(job.tenant, job.id);
  if (done.some((outcome) => outcome.label === window.label)) return goOn(job, message, done, deps);
  const requestId = `export-${job.id}-${window.label}`;
  const { results } = deps;
  const resource = deps.resources.get(job.resource);
  // A resource no longer served: the window fails (its chain goes on), as for a view that changed.
  if (!resource) return settleWindow(job, message, failedOutcome(window.label, viewChanged(), requestId), deps);
  const started = performance.now();
  const meter: StoreMeter = { documents: 0, requestCharge: 0 };
  // One log line per window worked on, as per request: what it read, wrote and came to.
  const logWindow = (status: number, code: string | null, records: number, bytes: number) => results.log.request({
    requestId, clientRequestId: null, operation: `${job.resource}.exports.window`, clientId: job.clientId, dataTenant: job.tenant, status, code, reason: null,
    durationMs: Math.round((performance.now() - started) * 10) / 10, records, bytes,
    storeDocuments: meter.documents, requestCharge: Math.round(meter.requestCharge * 100) / 100,
  });
  /** A fault worth retrying, logged: the host delivers the message again, and after its last delivery it is poison. */
  const retried = (error: unknown): unknown => {
    logWindow(error instanceof ApiError ? error.status : 500, error instanceof ApiError ? error.code : 'INTERNAL', 0, 0);
    if (!(error instanceof ApiError)) results.log.fault(requestId, error);
    return error;
  };
  // Each try writes into a folder of its own: a duplicate delivery running at once never
  // overwrites or deletes the files of the try whose outcome is recorded.
  const tryFolder = `${windowFolder(job, window.label)}${randomBytes(4).toString('hex')}/`;
  let read: WholeOutcome<WindowFiles>;
  try {
    const { input, cleaning, query } = windowView(job, window, resource, results, { requestId, meter });
    const expires = new Date(job.expires);
    read = await readResult(input).whole((records, signal) => writeWindowFiles(records, cleaning, {
      prefix: tryFolder,
      partBytes: results.config.parquetMaxBytes,
      signal,
      metadata: footerMetadata({ requestId, generatedAt: new Date(results.clock()), query }),
      write: (blob, chunks) => deps.files.write(blob, chunks, expires),
    }), { deadlineMs: WINDOW_DEADLINE_MS, background: true });
  } catch (error) {
    if (error instanceof ApiError && (error.status === 400 || error.status === 409)) {
      // The job's request no longer holds for its view (the configuration changed): redoing it cannot help.
      logWindow(error.status, error.code, 0, 0);
      return settleWindow(job, message, failedOutcome(window.label, error, requestId), deps, tryFolder);
    }
    throw retried(error);
  }
  let outcome: WindowOutcome;
  switch (read.kind) {
    case 'records': {
      // Cancelled while it ran: its files go, as the cancel deleted the others'.
      const now = await deps.jobs.get(job.tenant, job.id).catch((error: unknown) => {
        throw retried(error);
      });
      if (now?.cancelled !== false) return deps.files.removeAll(windowFolder(job, window.label));
      const { etag, version, takenAt } = read.validators;
      outcome = { label: window.label, status: 'exported', etag, records: read.rendered.records, files: read.rendered.files, checked: { ...version, takenAt } };
      logWindow(200, null, outcome.records, outcome.files.reduce((total, file) => total + file.bytes, 0));
      break;
    }
    case 'unchanged':
      outcome = { label: window.label, status: 'unchanged', etag: read.validators.etag, records: 0, files: [] };
      logWindow(412, 'RESULT_UNCHANGED', 0, 0);
      break;
    case 'busy': {
      // Its tenant runs a window already, or the slots left are the requests': it comes back later, not a failure.
      logWindow(503, 'EXPORTS_BUSY', 0, 0);
      const left = Math.floor((Date.parse(job.expires) - results.clock()) / 1000);
      return deps.queue.send(message, Math.max(0, Math.min(read.retryAfterSeconds, left)));
    }
    case 'overDeadline':
    case 'gone':
      // No caller to be gone: only the deadline stops a window. Retried, as a store fault is.
      logWindow(503, 'STORE_UNAVAILABLE', 0, 0);
      throw new Error(`the window did not finish within ${WINDOW_DEADLINE_MS / 1000} s: the store was too slow`);
  }
  await settleWindow(job, message, outcome, deps, tryFolder);
}
