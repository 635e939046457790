/**
 * The service's two operations through openapi-fetch, typed by api.ts (generated from
 * openapi/openapi.json): the three credentials go on every request, failures come back as the
 * problem document.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';
import type { ClientSettings } from './settings.js';
import { SummaryClientError } from './client-error.js';
import { DATASETS, type DatasetName } from './datasets.js';
import { jsonShapeProblem } from './document-shape.js';
import { Stalled } from './retry.js';

export { Stalled } from './retry.js';

export type Problem = components['schemas']['Problem'];
export type Filters = Record<string, string | number>;
/** An export job's status document: progress while it runs, its manifest once completed. */
export type JobStatus = components['schemas']['ExportJobStatus'];
/** One JSON page as the service answers it. */
export type Page = components['schemas']['ContractsEnvelope'] | components['schemas']['InvoicesEnvelope'];
/** One page of a JSON delta. */
export type DeltaPage = components['schemas']['ContractsDeltaPage'] | components['schemas']['InvoicesDeltaPage'];

/** No access token could be had (wrong secret, unreachable or untrusted authority): nothing else can work. */
export class TokenError extends SummaryClientError {
  override readonly name = 'TokenError';
  readonly code = 'TOKEN_REFUSED';
}

/** An answer's body was larger than the client takes: an export (SUMMARY_MAX_EXPORT_BYTES), else a page or problem (MAX_DOCUMENT_BYTES). */
export class BodyTooLarge extends Error {
  override readonly name = 'BodyTooLarge';
  constructor(readonly limit: number, readonly status: number, readonly exporting: boolean) {
    super(`the answer (${status}) is larger than ${limit} bytes`);
  }
}

/**
 * The longest silence taken from a server: before its headers (the service answers within the
 * 230 s of an Azure Functions call) and between two pieces of a body. Past it the request is
 * given up, and retried like one that got no answer.
 */
export const READ_TIMEOUT_MS = 240_000;

/**
 * An answer in a content coding the request did not ask for (an export asks for identity: it is
 * compressed already, and inflating a few KB of br or gzip can make gigabytes): refused before a
 * byte of it is read.
 */
export class UnaskedCoding extends Error {
  override readonly name = 'UnaskedCoding';
  constructor(readonly coding: string, readonly status: number) {
    super(`the answer (${status}) is in the ${coding} coding, which this client did not ask for`);
  }
}

/** The codings a request asked for (`accept-encoding`), identity always among them. */
function askedCodings(request: Request): Set<string> {
  const asked = (request.headers.get('accept-encoding') ?? '').split(',').map((item) => item.split(';')[0]!.trim().toLowerCase()).filter(Boolean);
  return new Set(['identity', ...asked]);
}

/** How long a job's status call asks the service to hold its answer until the job completes (`Prefer: wait`): fewer polls, no wait past completion. */
export const JOB_WAIT_SECONDS = 20;

/** The most a JSON page or a problem document may take: a page of 1000 records is far below it. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

/**
 * The response with its body capped: a declared length past the cap fails at once, a body that
 * grows past it fails as it does, so a broken or hostile server cannot fill this machine's memory.
 * The capped body reads the response's own reader, held by the stream it feeds (a `pipeThrough`
 * pipe can be collected with nothing holding it, and an abort then never reached the reader);
 * `stop`, when it aborts, errors the body at once.
 */
