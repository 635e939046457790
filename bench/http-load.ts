import autocannon from 'autocannon';
import { startStackChild } from '../dev/stack-child.js';
import { BENCH_CLIENT } from './full-view.js';

/** How the end-to-end load is applied. */
export interface HttpLoadInput {
  readonly connections: number;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly runs: number;
  readonly cases: readonly HttpCase[];
}

/** One case: a resource's first page of `pageSize`, on a stack seeded with `seedRecords` per tenant (default seed when absent). */
export interface HttpCase {
  readonly resource: 'contracts' | 'invoices';
  readonly pageSize: number;
  /** Enough records for a month to fill the page (the default seed has about 70 a month). */
  readonly seedRecords?: number;
}

/** One autocannon run. */
export interface HttpRun {
  readonly requestsPerSecond: number;
  readonly p99Ms: number;
  readonly p50Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

/** Every run of one case. */
export interface HttpCaseFigures {
  readonly resource: 'contracts' | 'invoices';
  readonly pageSize: number;
  readonly runs: readonly HttpRun[];
}

/**
 * Starts the local stack in a child process (one per seed size) and drives it over loopback with
 * autocannon from this process: JSON calls with all three credentials (subscription key,
 * x-api-key, bearer token).
 */
export async function httpLoad(input: HttpLoadInput): Promise<HttpCaseFigures[]> {
  const figures: HttpCaseFigures[] = [];
  for (const seedRecords of new Set(input.cases.map((one) => one.seedRecords))) {
    figures.push(...await loadOneStack(input, input.cases.filter((one) => one.seedRecords === seedRecords), seedRecords));
  }
  return input.cases.map((one) => figures.find((figure) => figure.resource === one.resource && figure.pageSize === one.pageSize)!);
}

async function loadOneStack(input: HttpLoadInput, cases: readonly HttpCase[], seedRecords: number | undefined): Promise<HttpCaseFigures[]> {
  const stack = await startStackChild({ clients: [BENCH_CLIENT], ...(seedRecords === undefined ? {} : { seedRecords }) });
  const target = { ...stack.target, token: stack.target.tokens[BENCH_CLIENT]! };
  try {
    const figures: HttpCaseFigures[] = [];
    for (const { resource, pageSize } of cases) {
      const options: autocannon.Options = {
        url: `${target.baseUrl}/v1/${resource}/summary`,
        method: 'POST',
        connections: input.connections,
        headers: {
          authorization: `Bearer ${target.token}`,
          'ocp-apim-subscription-key': target.subscriptionKey,
          'x-api-key': target.apiKey,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({ createdFrom: '2025-03-01', createdTo: '2025-03-31', pageSize }),
      };
      await autocannon({ ...options, duration: input.warmupSeconds });
      const runs: HttpRun[] = [];
      for (let run = 0; run < input.runs; run++) {
        const result = await autocannon({ ...options, duration: input.durationSeconds });
        runs.push({
          requestsPerSecond: result.requests.average,
          p99Ms: result.latency.p99,
          p50Ms: result.latency.p50,
          non2xx: result.non2xx,
          errors: result.errors,
        });
      }
      figures.push({ resource, pageSize, runs });
    }
    return figures;
  } finally {
    await stack.stop();
  }
}
