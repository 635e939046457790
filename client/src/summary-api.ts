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

/** The service's API with the credentials of `settings` on every request. */
export function summaryApi(settings: ClientSettings, fetchImpl: typeof fetch = fetch) {
  // No redirects: the keys would follow one to wherever it points.
  const api = createClient<paths>({ baseUrl: settings.baseUrl, fetch: (request) => fetchImpl(new Request(request, { redirect: 'error' })) });
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
  return {
    /** One JSON page of `dataset` for `filters` (with page and pageSize). */
    page: (dataset: DatasetName, filters: Filters) =>
      api.POST(DATASETS[dataset].path, { body: filters as never, headers: { accept: 'application/json' } }) as Promise<{ data?: Page; error?: Problem; response: Response }>,
    /** The whole export of `dataset` for `filters`: a Parquet file or a zip of them. */
    export: (dataset: DatasetName, filters: Filters) =>
      api.POST(DATASETS[dataset].path, { body: filters as never, headers: { accept: DATASETS[dataset].exportType }, parseAs: 'arrayBuffer' }) as Promise<{ data?: ArrayBuffer; error?: Problem; response: Response }>,
  };
}

export type SummaryApi = ReturnType<typeof summaryApi>;
