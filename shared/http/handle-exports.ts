/**
 * The three export operations over HTTP: kick-off (POST /v1/<resource>/exports), status (GET
 * /v1/exports/{id}) and cancel (DELETE /v1/exports/{id}). Each runs inside the edges every
 * operation shares (serve-request.ts: request id, the three credentials, problem+json, the log line).
 */
import { randomBytes } from 'node:crypto';
import type { HttpRequest } from '@azure/functions';
import type { Principal } from '../auth/authenticate.js';
import { ApiError, faultName } from '../errors/api-error.js';
import type { HttpResult } from './output-stages/output-stage.js';
import { notAcceptable } from './handle-summary.js';
import { negotiateOffer, type Offer } from './negotiate.js';
import { readJsonBody } from './read-json-body.js';
import { baseHeaders } from './response-headers.js';
import { serveRequest } from './serve-request.js';
import type { SummaryEndpoint } from './summary-endpoint.js';
import { mediaTypeOf } from '../model/operation-contract.js';
import { resultAsOf } from '../output/result-etag.js';
import type { AdmittedJob } from '../admission/job-admission.js';
import { PLATFORM_HTTP_LIMIT_SECONDS } from '../config/platform-limit.js';
import type { ExportDeps } from '../exports/export-deps.js';
import type { ExportJob, WindowOutcome } from '../store/export-jobs.js';
import { isComplete, jobStatus } from '../exports/export-manifest.js';
import { CANCEL_NAMES, JOB_ID, kickOffNames, MAX_STATUS_WAIT_SECONDS, STATUS_NAMES, STATUS_POLL_MS, STATUS_RETRY_SECONDS } from '../model/export-operations.js';
import { parseExportRequest, windowQuery } from '../exports/export-request.js';
import { sortWindows, type SortedWindows } from '../exports/check-windows.js';
import { viewChanged } from '../exports/window-view.js';
import type { SummaryDeps } from './summary-deps.js';
import { windowChains } from '../exports/window-chains.js';

const JSON_OFFERS: readonly Offer[] = [{ format: 'json', mediaType: mediaTypeOf('json') }];

/**
 * POST /v1/<resource>/exports: checks the request as the summary operation would, records the
 * job, enqueues one message per window and answers 202 with where to ask for its status. A job is
 * only accepted once every window is enqueued; a kick-off that cannot reach storage answers 503
 * and leaves no job behind.
 */
