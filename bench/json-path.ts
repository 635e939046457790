import azureFunctions from '@azure/functions';
import { clientRegistry, loadDevIdentities } from '../dev/identities.js';
import { generateContracts } from '../dev/seed-data.js';
import { startIdentityProvider } from '../dev/identity-provider.js';
import { throwawayServerCertificate } from '../dev/local-ca.js';
import { loadConfig } from '../shared/config/load-config.js';
import { createSummaryDeps } from '../shared/app/create-summary-deps.js';
import { handleSummary } from '../shared/http/handle-summary.js';
import { summaryEndpoint } from '../shared/http/summary-endpoint.js';
import type { SummaryDeps } from '../shared/http/summary-deps.js';
import type { StoredRecord } from '../shared/model/view.js';
import { CONTRACTS } from '../shared/model/contracts.js';
import { memoryCursors, memoryStore } from './memory-store.js';
import { BENCH_TENANT } from './document-pool.js';
import { requestTokens } from '../dev/request-tokens.js';
import { BENCH_CLIENT } from './full-view.js';
import { fullView } from './full-view.js';
import { percentile } from './median.js';
import { serveWorker } from './run-worker.js';

/** How the JSON path is measured. */
export interface JsonInput {
  readonly pageSizes: readonly number[];
  readonly rounds: number;
  /** Timed requests per round and page size (each side), after `warmup` untimed ones. */
  readonly iterations: Readonly<Record<string, number>>;
  readonly warmup: number;
}

/** Latency of one side in one round, in microseconds. */
export interface LatencyFigures {
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
}

/** One page size: every round's figures for our pipeline, the bare baseline and the encoding baseline. */
export interface JsonPageFigures {
  readonly pageSize: number;
  readonly iterations: number;
  readonly ours: readonly LatencyFigures[];
  readonly bare: readonly LatencyFigures[];
  /** The bare baseline with the encoding every HTTP answer needs: `Buffer.from(JSON.stringify(rows))` (information). */
  readonly encoded: readonly LatencyFigures[];
  readonly oursBytes: number;
  readonly bareBytes: number;
}

const URL_PATH = 'http://127.0.0.1/api/v1/contracts/summary';

async function measure(input: JsonInput): Promise<JsonPageFigures[]> {
  const identities = loadDevIdentities();
  const provider = await startIdentityProvider({ identities, certificate: await throwawayServerCertificate(), port: 0 });
  try {
    const token = (await requestTokens(provider.url, identities, BENCH_CLIENT)).access_token;
    const config = loadConfig({
      AUTH_AUTHORITY_HOST: provider.url,
      AUTH_TENANT_ID: identities.tenantId,
      AUTH_APP_ID: identities.appId,
      API_KEYS: identities.apiKeys.join(','),
      CLIENT_REGISTRY: JSON.stringify(clientRegistry(identities)),
      // Never contacted: the store is replaced below.
      COSMOS_ENDPOINT: 'https://127.0.0.1:9',
      // The log line is still built (JSON.stringify), only not printed.
      LOG_REQUESTS: 'false',
      // As in Azure: every page links to the next one (page-links.ts).
      PUBLIC_BASE_URL: 'https://gateway.example.com/summary',
    });
    const view = fullView('contracts');
    const largest = Math.max(...input.pageSizes);
    const records: StoredRecord[] = generateContracts(BENCH_TENANT, largest).map((document) =>
      Object.fromEntries(view.fields.map((field) => [field.name, document[field.name as keyof typeof document]])));
    // The production factory: the real key check, the real verifier (JWKS fetched from the
    // provider once, then cached) behind the credentials cache, the real allowlist.
    const deps = createSummaryDeps(config, { store: memoryStore(records), cursors: memoryCursors() });
    const headers = {
      authorization: `Bearer ${token}`,
      'x-api-key': identities.apiKeys[0]!,
      'content-type': 'application/json',
      accept: 'application/json',
    };
    const figures: JsonPageFigures[] = [];
    for (const pageSize of input.pageSizes) figures.push(await measurePage(input, pageSize, records.slice(0, pageSize), headers, deps));
    return figures;
  } finally {
    await provider.stop();
  }
}

