/**
 * The service's two operations through openapi-fetch, typed by api.ts (generated from
 * openapi/openapi.json): the three credentials go on every request, failures come back as the
 * problem document.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';
import type { ClientSettings } from './settings.js';
import { DATASETS, type DatasetName } from './datasets.js';

export type Problem = components['schemas']['Problem'];
export type Filters = Record<string, string | number>;
/** One JSON page as the service answers it. */
export type Page = components['schemas']['ContractsEnvelope'] | components['schemas']['InvoicesEnvelope'];

/** No access token could be had (wrong secret, unreachable or untrusted authority): nothing else can work. */
export class TokenError extends Error {
  override readonly name = 'TokenError';
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

/** A server that was silent for READ_TIMEOUT_MS, before its headers or within its body. */
export class Stalled extends Error {
  override readonly name = 'Stalled';
  constructor(readonly ms: number) {
    super(`no byte for ${ms / 1000} s`);
  }
}

/** The most a JSON page or a problem document may take: a page of 1000 records is far below it. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

/**
 * The response with its body capped: a declared length past the cap fails at once, a body that
 * grows past it fails as it does, so a broken or hostile server cannot fill this machine's memory.
 */
export function capBody(response: Response, limit: number, exporting = false, heard: (done: boolean) => void = () => {}): Response {
  const tooLarge = () => new BodyTooLarge(limit, response.status, exporting);
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) {
    heard(true);
    void response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body || [101, 204, 205, 304].includes(response.status)) {
    heard(true);
    return response;
  }
  let seen = 0;
  const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      heard(false);
      seen += chunk.byteLength;
      if (seen > limit) controller.error(tooLarge());
      else controller.enqueue(chunk);
    },
    flush() {
      heard(true);
    },
  }));
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The service's API with the credentials of `settings` on every request. */
export function summaryApi(settings: ClientSettings, fetchImpl: typeof fetch = fetch) {
  const api = createClient<paths>({
    baseUrl: settings.baseUrl,
    // No redirects: the keys would follow one to wherever it points.
    // Silence past READ_TIMEOUT_MS gives the request up; the caller's signal (its deadline) too.
    fetch: async (request) => {
      const silence = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const heard = (done: boolean) => {
        clearTimeout(timer);
        if (!done) timer = setTimeout(() => silence.abort(new Stalled(READ_TIMEOUT_MS)), READ_TIMEOUT_MS).unref();
      };
      heard(false);
      let response: Response;
      try {
        response = await fetchImpl(new Request(request, { redirect: 'error', signal: AbortSignal.any([request.signal, silence.signal]) }));
      } catch (error) {
        heard(true);
        throw error;
      }
      heard(false);
      const exporting = response.ok && !request.headers.get('accept')?.includes('json');
      return capBody(response, exporting ? settings.maxExportBytes : MAX_DOCUMENT_BYTES, exporting, heard);
    },
  });
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
  /** The headers of a call: the format, and the validator of an earlier answer when the call is a check. */
  const headers = (accept: string, ifNoneMatch: string | undefined) => ({ accept, ...(ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch }) });
  return {
    /** The largest export body taken; a zip's entries are capped by it too. */
    maxExportBytes: settings.maxExportBytes,
    /**
     * One JSON page of `dataset` for `filters` (with page and pageSize). With `ifNoneMatch` (an
     * earlier answer's ETag) the service answers 412 RESULT_UNCHANGED while the result still has it;
     * `signal` gives the request up (its deadline).
     */
    page: (dataset: DatasetName, filters: Filters, ifNoneMatch?: string, signal?: AbortSignal) =>
      api.POST(DATASETS[dataset].path, { body: filters as never, headers: headers('application/json', ifNoneMatch), signal }) as Promise<{ data?: Page; error?: Problem; response: Response }>,
    /** The whole export of `dataset` for `filters`: a Parquet file or a zip of them; `ifNoneMatch` as for a page. */
    export: (dataset: DatasetName, filters: Filters, ifNoneMatch?: string, signal?: AbortSignal) =>
      api.POST(DATASETS[dataset].path, { body: filters as never, headers: headers(DATASETS[dataset].exportType, ifNoneMatch), parseAs: 'arrayBuffer', signal }) as Promise<{ data?: ArrayBuffer; error?: Problem; response: Response }>,
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
