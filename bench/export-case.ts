import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writePool, type BenchResource } from './document-pool.js';
import type { DuckFigures, DuckInput } from './duckdb-worker.js';
import type { ExportFigures, ExportInput } from './export-worker.js';
import { median } from './median.js';
import { runWorker } from './run-worker.js';

/** One export case: a resource, how many records stream through, from how large a pool. */
export interface ExportCase {
  readonly label: string;
  readonly resource: BenchResource;
  readonly records: number;
  readonly poolSize: number;
  readonly runs: number;
  /** Every subject on one core (ours without workers, DuckDB with one thread); default: all cores. */
  readonly oneCore?: boolean;
}

/** The medians of one subject's runs. */
export interface ExportSummary {
  readonly ms: number;
  /** The fastest and slowest run, to show how much the machine moved the figures. */
  readonly minMs: number;
  readonly maxMs: number;
  readonly rows: number;
  readonly bytes: number;
  readonly rssBeforeBytes: number;
  readonly peakRssBytes: number;
  readonly codecs: readonly string[];
  readonly rowGroups: number;
  readonly runs: number;
  readonly threads?: string;
}

/** Our export and both DuckDB baselines of one case, measured in the same run. */
export interface ExportCaseResult {
  readonly exportCase: ExportCase;
  readonly ours: ExportSummary;
  readonly appender: ExportSummary;
  readonly copy: ExportSummary;
}

/** Generous per-process limits (bounded runs); the 1M cases take well under a minute each. */
const TIMEOUT_MS = 300_000;

/**
 * Runs the case `runs` times, each run being three fresh processes in turn — ours, DuckDB fed by
 * the appender, DuckDB COPY from a loaded table — so machine drift hits all three alike. The
 * COPY runs load their table from the first appender run's files (outside their timer).
 */
export async function measureExportCase(exportCase: ExportCase, dir: string, progress: (line: string) => void): Promise<ExportCaseResult> {
  const { resource, records, poolSize, runs, label, oneCore = false } = exportCase;
  const poolFile = join(dir, `pool-${resource}-${poolSize}.json`);
  if (!existsSync(poolFile)) writePool(resource, poolSize, poolFile);
  const ours: ExportFigures[] = [];
  const appender: DuckFigures[] = [];
  const copy: DuckFigures[] = [];
  let sources: readonly string[] | undefined;
  for (let run = 1; run <= runs; run++) {
    const input: ExportInput = { resource, records, poolFile };
    ours.push(await runWorker<ExportFigures>('export-worker', input, TIMEOUT_MS, oneCore));
    const fed: DuckInput = { mode: 'appender', resource, records, poolFile, dir, tag: `${label}-appender-${run}`.replace(/\W+/g, '_'), ...(oneCore ? { threads: 1 } : {}) };
    appender.push(await runWorker<DuckFigures>('duckdb-worker', fed, TIMEOUT_MS, oneCore));
    sources ??= appender[0]!.files;
    const copied: DuckInput = { ...fed, mode: 'copy', tag: `${label}-copy-${run}`.replace(/\W+/g, '_'), sources };
    copy.push(await runWorker<DuckFigures>('duckdb-worker', copied, TIMEOUT_MS, oneCore));
    // Only the COPY source is kept: a 1M run writes ~100 MB per subject.
    for (const file of [...copy.at(-1)!.files, ...(run > 1 ? appender.at(-1)!.files : [])]) rmSync(file, { force: true });
    progress(`${label}: run ${run}/${runs}: ours ${seconds(ours.at(-1)!.ms)}, DuckDB appender ${seconds(appender.at(-1)!.ms)}, DuckDB COPY ${seconds(copy.at(-1)!.ms)}`);
  }
  return { exportCase, ours: summarize(ours), appender: summarize(appender), copy: summarize(copy) };
}

function summarize(figures: readonly (ExportFigures | DuckFigures)[]): ExportSummary {
  const first = figures[0]!;
  return {
    ms: median(figures.map((f) => f.ms)),
    minMs: Math.min(...figures.map((f) => f.ms)),
    maxMs: Math.max(...figures.map((f) => f.ms)),
    rows: first.rows,
    bytes: median(figures.map((f) => f.bytes)),
    rssBeforeBytes: median(figures.map((f) => f.rssBeforeBytes)),
    peakRssBytes: median(figures.map((f) => f.peakRssBytes)),
    codecs: first.codecs,
    rowGroups: first.rowGroups,
    runs: figures.length,
    ...('threads' in first ? { threads: first.threads } : {}),
  };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}