export async function handleKickOff(endpoint: SummaryEndpoint, deps: ExportDeps, request: HttpRequest): Promise<HttpResult> {
  const summary = endpoint.deps;
  return serveRequest(kickOffNames(endpoint.resource), summary, request, async ({ principal, header, requestId, told, meter }) => {
    negotiateOffer(header('accept'), JSON_OFFERS) ?? notAcceptable(JSON_OFFERS);
    told.format = 'json';
    const body = await readJsonBody({ headers: request.headers, body: request.body });
    const { view, schemaTags } = endpoint.prepare(principal.roles);
    const context = { view, members: endpoint.members, maxPageSize: summary.config.maxPageSize };
    const asked = parseExportRequest({ body, query: new URL(request.url).searchParams, ...context, maxMonths: deps.settings.maxMonths });
    const first = windowQuery(asked, asked.windows[0]!, context);
    const now = summary.clock();
    const job: ExportJob = {
      id: randomBytes(16).toString('hex'),
      tenant: principal.dataTenant,
      clientId: principal.clientId,
      resource: endpoint.resource.name,
      roles: [...principal.roles],
      schema: schemaTags.parquet,
      given: asked.given,
      request: { ...asked.given, orderBy: first.orderBy, order: first.order },
      range: asked.range,
      windows: asked.windows,
      ifNoneMatch: asked.ifNoneMatch,
      createdAt: wholeSecond(now),
      transactionTime: resultAsOf(now),
      expires: wholeSecond(now + deps.settings.jobTtlSeconds * 1000),
      accepted: false,
      cancelled: false,
    };
    await admit(job, deps, now);
    const release = () => deps.jobs.admissions.release([job.id]).catch(() => {});
    await deps.jobs.create(job).catch(async (error: unknown) => {
      await release();
      throw error;
    });
    // The windows sent with an ETag are checked here, all at once (aggregates, no record read:
    // check-windows.ts): those unchanged have their outcome now, and only the others go on the
    // queue, the newest months first (they change most), as a few chains (window-chains.ts) so
    // that another tenant's windows are not queued behind all of this job's. A job of which
    // nothing changed is complete before its kick-off answers.
    let sorted: SortedWindows;
    const accepted: ExportJob = { ...job, accepted: true };
    try {
      sorted = await sortWindows({ job, resource: endpoint, deps: summary, jobs: deps.jobs, requestId, meter });
      // The outcomes known now first: the worker that settles the last window then sees the job complete.
      await Promise.all(sorted.unchanged.map((outcome) => deps.jobs.record(job, outcome)));
      const chains = windowChains({ jobId: job.id, tenant: job.tenant }, sorted.toExport.map((window) => window.label));
      await fromStorage(Promise.all(chains.map((message) => deps.queue.send(message))));
      await deps.jobs.replace(accepted);
    } catch (error) {
      // Never accepted: the caller retries, and what went (outcomes, messages) finds no job to work on.
      await deps.jobs.remove(job.tenant, job.id).catch(() => {});
      await release();
      throw error;
    }
    // From now on it counts the windows it queued, until it is done (markDone releases it) or
    // expires. Should this fail, it stops counting at the end of its kick-off's time: a cap
    // briefly loose, never a client shut out for the job's life by an entry nobody releases.
    await deps.jobs.admissions.update({ jobId: job.id, tenant: job.tenant, clientId: job.clientId, windows: sorted.toExport.length, until: Date.parse(job.expires) })
      .catch((error: unknown) => summary.log.warning(requestId, `the ledger of admitted jobs kept this job's kick-off entry (${faultName(error)}): it counts until ${new Date(now + PLATFORM_HTTP_LIMIT_SECONDS * 1000).toISOString()}`));
    // Prefer: wait=N: the answer waits for the job to complete, as a status call does.
    const outcomes = sorted.toExport.length === 0 ? [...sorted.unchanged] : await outcomesWithin(accepted, deps, preferredWait(header('prefer')), [...sorted.unchanged]);
    const complete = isComplete(accepted, outcomes);
    if (complete) await deps.jobs.markDone(accepted).catch(() => {});
    const location = jobLocation(summary.config.publicBaseUrl, job.id);
    return statusAnswer(202, jobStatus(accepted, outcomes), requestId, { Location: location, 'Content-Location': location, 'Retry-After': complete ? '0' : String(STATUS_RETRY_SECONDS) });
  });
}

/**
 * GET /v1/exports/{id}: 202 with progress while the job runs, 200 with the manifest (a read-only
 * URL per file, expiring with the job) once every window has its outcome; 404 for a job that is
 * not the caller's, was cancelled or has expired.
 */
export async function handleStatus(summary: SummaryDeps, deps: ExportDeps, request: HttpRequest): Promise<HttpResult> {
  return serveRequest(STATUS_NAMES, summary, request, async ({ principal, header, requestId, told }) => {
    negotiateOffer(header('accept'), JSON_OFFERS) ?? notAcceptable(JSON_OFFERS);
    told.format = 'json';
    const job = await callersJob(request, principal, deps);
    checkView(job, principal, deps);
    const wait = preferredWait(header('prefer'));
    const outcomes = await outcomesWithin(job, deps, wait, await deps.jobs.outcomes(job.tenant, job.id));
    // Cancelled or expired while the answer waited: 404, as it would be now.
    if (wait > 0) await callersJob(request, principal, deps);
    if (!isComplete(job, outcomes)) {
      return statusAnswer(202, jobStatus(job, outcomes), requestId, { 'Retry-After': String(STATUS_RETRY_SECONDS) });
    }
    // A worker that finished last may not have seen the others' outcomes: the job no longer runs.
    await deps.jobs.markDone(job).catch(() => {});
    const blobs = outcomes.flatMap((outcome) => outcome.files.map((file) => file.blob));
    const urls = await fromStorage(deps.files.readUrls(blobs, new Date(job.expires)));
    return statusAnswer(200, jobStatus(job, outcomes, new Map(blobs.map((blob, index) => [blob, urls[index]!]))), requestId, {});
  });
}

