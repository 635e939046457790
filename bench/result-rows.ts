import type { ExportCaseResult, ExportSummary } from './export-case.js';
import type { HttpCaseFigures } from './http-load.js';
import type { JsonPageFigures } from './json-path.js';
import { resourceNamed } from '../shared/model/resources.js';
import { exportFile } from '../shared/model/operation-contract.js';
import { median } from './median.js';
import { count, duration, size, times, type Standing, type TableRow } from './table.js';

/** The issues' targets, measured on this machine (exports: issue 11). */
export const TARGETS = {
  /** 1M contracts and invoices 100k: ours ÷ DuckDB-fed-from-JS time at most this. */
  vsAppender: 0.8,
  /** 1M contracts: ours ÷ DuckDB COPY time at most this (two cores). */
  vsCopy: 6,
  /** 1M contracts: peak RSS below this (bytes, MB = 10^6). */
  peakRssBytes: 400e6,
  /**
   * JSON: ours ÷ bare p50 at most this, by page size. The page of 25 has no target (issue 29
   * retired it: nobody feels microseconds behind a store round trip); it is measured as information.
   */
  json: { 1000: 1.3 } as Readonly<Record<number, number>>,
} as const;

/** The case whose figures the export targets are about (two cores). */
export const TARGET_CASE = 'contracts 1M';
/** The same on one core: judged against the appender (on one core too) and for memory. */
export const ONE_CORE_CASE = 'contracts 1M, one core';
/** A case judged against the appender too. */
const APPENDER_CASES: readonly string[] = [TARGET_CASE, ONE_CORE_CASE, 'invoices 100k'];

const EMPTY = { time: '—', throughput: '—', p99: '—', memory: '—', output: '—', ratio: '—', target: '', standing: '' } as const;

function judge(ok: boolean): Standing {
  return ok ? 'met' : 'not met';
}

/** Three rows per export case: ours, DuckDB fed by the appender, DuckDB COPY. */
export function exportRows({ exportCase, ours, appender, copy }: ExportCaseResult): TableRow[] {
  const targeted = exportCase.label === TARGET_CASE;
  const memoryTargeted = targeted || exportCase.label === ONE_CORE_CASE;
  const againstAppender = APPENDER_CASES.includes(exportCase.label);
  const base = (summary: ExportSummary) => ({
    time: `${duration(summary.ms)} [${duration(summary.minMs)}–${duration(summary.maxMs)}]`,
    throughput: `${count((summary.rows / summary.ms) * 1000)} rows/s`,
    p99: '—',
    memory: `${size(summary.peakRssBytes)} (${size(summary.rssBeforeBytes)})`,
    output: size(summary.bytes),
  });
  const measurement = `export ${exportCase.label} (${count(ours.rows)} Parquet rows, ${exportCase.runs} run${exportCase.runs === 1 ? '' : 's'})`;
  const vsAppender = ours.ms / appender.ms;
  const vsCopy = ours.ms / copy.ms;
  return [
    {
      measurement, subject: `ours: exportParquet${exportFile(resourceNamed(exportCase.resource).export).extension === 'zip' ? ' → zip' : ''} (${ours.codecs.join('+')})`, ...base(ours), ratio: '',
      target: memoryTargeted ? `peak RSS < ${TARGETS.peakRssBytes / 1e6} MB` : '',
      standing: memoryTargeted ? judge(ours.peakRssBytes < TARGETS.peakRssBytes) : '',
      ...(memoryTargeted ? { verdict: `${exportCase.label}: peak RSS ${size(ours.peakRssBytes)} (of which ${size(ours.rssBeforeBytes)} before the export started: the process and its in-memory source), target < ${TARGETS.peakRssBytes / 1e6} MB` } : {}),
    },
    {
      measurement, subject: `DuckDB appender from JS + COPY (${appender.codecs.join('+')}, ${appender.threads} threads)`, ...base(appender),
      ratio: times(vsAppender), target: againstAppender ? `≤ ${times(TARGETS.vsAppender)}` : '',
      standing: againstAppender ? judge(vsAppender <= TARGETS.vsAppender) : '',
      ...(againstAppender ? { verdict: `${exportCase.label}: ours ÷ DuckDB fed from JS = ${times(vsAppender)} (${duration(ours.ms)} vs ${duration(appender.ms)}), target ≤ ${times(TARGETS.vsAppender)}` } : {}),
    },
    {
      measurement, subject: `DuckDB COPY from loaded table (${copy.codecs.join('+')}, ${copy.threads} threads)`, ...base(copy),
      ratio: times(vsCopy), target: targeted ? `≤ ${times(TARGETS.vsCopy)}` : '',
      standing: targeted ? judge(vsCopy <= TARGETS.vsCopy) : '',
      ...(targeted ? { verdict: `${exportCase.label}: ours ÷ DuckDB COPY = ${times(vsCopy)} (${duration(ours.ms)} vs ${duration(copy.ms)}), target ≤ ${times(TARGETS.vsCopy)}` } : {}),
    },
  ];
}

