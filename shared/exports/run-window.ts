/**
 * The window worker: one queue message, one window of one job, exported into its files. It reads
 * through the result reader as the synchronous export does (the version and ETag first, the
 * caller's ETag answered as unchanged, an export slot as a guest of its tenant's synchronous
 * exports, the store streamed), renders into files instead of a body, and sends the next window
 * of its chain (window-chains.ts).
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { ApiError } from '../errors/api-error.js';
import { toProblem } from '../errors/problem-response.js';
import { parseIfNoneMatch } from '../http/if-none-match.js';
import { resultReader } from '../http/handlers/result-reader.js';
import type { StoreMeter } from '../store/record-store.js';
import type { SummaryEndpoint } from '../http/summary-endpoint.js';
import type { ExportDeps } from './export-deps.js';
import type { ExportJob, WindowOutcome } from './export-job.js';
import type { WindowMessage } from './export-storage.js';
import { windowQuery } from './export-request.js';
import { nextInChain } from './window-chains.js';
import { writeWindowFiles } from './window-files.js';
import { EXPORT_DEADLINE_MS } from '../http/caller-gone.js';

/**
 * How long one window may take: a synchronous export's deadline. A window never waits for a slot
 * (it is refused one at once), so its whole budget is this, with 30 s of the host's functionTimeout
 * left to record its outcome (held by test/unit/http/platform-limit.test.ts).
 */
export const WINDOW_DEADLINE_MS = EXPORT_DEADLINE_MS;

/**
 * A window refused a slot (its tenant runs one already, or the instance keeps its last slots for
 * requests) comes back after this long: not a failure, and no worker waits for it meanwhile.
 */
export const BUSY_DELAY_SECONDS = 5;

const LABEL = /^\d{4}-\d{2}$/;
const windowMessage = z.object({
  jobId: z.string().min(1).max(64),
  tenant: z.string().min(1).max(63),
  label: z.string().regex(LABEL),
  then: z.array(z.string().regex(LABEL)).max(1000).optional(),
});

/** The message, or undefined for one that is not a window message (dropped: it can never succeed). */
export function readWindowMessage(message: unknown): WindowMessage | undefined {
  const parsed = windowMessage.safeParse(typeof message === 'string' ? parseJson(message) : message);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Exports one window, then sends the next of its chain. Idempotent: a window with an outcome is
 * not redone (its chain goes on), and a window's files are deleted before it is written, so a
 * redelivered message that redoes a window leaves nothing of what a worker that died wrote. A job
 * that is gone, cancelled or expired is not worked on (its chains end). A window refused a slot
 * goes back on the queue for BUSY_DELAY_SECONDS, within the job's life. Throws for a fault worth
 * retrying (the store, storage): the host delivers the message again, and after its last attempt
 * the poison handler records the window as failed.
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
  const endpoint = deps.endpoints.get(job.resource);
  // A resource no longer served: the window fails (its chain goes on), as for a view that changed.
  if (!endpoint) return void (await settle(job, message, failed(window.label, viewChanged(), requestId), deps));
  const summary = endpoint.deps;
  const started = performance.now();
  const meter: StoreMeter = { documents: 0, requestCharge: 0 };
  // One log line per window worked on, as per request: what it read, wrote and came to.
  const logWindow = (status: number, code: string | null, records: number, bytes: number) => summary.log.request({
    requestId, clientRequestId: null, operation: `${job.resource}.exports.window`, clientId: job.clientId, dataTenant: job.tenant, status, code, reason: null,
    durationMs: Math.round((performance.now() - started) * 10) / 10, records, bytes,
    storeDocuments: meter.documents, requestCharge: Math.round(meter.requestCharge * 100) / 100,
  });
  let outcome: WindowOutcome;
  // Each try writes into a folder of its own: a duplicate delivery running at once never
  // overwrites or deletes the files of the try whose outcome is recorded.
  const tryFolder = `${windowFolder(job, window.label)}${randomBytes(4).toString('hex')}/`;
  try {
    const { reader, cleaning, query } = windowReader(job, window, endpoint, requestId, meter);
    const expires = new Date(job.expires);
    const read = await reader.whole((records, signal) => writeWindowFiles(records, cleaning, {
      prefix: tryFolder,
      partBytes: summary.config.parquetMaxBytes,
      signal,
      metadata: [
        { key: 'summary.requestId', value: requestId },
        { key: 'summary.generatedAt', value: new Date(summary.clock()).toISOString() },
        { key: 'summary.resource', value: query.resource.name },
        { key: 'summary.filters', value: JSON.stringify(query.given) },
      ],
      write: (blob, chunks) => deps.files.write(blob, chunks, expires),
    }), { deadlineMs: WINDOW_DEADLINE_MS, background: true });
    // Cancelled while it ran: its files go, as the cancel deleted the others'.
    if ((await deps.jobs.get(job.tenant, job.id))?.cancelled !== false) return void (await deps.files.removeAll(windowFolder(job, window.label)));
    const { etag, version, takenAt } = read.validators;
    outcome = { label: window.label, status: 'exported', etag, records: read.rendered.records, files: read.rendered.files, checked: { ...version, takenAt } };
    logWindow(200, null, outcome.records, outcome.files.reduce((total, file) => total + file.bytes, 0));
  } catch (error) {
    if (error instanceof ApiError && error.code === 'RESULT_UNCHANGED') {
      outcome = { label: window.label, status: 'unchanged', etag: error.headers.ETag!, records: 0, files: [] };
      logWindow(412, error.code, 0, 0);
    } else if (error instanceof ApiError && error.code === 'EXPORTS_BUSY') {
      // Its tenant runs a window already, or the slots left are the requests': it comes back later, not a failure.
      logWindow(503, error.code, 0, 0);
      const left = Math.floor((Date.parse(job.expires) - deps.clock()) / 1000);
      return void (await deps.queue.send(message, Math.max(0, Math.min(BUSY_DELAY_SECONDS, left))));
    } else if (error instanceof ApiError && (error.status === 400 || error.status === 409)) {
      // The job's request no longer holds for its view (the configuration changed): redoing it cannot help.
      outcome = failed(window.label, error, requestId);
      logWindow(error.status, error.code, 0, 0);
    } else {
      // Retried: the host delivers the message again, and after its last delivery it is poison.
      logWindow(error instanceof ApiError ? error.status : 500, error instanceof ApiError ? error.code : 'INTERNAL', 0, 0);
      if (!(error instanceof ApiError)) summary.log.fault(requestId, error);
      throw error;
    }
  }
  await settle(job, message, outcome, deps, tryFolder);
}