type Sample = { readonly elapsed: number; readonly length: number };

/** Our pipeline and the two baselines for one page size, alternating request by request. */
async function measurePage(
  input: JsonInput, pageSize: number, rows: readonly StoredRecord[], headers: Readonly<Record<string, string>>, deps: SummaryDeps,
): Promise<JsonPageFigures> {
  const bodyText = JSON.stringify({ createdFrom: '2025-03-01', createdTo: '2025-03-31', orderBy: 'createdDate', pageSize });
  // As the host registers it: once.
  const endpoint = summaryEndpoint(CONTRACTS, deps);
  let serial = 0;
  // Built outside both timers: the Functions host builds the request before our code runs.
  const request = () => new azureFunctions.HttpRequest({
    method: 'POST', url: URL_PATH, headers: { ...headers, 'x-request-id': `bench-${++serial}` }, body: { string: bodyText },
  });
  const ours = async (): Promise<Sample> => {
    const given = request();
    const started = performance.now();
    const result = await handleSummary(endpoint, given);
    const elapsed = performance.now() - started;
    if (result.status !== 200 || result.records !== pageSize) {
      throw new Error(`handleSummary answered ${result.status} with ${result.records} records: ${String(result.body).slice(0, 300)}`);
    }
    return { elapsed, length: typeof result.body === 'string' ? result.body.length : result.body.byteLength };
  };
  // The least any JSON endpoint does: read and parse the body, serialize the rows.
  const bare = async (): Promise<Sample> => {
    const given = request();
    const started = performance.now();
    const body = JSON.parse(await given.text()) as unknown;
    const text = JSON.stringify(rows);
    const elapsed = performance.now() - started;
    if (typeof body !== 'object') throw new Error('the benchmark body is a JSON object');
    return { elapsed, length: text.length };
  };
  // The same, and the text encoded as the bytes an answer is.
  const encoded = async (): Promise<Sample> => {
    const given = request();
    const started = performance.now();
    const body = JSON.parse(await given.text()) as unknown;
    const bytes = Buffer.from(JSON.stringify(rows));
    const elapsed = performance.now() - started;
    if (typeof body !== 'object') throw new Error('the benchmark body is a JSON object');
    return { elapsed, length: bytes.byteLength };
  };
  const oursBytes = (await ours()).length;
  const bareBytes = (await bare()).length;
  for (let i = 0; i < input.warmup; i++) {
    await ours();
    await bare();
    await encoded();
  }
  const iterations = input.iterations[String(pageSize)] ?? 1000;
  const oursRounds: LatencyFigures[] = [];
  const bareRounds: LatencyFigures[] = [];
  const encodedRounds: LatencyFigures[] = [];
  for (let round = 0; round < input.rounds; round++) {
    const oursSamples: number[] = [];
    const bareSamples: number[] = [];
    const encodedSamples: number[] = [];
    // Alternating, so both sides see the same heap, JIT state and machine load.
    for (let i = 0; i < iterations; i++) {
      oursSamples.push((await ours()).elapsed);
      bareSamples.push((await bare()).elapsed);
      encodedSamples.push((await encoded()).elapsed);
    }
    oursRounds.push(latency(oursSamples));
    bareRounds.push(latency(bareSamples));
    encodedRounds.push(latency(encodedSamples));
  }
  return { pageSize, iterations, ours: oursRounds, bare: bareRounds, encoded: encodedRounds, oursBytes, bareBytes };
}

function latency(samplesMs: readonly number[]): LatencyFigures {
  const micros = samplesMs.map((ms) => ms * 1000);
  return { p50: percentile(micros, 50), p99: percentile(micros, 99), mean: micros.reduce((sum, value) => sum + value, 0) / micros.length };
}

serveWorker(measure);
