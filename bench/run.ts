/**
 * `npm run bench`: measures the export, the in-process JSON path and the local stack over HTTP,
 * prints one table and writes it with the machine's facts to bench/results.md. Not a test: it
 * never fails on a figure, it says where each target stands. `BENCH_SECTIONS=export,json,http`
 * runs a subset while developing (results.md is then left alone).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureExportCase, type ExportCase } from './export-case.js';
import { httpLoad, type HttpLoadInput } from './http-load.js';
import type { JsonInput, JsonPageFigures } from './json-path.js';
import type { BigTenantFigures, BigTenantInput } from './big-tenant.js';
import { bigTenantRows, coldStartRows } from './big-tenant-rows.js';
import type { NightlyFigures, NightlyInput } from './nightly-pull.js';
import { nightlyRows } from './nightly-rows.js';
import type { DeltaFigures, DeltaInput } from './delta-feed.js';
import { deltaRows } from './delta-rows.js';
import type { ExportJobFigures, ExportJobInput } from './export-job.js';
import { exportJobRows } from './export-job-rows.js';
import { measureColdStart } from './cold-start.js';
import { machineFacts } from './machine-facts.js';
import { projectRoot } from '../dev/project-root.js';
import { exportRows, failedRow, httpRows, jsonRows, ONE_CORE_CASE, TARGET_CASE } from './result-rows.js';
import { runWorker } from './run-worker.js';
import { STREAM_PAGE_SIZE } from '../shared/store/record-store.js';
import { renderTable, type TableRow } from './table.js';

// Run counts keep the whole run under ~10 minutes on the 2-core machine.
const EXPORT_CASES: readonly ExportCase[] = [
  { label: 'contracts 100k', resource: 'contracts', records: 100_000, poolSize: 100_000, runs: 5 },
  { label: TARGET_CASE, resource: 'contracts', records: 1_000_000, poolSize: 100_000, runs: 3 },
  { label: ONE_CORE_CASE, resource: 'contracts', records: 1_000_000, poolSize: 100_000, runs: 3, oneCore: true },
  { label: 'invoices 100k', resource: 'invoices', records: 100_000, poolSize: 100_000, runs: 5 },
];
const JSON_INPUT: JsonInput = { pageSizes: [25, 1000], rounds: 5, iterations: { 25: 2000, 1000: 300 }, warmup: 300 };
const HTTP_INPUT: HttpLoadInput = {
  connections: 16, durationSeconds: 10, warmupSeconds: 2, runs: 3,
  cases: [{ resource: 'contracts', pageSize: 25 }, { resource: 'invoices', pageSize: 25 }, { resource: 'contracts', pageSize: 1000, seedRecords: 30_000 }],
};
const BIG_TENANT_INPUT: BigTenantInput = { records: 10_000, pageSizes: [25, 1000], walks: 3, compressionIterations: 15 };
const NIGHTLY_INPUT: NightlyInput = { records: 100_000, changedShare: 0.005 };
const DELTA_INPUT: DeltaInput = { records: 100_000, changedShare: 0.005 };
const EXPORT_JOB_INPUT: ExportJobInput = { records: 100_000, months: 24, runs: 3 };
const SECTIONS = ['export', 'json', 'http', 'paging', 'cold', 'nightly', 'delta', 'jobs'] as const;

const NOTES = [
  'Every figure is the median of the runs named in its row; export times show [fastest–slowest run] beside it. Ratios are ours ÷ baseline of the median times measured in this same run (below 1× ours is faster); JSON ratios compare p50 latencies (p99 ratio in brackets).',
  'Export: every measurement runs in a fresh Node process. The source is an in-memory pool of deterministic store documents from dev/seed-data (tenant contoso; 100k contracts, cycled 10× for 1M; 100k invoices with 1–8 lines, 4.5 on average), generated once per run, written as JSON and parsed by each process (objects shaped as the Cosmos SDK hands them over), then handed over as the store stream does, a page of ' + STREAM_PAGE_SIZE + ' records at a time through an async iterable; none of that is timed, and a forced GC precedes the timer. Peak RSS is `process.resourceUsage().maxRSS` of that process, so it includes the source, whose share is the RSS "at start" in brackets. MB = 10^6 bytes.',
  'Cores: the machine has two. Cases without a mark use both: ours encodes row groups in one worker thread while the exporting thread fills the next (row-group-workers.ts), DuckDB runs its default two threads. The one-core case pins every subject process to the first core (`taskset -c 0`): Node then sees one core and encodes in the exporting thread, and DuckDB runs with `SET threads = 1`, as on Elastic Premium EP1 (one vCPU).',
  'Ours: exportParquet through the all-roles view from buildAllowlist(DATAPOINTS) (every column), to bytes in memory; invoices include the stored zip of both files. The codec in the subject is read back from the produced footers.',
  'DuckDB: in-memory database, default settings (threads = cores), the same columns, order, types and nullability as ours (VARCHAR, DATE, TIMESTAMPTZ, DECIMAL(18,2)/(18,4), INTEGER; NOT NULL where ours is REQUIRED); `COPY t TO file (FORMAT parquet)` with DuckDB\'s default compression, snappy (read back from the files), and its default row groups; the file is read back into memory inside the timer. TIMESTAMPTZ is written as TIMESTAMP(MICROS, UTC) where ours is MILLIS (same INT64). Invoices: two files, not zipped. DuckDB reads its files and ours back as the same rows (EXCEPT ALL both ways) with the same column types (checked while building this benchmark, 20k records of each resource). Appender: one row at a time from the same pool, with the fastest correct append per type found in @duckdb/node-api 1.5 (VARCHAR for strings, dates and ISO timestamps, DuckDB casting; appendDouble into DECIMAL; appendDecimal(DuckDBDecimalValue) and appendTimestampTZ go through the generic appendValue and were 2–8× slower per column), then COPY, both timed. COPY: the table is loaded from the first appender run\'s files outside the timer; only COPY (and reading the bytes) is timed.',
  'JSON: handleSummary in-process on a constructed @azure/functions HttpRequest (POST contracts, a one-month createdFrom/createdTo filter, orderBy, pageSize), deps from the production createSummaryDeps: real x-api-key check, a real RS256 token from the dev identity provider (started in this process on a loopback port; key set fetched once, credentials cache warm), allowlist, filter parsing, projection, envelope, serialization, log line built (LOG_REQUESTS=false, so not printed); the store is a RecordStore over 1000 pre-built records (count returns the number, list slices). Bare baseline: read and JSON.parse the same request body, JSON.stringify the same rows. Requests alternate between the two, one at a time; warm-up excluded; building the HttpRequest is outside both timers.',
  'Big tenant (paging, compression): startLocalStack in a worker process with 10,000 contracts per tenant on the embedded Cosmos server; requests go in-process through handleSummary with the production createSummaryDeps (real Cosmos store and page cursors), and the documents each request read are the log line\'s storeDocuments (counted at the store seam: documents the SDK handed to the function). A walk asks for every page of the tenant\'s contracts in order (three walks, each with another order, so each starts without cursors); page latencies are medians over the walks. Baseline in the same run: the same walks with a cursor store that never finds a cursor (the count-and-skip path: page p reads p × pageSize documents); at pageSize 25 only its first and last pages are asked (the full walk would read about 2,000,000 documents). Compression: the first page of the tenant, 15 requests per coding (the first three discarded), bytes of the body as sent. The embedded server reports no request charge (RU); on Cosmos the log line carries it.',
  'Cold start: `npm run package` rebuilt, then `dist/functions/summary-operations.js` (tsc output, what the host loaded before) and the artifact\'s bundle each imported in a fresh `node` process (as the Functions worker imports `main`), alternating, 7 times after one warm-up each; the time is the import alone (process start excluded), with fake settings (the file reads them at import). Both builds load the managed identity, the Cosmos SDK and the Parquet writer on first use, not at import.',
  'Nightly pull: startLocalStack in a worker process, a tenant of 100,000 contracts (dev/seed-data, its 22 months moved to end with this month) upserted through the SDK, served in that process by the production pipeline (createSummaryDeps, real Cosmos store) behind the local gateway; the pull client library (what summary-client runs) pulls `--from` two years ago `--to` this month into a folder: a first pull, a run with nothing changed, a run after 0.5% of the records changed (70% created today, the rest of this month\'s records updated, half of them leaving updatedDate alone), a run after a record back-dated into a settled month and one deleted from another; the 0.5% run is made on three copies of the folder and the baseline is three full pulls into empty folders after all the changes (the first pull, which made the folder before them, is not one): each is the median of its three, with the fastest and slowest beside it. Each run starts 6 s after the last write (past the service\'s quiet period). Documents, exports and checks are the service\'s log lines (storeDocuments; 200 and 412 answers); wall time is the whole pull in the client. The embedded server evaluates each aggregate by running its generated code over every document of the container, so a check here costs about as much as reading them; on Cosmos a check\'s cost is the log line\'s requestCharge.',
  'Delta feed: startLocalStack in a worker process (Azurite keeps the tokens\' states), a tenant of 100,000 contracts (dev/seed-data, its 22 months moved to end with this month) upserted through the SDK, served in that process by the production pipeline with its delta operations. A first month-by-month pull makes a folder and a first delta (Parquet, no token) gives a token; then 0.5% of the records change spread over every month (every n-th record: 88% amended, half of those leaving updatedDate alone, 2% deleted, 10% created today), and after the quiet period the same night is caught up three ways: the delta since the token as Parquet and the same delta as JSON pages (each asked three times with the same token, which answers the same rows again: the median), summary-client pull on the folder (today\'s mirror), and summary-client pull kept by the delta (a Parquet folder of the same range whose first run took a token and pulled window by window; this night merged from its token into three copies of the folder: the median). Then a delta with nothing changed, the kept folder\'s run with nothing changed, the same with its --to moved on to the next month (a nightly `--to` of the month on the first night of a month), and one while a writer changes a record a second. Baseline in the same run: three full month-by-month pulls into empty folders (the median). Documents are the log lines\' storeDocuments: record documents and id-only reads; the aggregates a delta counts removals with are not documents (on Cosmos they are index-only queries of a few RU). The embedded server is @vercel/cosmosdb-server with the patches in patches/ (issue 51: a query runs once, not once more for the SDK\'s query plan; conditions stop at the first false one; a range on a path is served from a sorted index of it, made on the second query of that path after a write, as Cosmos serves ranges from its index).',
  'Export jobs: startLocalStack in a worker process (Azurite over https, the embedded Cosmos server), a tenant of 100,000 contracts (dev/seed-data, spread over the 24 calendar months ending this month) upserted through the SDK, served in that process by the production pipeline with its export functions behind the local gateway, the window workers run by the local trigger host (dev/trigger-host.ts: the real queue SDK, host.json\'s settings: batch 2, the client\'s one export slot per instance). A job: POST the 24-month range, GET its Location every 250 ms until 200 (kick-off to manifest); then the same with every file downloaded by its URL, 4 at a time. Baseline in the same run: the pull client library (what summary-client runs) pulling the same range month by month into an empty folder (24 synchronous Parquet exports through the gateway). Three runs of each, alternating; the median, fastest and slowest. Documents are the log lines\' storeDocuments (the worker logs one line per window). Peak RSS is sampled every 20 ms during the jobs, of the one process that runs the stack, the service and the workers: the RSS before the first job is beside it.',
  'HTTP: startLocalStack on free loopback ports with the default seed (1500 contracts and 1500 invoices per tenant), in its own process; autocannon in the benchmark process; POST with all three credentials (subscription key, x-api-key, bearer token), a one-month created filter and pageSize 25 (the page of 1000: a second stack seeded with 30,000 contracts per tenant, so that March 2025 holds more than 1000); a 2 s warm-up is discarded. Informational: the embedded Cosmos server dominates.',
];

async function main(): Promise<void> {
  const startLoad = loadavg();
  const wanted = new Set((process.env.BENCH_SECTIONS ?? SECTIONS.join(',')).split(',').map((name) => name.trim()));
  const progress = (line: string) => console.error(`[bench] ${line}`);
  const rows: TableRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const started = performance.now();
  try {
    if (wanted.has('export')) {
      for (const exportCase of EXPORT_CASES) {
        progress(`export ${exportCase.label}: ${exportCase.runs} runs of ours, DuckDB appender, DuckDB COPY`);
        try {
          rows.push(...exportRows(await measureExportCase(exportCase, dir, progress)));
        } catch (error) {
          rows.push(failedRow(`export ${exportCase.label}`, error));
        }
      }
    }
    if (wanted.has('json')) {
      progress(`JSON in-process: pages of ${JSON_INPUT.pageSizes.join(' and ')} rows, ${JSON_INPUT.rounds} rounds`);
      try {
        const pages = await runWorker<JsonPageFigures[]>('json-path', JSON_INPUT, 300_000);
        for (const page of pages) rows.push(...jsonRows(page));
      } catch (error) {
        rows.push(failedRow('JSON in-process', error));
      }
    }
    if (wanted.has('paging')) {
      progress(`big tenant: ${BIG_TENANT_INPUT.records} contracts, walks at pageSize ${BIG_TENANT_INPUT.pageSizes.join(' and ')} with and without page cursors, and compressed pages`);
      try {
        rows.push(...bigTenantRows(await runWorker<BigTenantFigures>('big-tenant', BIG_TENANT_INPUT, 900_000)));
      } catch (error) {
        rows.push(failedRow('big tenant', error));
      }
    }
    if (wanted.has('nightly')) {
      progress(`nightly pull: ${NIGHTLY_INPUT.records} contracts over two years, runs with nothing, ${NIGHTLY_INPUT.changedShare * 100}% and two settled changes, against a full re-pull`);
      try {
        rows.push(...nightlyRows(await runWorker<NightlyFigures>('nightly-pull', NIGHTLY_INPUT, 1_200_000)));
      } catch (error) {
        rows.push(failedRow('nightly pull', error));
      }
    }
    if (wanted.has('delta')) {
      progress(`delta feed: ${DELTA_INPUT.records} contracts over two years, ${DELTA_INPUT.changedShare * 100}% changed over every month, against the month-by-month mirror and a full pull`);
      try {
        rows.push(...deltaRows(await runWorker<DeltaFigures>('delta-feed', DELTA_INPUT, 1_200_000)));
      } catch (error) {
        rows.push(failedRow('delta feed', error));
      }
    }
    if (wanted.has('jobs')) {
      progress(`export jobs: ${EXPORT_JOB_INPUT.months} windows of ${EXPORT_JOB_INPUT.records} contracts, a job against the month-by-month pull, ${EXPORT_JOB_INPUT.runs} runs each`);
      try {
        rows.push(...exportJobRows(await runWorker<ExportJobFigures>('export-job', EXPORT_JOB_INPUT, 1_200_000)));
      } catch (error) {
        rows.push(failedRow('export jobs', error));
      }
    }
    if (wanted.has('cold')) {
      progress('cold start: the deploy artifact against the unbundled build, 7 fresh processes each');
      try {
        rows.push(...coldStartRows(await measureColdStart(7)));
      } catch (error) {
        rows.push(failedRow('cold start', error));
      }
    }
    if (wanted.has('http')) {
      progress(`HTTP end to end: ${HTTP_INPUT.runs} × ${HTTP_INPUT.durationSeconds} s per case at ${HTTP_INPUT.connections} connections`);
      try {
        for (const figures of await httpLoad(HTTP_INPUT)) rows.push(httpRows(figures, HTTP_INPUT.connections, HTTP_INPUT.durationSeconds));
      } catch (error) {
        rows.push(failedRow('HTTP end to end', error));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const table = renderTable(rows);
  const standing = rows.flatMap((row) => (row.verdict ? [`- ${row.verdict}: **${row.standing}**`] : []));
  const facts = machineFacts(startLoad);
  facts.push(`benchmark wall time: ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const document = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` (bench/run.ts) from its last full run; figures move with the machine's load (below).`,
    '',
    ...facts.map((fact) => `- ${fact}`),
    '',
    table,
    '',
    '## Where the targets stand',
    '',
    ...(standing.length > 0 ? standing : ['- (no targeted measurement ran)']),
    '',
    '## How it was measured',
    '',
    ...NOTES.map((note) => `- ${note}`),
    '',
  ].join('\n');
  console.log([...facts, '', table, '', 'Where the targets stand:', ...standing].join('\n'));
  if (SECTIONS.every((section) => wanted.has(section))) {
    writeFileSync(join(projectRoot(), 'bench', 'results.md'), document);
    progress('written to bench/results.md');
  } else {
    progress('a subset ran (BENCH_SECTIONS): bench/results.md left as it was');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