/** Three rows per page size: our pipeline (judged on the p50 ratio against the bare baseline), the bare baseline and the encoding baseline (information). */
export function jsonRows(page: JsonPageFigures): TableRow[] {
  const summary = (rounds: JsonPageFigures['ours']) => ({
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    mean: median(rounds.map((r) => r.mean)),
  });
  const ours = summary(page.ours);
  const bare = summary(page.bare);
  const encoded = summary(page.encoded);
  const ratio = ours.p50 / bare.p50;
  const limit = TARGETS.json[page.pageSize];
  const measurement = `JSON in-process, page of ${page.pageSize} (${page.ours.length} rounds × ${count(page.iterations)} requests)`;
  const row = (figures: typeof ours, bytes: number) => ({
    time: `p50 ${duration(figures.p50 / 1000)}`,
    throughput: `${count(1e6 / figures.mean)} req/s (1 at a time)`,
    p99: duration(figures.p99 / 1000),
    memory: '—',
    output: size(bytes),
  });
  return [
    {
      measurement, subject: 'ours: handleSummary (credentials, filters, store seam, projection, envelope)', ...row(ours, page.oursBytes),
      ratio: `${times(ratio)} (p99 ${times(ours.p99 / bare.p99)})`,
      target: limit === undefined ? '' : `p50 ≤ ${times(limit)}`,
      standing: limit === undefined ? 'info' : judge(ratio <= limit),
      ...(limit === undefined ? {} : { verdict: `JSON page of ${page.pageSize}: ours ÷ bare p50 = ${times(ratio)} (${duration(ours.p50 / 1000)} vs ${duration(bare.p50 / 1000)}; p99 ${times(ours.p99 / bare.p99)}), target ≤ ${times(limit)}` }),
    },
    { measurement, subject: 'bare: read + JSON.parse body, JSON.stringify rows', ...row(bare, page.bareBytes), ratio: 'baseline', target: '', standing: '' },
    {
      measurement, subject: 'encoded: bare, then Buffer.from of the text (information)', ...row(encoded, page.bareBytes),
      ratio: `ours ÷ encoded ${times(ours.p50 / encoded.p50)}`, target: '', standing: 'info',
    },
  ];
}

/** One row per HTTP case (informational). */
export function httpRows(figures: HttpCaseFigures, connections: number, durationSeconds: number): TableRow {
  const failures = figures.runs.reduce((sum, run) => sum + run.non2xx + run.errors, 0);
  return {
    measurement: `HTTP end to end, ${figures.resource} page of ${figures.pageSize} (${connections} connections, ${figures.runs.length} × ${durationSeconds} s)`,
    subject: `local stack: gateway → function → embedded Cosmos${failures > 0 ? ` (${failures} non-2xx/errors!)` : ''}`,
    time: `p50 ${duration(median(figures.runs.map((run) => run.p50Ms)))}`,
    throughput: `${count(median(figures.runs.map((run) => run.requestsPerSecond)))} req/s`,
    p99: duration(median(figures.runs.map((run) => run.p99Ms))),
    memory: '—', output: '—', ratio: '—', target: 'informational', standing: 'info',
  };
}

/** A row saying a measurement could not be made (the rest of the table still prints). */
export function failedRow(measurement: string, error: unknown): TableRow {
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  return { measurement, subject: `failed: ${message.slice(0, 160)}`, ...EMPTY, standing: 'failed', verdict: `${measurement}: not measured (${message.slice(0, 160)})` };
}