/** DELETE /v1/exports/{id}: the job stops (its windows not yet begun are skipped), its files are deleted, a later GET is 404. */
export async function handleCancel(summary: SummaryDeps, deps: ExportDeps, request: HttpRequest): Promise<HttpResult> {
  return serveRequest(CANCEL_NAMES, summary, request, async ({ principal, requestId }) => {
    const job = await callersJob(request, principal, deps);
    await deps.jobs.replace({ ...job, cancelled: true });
    await deps.jobs.markDone(job).catch(() => {});
    // A file left by a failure here is never handed out again (the job is 404) and goes at expiry (the sweep, the lifecycle rule).
    await deps.files.removeAll(`${job.id}/`).catch((error: unknown) => summary.log.warning(requestId, `the files of a cancelled job were not all deleted (${faultName(error)}); they go when the job expires`));
    return statusAnswer(202, { id: job.id, status: 'cancelled' }, requestId, {});
  });
}

/**
 * The job's outcomes once it is complete, or as they are after `seconds` (Prefer: wait=N, RFC 7240:
 * at most MAX_STATUS_WAIT_SECONDS), looked at every STATUS_POLL_MS from `first`.
 */
async function outcomesWithin(job: ExportJob, deps: ExportDeps, seconds: number, first: WindowOutcome[]): Promise<WindowOutcome[]> {
  let outcomes = first;
  const until = performance.now() + seconds * 1000;
  while (!isComplete(job, outcomes) && performance.now() + STATUS_POLL_MS < until) {
    await new Promise((resolve) => setTimeout(resolve, STATUS_POLL_MS));
    outcomes = await deps.jobs.outcomes(job.tenant, job.id);
  }
  return outcomes;
}

/** The seconds a status call may wait for its job (`Prefer: wait=N`), 0 without the preference. */
export function preferredWait(prefer: string | null | undefined): number {
  const asked = /(?:^|[,;\s])wait\s*=\s*"?(\d{1,6})"?/i.exec(prefer ?? '')?.[1];
  return asked === undefined ? 0 : Math.min(Number(asked), MAX_STATUS_WAIT_SECONDS);
}

/**
 * Admits a new job into the ledger (job-admission.ts), atomically with every other kick-off, or
 * 429 TOO_MANY_EXPORT_JOBS naming the cap it would pass. It counts from now: for its kick-off's
 * time, then (`settle`) until it is done, cancelled or expires. A job of the caller's client or
 * tenant that is complete but was never released (its last worker died before it could) is
 * released here first.
 */