/**
 * Records a window's outcome, unless another try recorded one first, and goes on with its chain.
 * The try whose outcome is recorded deletes what the others wrote or left (a worker that died
 * mid-window, a duplicate delivery): no other outcome can be recorded after it. One that lost
 * deletes its own files.
 */
async function settle(job: ExportJob, message: WindowMessage, outcome: WindowOutcome, deps: ExportDeps, tryFolder?: string): Promise<void> {
  const recorded = await deps.jobs.record(job, outcome);
  if (recorded) await deps.files.removeAll(windowFolder(job, outcome.label), new Set(outcome.files.map((file) => file.blob)));
  else if (tryFolder) await deps.files.removeAll(tryFolder);
  await goOn(job, message, await deps.jobs.outcomes(job.tenant, job.id), deps);
}

/** Where a window's files are, every try's folder in it. */
function windowFolder(job: ExportJob, label: string): string {
  return `${job.id}/${label}/`;
}

/**
 * The poison handler: a window whose message failed every delivery is recorded as failed (unless
 * a late delivery recorded it meanwhile), so that no job runs for ever.
 */
export async function failWindow(raw: unknown, deps: ExportDeps): Promise<void> {
  const message = readWindowMessage(raw);
  if (!message) return;
  const job = await liveJob(message, deps);
  if (!job || !job.windows.some((window) => window.label === message.label)) return;
  const error = new ApiError('EXPORT_WINDOW_FAILED', `The window ${message.label} could not be exported after every retry (the store or the export storage kept failing). Start a new job for this window, or pull it with the summary operation.`);
  // A late delivery may have recorded it meanwhile: then that outcome stands.
  await settle(job, message, failed(message.label, error, `export-${job.id}-${message.label}`), deps);
}

/** The job of a message, unless it is gone, cancelled or expired. */
async function liveJob(message: WindowMessage, deps: ExportDeps): Promise<ExportJob | undefined> {
  const job = await deps.jobs.get(message.tenant, message.jobId);
  return job && !job.cancelled && Date.parse(job.expires) > deps.clock() ? job : undefined;
}

/**
 * The result reader of one window of a job: the window's query in the view the job was started
 * with (EXPORT_VIEW_CHANGED when the roles now give another), with the caller's ETag for it as the
 * precondition. The worker exports through it; the kick-off checks through it.
 */
export function windowReader(job: ExportJob, window: ExportJob['windows'][number], endpoint: SummaryEndpoint, requestId: string, meter: StoreMeter) {
  const summary = endpoint.deps;
  const { view, cleaning, schemaTags } = endpoint.prepare(job.roles);
  if (schemaTags.parquet !== job.schema) throw viewChanged();
  const query = windowQuery(job, window, { view, members: endpoint.members, maxPageSize: summary.config.maxPageSize });
  const precondition = job.ifNoneMatch[window.label] === undefined ? undefined : parseIfNoneMatch(job.ifNoneMatch[window.label]!);
  const scope = { tenant: job.tenant, view };
  const reader = resultReader({
    scope, cleaning, schemaTags, query, requestId, clientId: job.clientId, meter, deps: summary,
    request: { path: endpoint.names.path, params: new URLSearchParams(), body: undefined },
    ...(precondition ? { precondition } : {}),
  });
  return { reader, cleaning, query, scope, precondition };
}

/**
 * A message's window has its outcome: its chain goes on with the next window that has none, and
 * once every window has one, the job no longer counts against its caps.
 */
async function goOn(job: ExportJob, message: WindowMessage, outcomes: readonly WindowOutcome[], deps: ExportDeps): Promise<void> {
  const labels = new Set(outcomes.map((outcome) => outcome.label));
  const next = nextInChain(message, labels);
  if (next) await deps.queue.send(next);
  if (job.windows.every((window) => labels.has(window.label))) await deps.jobs.markDone(job);
}

function failed(label: string, error: ApiError, requestId: string): WindowOutcome {
  return { label, status: 'failed', records: 0, files: [], problem: toProblem(error, requestId) };
}

/** The caller's view is no longer the one the job was started with. */
export function viewChanged(): ApiError {
  return new ApiError('EXPORT_VIEW_CHANGED', 'The columns your roles show have changed since this job was started (a role was granted or taken away, or the datapoints configuration changed). Start a new job.');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