export function capBody(response: Response, limit: number, exporting = false, heard: (done: boolean) => void = () => {}, stop?: AbortSignal): Response {
  const tooLarge = () => new BodyTooLarge(limit, response.status, exporting);
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) {
    heard(true);
    void response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body || [101, 204, 205, 304].includes(response.status)) {
    heard(true);
    return response;
  }
  const reader = response.body.getReader();
  let seen = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      stop?.addEventListener('abort', () => {
        controller.error(stop.reason);
        void reader.cancel(stop.reason).catch(() => {});
      }, { once: true });
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        heard(true);
        controller.close();
        return;
      }
      heard(false);
      seen += value.byteLength;
      if (seen > limit) {
        heard(true);
        controller.error(tooLarge());
        void reader.cancel().catch(() => {});
      } else {
        controller.enqueue(value);
      }
    },
    cancel(reason) {
      heard(true);
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * One request, sent with `fetch(url, init)` and given up by a controller of its own that this
 * call holds until the body is read: when `deadline` aborts, when the server is silent for
 * `readTimeoutMs` (before its headers or within its body), whatever the garbage collector does.
 * (A signal handed to `new Request(…, { signal })` only follows its source weakly: once collected,
 * an abort no longer reached the request, and a trickling server held a pull past its deadline.)
 */
export async function sendRequest(fetchImpl: typeof fetch, request: Request, deadline: AbortSignal | undefined, limits: { readonly maxExportBytes: number; readonly readTimeoutMs: number }): Promise<Response> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onDeadline = () => controller.abort(deadline!.reason);
  // The timers and the deadline's listener hold the controller; `heard(true)` lets both go.
  const heard = (done: boolean) => {
    clearTimeout(timer);
    timer = undefined;
    if (done) deadline?.removeEventListener('abort', onDeadline);
    // Unref'd: a timer holds its callback (and so the controller) all the same, but a run that has
    // ended is not kept alive by a request it gave up.
    else timer = setTimeout(() => controller.abort(new Stalled(limits.readTimeoutMs)), limits.readTimeoutMs).unref();
  };
  controller.signal.addEventListener('abort', () => heard(true), { once: true });
  if (deadline?.aborted) throw deadline.reason;
  deadline?.addEventListener('abort', onDeadline, { once: true });
  heard(false);
  let response: Response;
  try {
    const body = request.body ? await request.arrayBuffer() : undefined;
    // No redirects: the keys would follow one to wherever it points.
    response = await fetchImpl(request.url, { method: request.method, headers: request.headers, ...(body ? { body } : {}), redirect: 'error', signal: controller.signal });
  } catch (error) {
    heard(true);
    throw controller.signal.aborted ? controller.signal.reason : error;
  }
  const coding = response.headers.get('content-encoding')?.trim().toLowerCase() || 'identity';
  if (!askedCodings(request).has(coding)) {
    heard(true);
    void response.body?.cancel().catch(() => {});
    throw new UnaskedCoding(coding.slice(0, 40), response.status);
  }
  heard(false);
  const exporting = response.ok && !request.headers.get('accept')?.includes('json');
  const capped = capBody(response, exporting ? limits.maxExportBytes : MAX_DOCUMENT_BYTES, exporting, heard, controller.signal);
  if (exporting || !capped.body) return capped;
  // A page or a problem is read here, capped, and its structure bounded before anything parses it.
  const text = await capped.text();
  const problem = jsonShapeProblem(text);
  if (problem) throw new UnsafeDocument(response.status, problem);
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** A page or problem document whose structure would cost far more to parse than it weighs (document-shape.ts). */
export class UnsafeDocument extends Error {
  override readonly name = 'UnsafeDocument';
  constructor(readonly status: number, why: string) {
    super(`the service's answer (${status}) is refused before parsing: ${why}`);
  }
}

/** The service's API with the credentials of `settings` on every request. */
export function summaryApi(settings: ClientSettings, fetchImpl: typeof fetch = fetch, readTimeoutMs = READ_TIMEOUT_MS) {
  const api = createClient<paths>({ baseUrl: settings.baseUrl });
  /** Each call sends through sendRequest with its own deadline (never through the Request's signal). */
  const through = (deadline: AbortSignal | undefined) => (request: Request) => sendRequest(fetchImpl, request, deadline, { maxExportBytes: settings.maxExportBytes, readTimeoutMs });
  api.use({
    async onRequest({ request }) {
      const token = await settings.credential.getToken(settings.scope).catch((error: unknown) => {
        throw new TokenError(error instanceof Error ? error.message : String(error));
      });
      if (!token) throw new TokenError('the credential gave no token');
      request.headers.set('authorization', `Bearer ${token.token}`);
      request.headers.set('ocp-apim-subscription-key', settings.subscriptionKey);
      request.headers.set('x-api-key', settings.apiKey);
      return request;
    },
  });
  /**
   * The headers of a call: the format, the codings taken (a JSON page gzip, inflated under the
   * byte cap as it comes; an export identity, as it is compressed already), and the validator of
   * an earlier answer when the call is a check.
   */
  const headers = (accept: string, ifNoneMatch: string | undefined) => ({
    accept, 'accept-encoding': accept.includes('json') ? 'gzip' : 'identity', ...(ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch }),
  });
  return {
    /** The largest export body taken; a zip's entries are capped by it too. */
    maxExportBytes: settings.maxExportBytes,
    /**
     * One JSON page of `dataset` for `filters` (with page and pageSize). With `ifNoneMatch` (an
     * earlier answer's ETag) the service answers 412 RESULT_UNCHANGED while the result still has it;
     * `signal` gives the request up (its deadline).
     */
    page: (dataset: DatasetName, filters: Filters, ifNoneMatch?: string, signal?: AbortSignal) =>
      api.POST(DATASETS[dataset].path, { body: filters as never, headers: headers('application/json', ifNoneMatch), fetch: through(signal) }) as Promise<{ data?: Page; error?: Problem; response: Response }>,
    /**
     * Starts an export job of `dataset` (the service's `/v1/<dataset>/exports`): `body` holds the
     * filters, the whole range and `ifNoneMatch` (window label → ETag). 202 with the job's URL,
     * held up to JOB_WAIT_SECONDS until the job completes (then with Retry-After 0).
     */
    kickOff: (dataset: DatasetName, body: Record<string, unknown>, signal?: AbortSignal) =>
      api.POST(DATASETS[dataset].jobsPath as '/v1/contracts/exports', { body: body as never, headers: { ...headers('application/json', undefined), prefer: `wait=${JOB_WAIT_SECONDS}` }, fetch: through(signal) }) as Promise<{ data?: unknown; error?: Problem; response: Response }>,
    /**
     * A job's status (202, running) or its manifest (200), by the id its kick-off answered: asked of
     * this service's base URL, never of wherever a Location points (the keys go nowhere else). The
     * service may hold the answer up to JOB_WAIT_SECONDS, until the job completes.
     */
    job: (id: string, signal?: AbortSignal) =>
      api.GET('/v1/exports/{id}', { params: { path: { id } }, headers: { ...headers('application/json', undefined), prefer: `wait=${JOB_WAIT_SECONDS}` }, fetch: through(signal) }) as Promise<{ data?: JobStatus; error?: Problem; response: Response }>,
    /**
     * One page of a JSON delta of `dataset` (the service's `/v1/<dataset>/delta`): `body` holds the
     * filters and pageSize, and `deltaToken`, `since` or `deltaPage` (docs/api.md, "Deltas").
     */
    delta: (dataset: DatasetName, body: Record<string, unknown>, signal?: AbortSignal) =>
      api.POST(DATASETS[dataset].deltaPath as '/v1/contracts/delta', { body: body as never, headers: headers('application/json', undefined), fetch: through(signal) }) as Promise<{ data?: DeltaPage; error?: Problem; response: Response }>,
    /** The whole delta of `dataset` as its export's media type (a Parquet file, or a zip of them): `body` as for a JSON delta, without `deltaPage`. */
    deltaExport: (dataset: DatasetName, body: Record<string, unknown>, signal?: AbortSignal) =>
      api.POST(DATASETS[dataset].deltaPath as '/v1/contracts/delta', { body: body as never, headers: headers(DATASETS[dataset].exportType, undefined), parseAs: 'arrayBuffer', fetch: through(signal) }) as Promise<{ data?: ArrayBuffer; error?: Problem; response: Response }>,
    /** The whole export of `dataset` for `filters`: a Parquet file or a zip of them; `ifNoneMatch` as for a page. */
    export: (dataset: DatasetName, filters: Filters, ifNoneMatch?: string, signal?: AbortSignal) =>
      api.POST(DATASETS[dataset].path, { body: filters as never, headers: headers(DATASETS[dataset].exportType, ifNoneMatch), parseAs: 'arrayBuffer', fetch: through(signal) }) as Promise<{ data?: ArrayBuffer; error?: Problem; response: Response }>,
  };
}

export type SummaryApi = ReturnType<typeof summaryApi>;

/**
 * The validators of a 200 or 412: the result's ETag, the fingerprint of its columns (docs:
 * "Validators"), and the time the answer reflects (X-Summary-As-Of: every write before it is in
 * the answer), '' when the service sent none or something that is not a UTC time.
 */
export function validatorsOf(response: Response): { etag: string; schema: string; asOf: string } {
  const asOf = response.headers.get('x-summary-as-of')?.trim() ?? '';
  const valid = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/.test(asOf) && !Number.isNaN(Date.parse(asOf));
  return { etag: response.headers.get('etag') ?? '', schema: response.headers.get('x-summary-schema') ?? '', asOf: valid ? new Date(asOf).toISOString() : '' };
}

/** Whether an answer says the result is unchanged since the ETag the call sent. */
export function isUnchanged(response: Response, error: unknown): boolean {
  return response.status === 412 && (error as { code?: unknown } | undefined)?.code === 'RESULT_UNCHANGED';
}