async function admit(job: ExportJob, deps: ExportDeps, now: number): Promise<void> {
  const { admissions } = deps.jobs;
  const claim: AdmittedJob = { jobId: job.id, tenant: job.tenant, clientId: job.clientId, windows: job.windows.length, until: now + PLATFORM_HTTP_LIMIT_SECONDS * 1000 };
  let refusal = await admissions.admit(claim, deps.settings.caps, now);
  if (refusal && refusal.scope !== 'service') {
    const theirs = (await admissions.admitted(now)).filter((entry) => entry.tenant === job.tenant && (refusal!.scope === 'tenant' || entry.clientId === job.clientId));
    const finished = await Promise.all(theirs.map(async (entry) => {
      const kept = await deps.jobs.get(entry.tenant, entry.jobId);
      return kept && (kept.cancelled || (kept.accepted && isComplete(kept, await deps.jobs.outcomes(kept.tenant, kept.id)))) ? [entry.jobId] : [];
    }));
    if (finished.flat().length > 0) {
      await admissions.release(finished.flat());
      refusal = await admissions.admit(claim, deps.settings.caps, now);
    }
  }
  if (!refusal) return;
  const whose = { client: 'your client application has', tenant: 'your data tenant has', service: 'the service has' }[refusal.scope];
  const what = refusal.counting === 'jobs' ? `${refusal.running} export jobs running` : `${refusal.running} windows of export jobs queued and this job asks for ${claim.windows} more`;
  const advice = refusal.scope === 'client'
    ? 'Wait for one of your jobs to complete, or cancel one (DELETE its status URL), then start this one again.'
    : 'Start this job again later (Retry-After), or with a shorter range.';
  throw new ApiError('TOO_MANY_EXPORT_JOBS', `This job cannot start now: ${whose} ${what}, and may have at most ${refusal.limit}. ${advice}`, {
    headers: { 'Retry-After': String(refusal.scope === 'client' ? CLIENT_RETRY_SECONDS : BUSY_RETRY_SECONDS) },
  });
}

/** How long a client whose own jobs fill its cap, and a caller refused for its tenant's or the service's, is asked to wait. */
const CLIENT_RETRY_SECONDS = 30;
const BUSY_RETRY_SECONDS = 60;

/** The caller's job named in the path, or 404: another client's or tenant's, cancelled, expired, never accepted and never existing are one answer. */
async function callersJob(request: HttpRequest, principal: Principal, deps: ExportDeps): Promise<ExportJob> {
  const id = request.params.id ?? '';
  const job = JOB_ID.test(id) ? await deps.jobs.get(principal.dataTenant, id) : undefined;
  if (!job || job.clientId !== principal.clientId || !job.accepted || job.cancelled || Date.parse(job.expires) <= deps.results.clock()) {
    throw new ApiError('NOT_FOUND', 'No export job of yours has this id: it was never started by your client application, was cancelled, or has expired. Start a new job.');
  }
  return job;
}

/** The caller sees the job only through the view it was started with: its files hold that view's columns and records. */
function checkView(job: ExportJob, principal: Principal, deps: ExportDeps): void {
  const resource = deps.resources.get(job.resource);
  if (!resource) throw viewChanged();
  const now = resource.prepare(principal.roles);
  const then = resource.prepare(job.roles);
  if (now.schemaTags.parquet !== job.schema || then.schemaTags.parquet !== job.schema || now.view.drafts !== then.view.drafts) throw viewChanged();
}

/** An instant as the contract writes times: ISO 8601 UTC, whole seconds (rounded down). */
function wholeSecond(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function statusAnswer(status: number, document: unknown, requestId: string, headers: Record<string, string>): HttpResult {
  return { status, headers: { ...baseHeaders(`${mediaTypeOf('json')}; charset=utf-8`, requestId), ...headers }, body: Buffer.from(JSON.stringify(document)), records: 0 };
}

/**
 * Where a job's status is: absolute on the public base URL; without one, relative to the kick-off's
 * own URL (`…/v1/<resource>/exports` → `…/v1/exports/<id>`), never built from the request's Host.
 */
function jobLocation(publicBaseUrl: string | undefined, id: string): string {
  return publicBaseUrl === undefined ? `../exports/${id}` : `${publicBaseUrl}/v1/exports/${id}`;
}

/** An export storage call: its faults are 503 STORAGE_UNAVAILABLE with Retry-After. */
async function fromStorage<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw storageUnavailable(error);
  }
}

function storageUnavailable(error: unknown): ApiError {
  return new ApiError('STORAGE_UNAVAILABLE', 'The export storage is unavailable; nothing was started or changed. Retry shortly.', { headers: { 'Retry-After': '10' }, cause: error });
}
