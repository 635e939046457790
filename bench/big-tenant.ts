import azureFunctions from '@azure/functions';
import { startLocalStack } from '../dev/local-stack.js';
import { loadConfig } from '../shared/config/load-config.js';
import { createSummaryDeps } from '../shared/app/create-summary-deps.js';
import type { SummaryDeps } from '../shared/http/summary-deps.js';
import { handleSummary } from '../shared/http/handle-summary.js';
import { summaryEndpoint } from '../shared/http/summary-endpoint.js';
import type { RequestLogEntry } from '../shared/telemetry/request-log-entry.js';
import { CONTRACTS } from '../shared/model/contracts.js';
import { requestTokens } from '../dev/request-tokens.js';
import { BENCH_CLIENT } from './full-view.js';
import { median } from './median.js';
import { serveWorker } from './run-worker.js';

/** What the big-tenant measurement runs. */
export interface BigTenantInput {
  /** Contracts (and invoices) seeded per tenant: one walk covers all of one tenant's contracts. */
  readonly records: number;
  readonly pageSizes: readonly number[];
  /** Walks per page size (the page latencies are the medians over them). */
  readonly walks: number;
  /** Requests per coding and page size for the compression figures. */
  readonly compressionIterations: number;
}

/** One walk's figures at one page size, with cursors or without (the count-and-skip path only). */
export interface WalkFigures {
  readonly pageSize: number;
  readonly cursors: boolean;
  readonly pages: number;
  readonly records: number;
  readonly documents: number;
  readonly requestCharge: number;
  /** Median over the walks, in ms. */
  readonly firstPageMs: number;
  readonly lastPageMs: number;
}

/** Bytes and p50 latency of one page size in one content coding. */
export interface CodingFigures {
  readonly pageSize: number;
  readonly coding: 'identity' | 'gzip' | 'br';
  readonly bytes: number;
  readonly p50Ms: number;
}

export interface BigTenantFigures {
  /** Contracts of the walked tenant. */
  readonly tenantRecords: number;
  readonly walks: readonly WalkFigures[];
  readonly codings: readonly CodingFigures[];
}

const URL_PATH = 'http://127.0.0.1/api/v1/contracts/summary';

/**
 * A tenant of `records` contracts on the embedded Cosmos server, read in-process through the
 * production pipeline (handleSummary with the real Cosmos store and page cursors): every page of
 * the whole tenant at each page size, counting the documents the store handed over (the log
 * line's storeDocuments), with cursors and — the baseline, in the same run — without them.
 */
async function measure(input: BigTenantInput): Promise<BigTenantFigures> {
  const stack = await startLocalStack({ port: 0, cosmosPort: 0, authPort: 0, azuritePorts: { blob: 0, queue: 0, table: 0 }, seedRecords: input.records, settings: { LOG_REQUESTS: 'false', MAX_RESULT_WINDOW: String(input.records) }, logRequest: () => {} });
  try {
    const token = (await requestTokens(stack.authUrl, stack.identities, BENCH_CLIENT)).access_token;
    const lines: RequestLogEntry[] = [];
    const config = loadConfig({ ...stack.settings, LOG_REQUESTS: 'true' });
    const log = { request: (entry: RequestLogEntry) => lines.push(entry), fault: () => {}, warning: () => {} };
    const withCursors = createSummaryDeps(config, { log });
    const withoutCursors = { ...withCursors, cursors: { get: async () => undefined, put: async () => {} } };
    // Each as the host registers it: once.
    const endpoints = new Map([withCursors, withoutCursors].map((deps) => [deps, summaryEndpoint(CONTRACTS, deps)]));
    let serial = 0;
    const call = async (deps: SummaryDeps, body: Record<string, unknown>, acceptEncoding = 'identity') => {
      const request = new azureFunctions.HttpRequest({
        method: 'POST', url: URL_PATH,
        headers: { authorization: `Bearer ${token}`, 'x-api-key': stack.identities.apiKeys[0]!, 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': acceptEncoding, 'x-request-id': `bench-${++serial}` },
        body: { string: JSON.stringify(body) },
      });
      const started = performance.now();
      const result = await handleSummary(endpoints.get(deps)!, request);
      const elapsed = performance.now() - started;
      if (result.status !== 200) throw new Error(`page answered ${result.status}: ${String(result.body).slice(0, 300)}`);
      return { elapsed, result, line: lines.at(-1)! };
    };

    const walks: WalkFigures[] = [];
    for (const pageSize of input.pageSizes) {
      for (const cursors of [true, false]) {
        // The count-and-skip path at small pages reads n²/2s documents: its walk is measured at its
        // first and last page only (the documents of the pages between follow from the same path).
        const full = cursors || pageSize >= 1000;
        const firsts: number[] = [];
        const lasts: number[] = [];
        let figures = { pages: 0, records: 0, documents: 0, requestCharge: 0 };
        for (let walk = 0; walk < input.walks; walk++) {
          const deps = cursors ? withCursors : withoutCursors;
          // A fresh walk: an order no earlier walk used, so no cursor of it exists yet.
          const order = walk % 2 === 0 ? 'asc' : 'desc';
          const body = { pageSize, orderBy: walk < 2 ? 'createdDate' : 'updatedDate', order };
          const pages = Math.ceil(input.records / pageSize);
          const totals = { pages: 0, records: 0, documents: 0, requestCharge: 0 };
          for (let page = 1; page <= pages; page++) {
            if (!full && page > 1 && page < pages) continue;
            const { elapsed, result, line } = await call(deps, { ...body, page });
            totals.pages++;
            totals.records += result.records;
            totals.documents += line.storeDocuments ?? 0;
            totals.requestCharge += line.requestCharge ?? 0;
            if (page === 1) firsts.push(elapsed);
            if (page === pages) lasts.push(elapsed);
          }
          figures = totals;
        }
        walks.push({ pageSize, cursors, ...figures, firstPageMs: median(firsts), lastPageMs: median(lasts) });
      }
    }

    const codings: CodingFigures[] = [];
    for (const pageSize of input.pageSizes) {
      for (const coding of ['identity', 'gzip', 'br'] as const) {
        const samples: number[] = [];
        let bytes = 0;
        for (let i = 0; i < input.compressionIterations; i++) {
          const { elapsed, result } = await call(withCursors, { pageSize, page: 1 }, coding);
          samples.push(elapsed);
          bytes = typeof result.body === 'string' ? Buffer.byteLength(result.body) : result.body.byteLength;
        }
        codings.push({ pageSize, coding, bytes, p50Ms: median(samples.slice(Math.min(3, samples.length - 1))) });
      }
    }
    return { tenantRecords: input.records, walks, codings };
  } finally {
    await stack.stop();
  }
}

serveWorker(measure);
