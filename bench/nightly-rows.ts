import type { NightlyFigures, RunFigures } from './nightly-pull.js';
import { count, duration, times, type TableRow } from './table.js';

/** Targets of the exact-mirrors issue: a nightly run against a full re-pull of the same range. */
const DOCUMENTS_SHARE = 0.05;
const WALL_SHARE = 0.2;
/** Targets of the nightly mirror through a job: nothing changed costs a kick-off and two polls at most; 0.5% changed well under the window-by-window run. */
const JOB_REQUESTS = 3;
const JOB_WALL_SHARE = 0.5;

function formatBytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} kB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function what(run: RunFigures): string {
  return `${run.windows} windows: ${run.exports} exported, ${run.checks} checks (412); ${count(run.documents)} documents read${run.requestCharge > 0 ? `, ${count(run.requestCharge)} RU` : ''}`;
}

/** A run's wall time, with the fastest and slowest of its runs when it is their median. */
function spread(run: RunFigures): string {
  return run.range ? `${duration(run.ms)} [${duration(run.range[0])}–${duration(run.range[1])}]` : duration(run.ms);
}

/** The nightly runs of a two-year folder against a full re-pull measured in the same run. */
export function nightlyRows(figures: NightlyFigures): TableRow[] {
  const { full } = figures;
  const blank = { throughput: '', p99: '', memory: '—' } as const;
  const row = (label: string, run: RunFigures, targeted: boolean): TableRow => {
    const documents = run.documents / full.documents;
    const wall = run.ms / full.ms;
    const met = documents <= DOCUMENTS_SHARE && wall <= WALL_SHARE;
    return {
      measurement: `nightly pull of ${count(figures.records)} contracts over two years: ${label}`,
      subject: what(run),
      time: spread(run),
      ...blank,
      output: `check p50 ${duration(run.checkMs)} in the service`,
      ratio: `documents ${(documents * 100).toFixed(1)}%, wall ${times(wall)}`,
      target: targeted ? `≤ ${DOCUMENTS_SHARE * 100}% documents, ≤ ${times(WALL_SHARE)} wall` : 'informational',
      standing: targeted ? (met ? 'met' : 'not met') : 'info',
      ...(targeted ? { verdict: `nightly pull, ${label}: ${(documents * 100).toFixed(1)}% of a full re-pull's documents (target ≤ 5%), ${times(wall)} its wall time (target ≤ ${times(WALL_SHARE)})` } : {}),
    };
  };
  const none = figures.unchanged;
  const job = figures.job;
  const jobShare = job.nightly.documents / full.documents;
  const jobWall = job.nightly.ms / figures.nightly.ms;
  const jobMet = jobShare <= DOCUMENTS_SHARE && jobWall <= JOB_WALL_SHARE;
  const jobRows: TableRow[] = [
    {
      measurement: `nightly pull of ${count(figures.records)} contracts over two years through an export job: nothing changed`,
      subject: `${what(job.unchanged)}; ${job.unchanged.requests} requests to the service`,
      time: spread(job.unchanged), ...blank,
      output: `${job.unchanged.requests} requests against ${none.requests} window by window`,
      ratio: `wall ${times(job.unchanged.ms / none.ms)} the window-by-window run`,
      target: `≤ ${JOB_REQUESTS} requests, 0 documents`,
      standing: job.unchanged.requests <= JOB_REQUESTS && job.unchanged.documents === 0 ? 'met' : 'not met',
      verdict: `nightly pull through a job, nothing changed: ${job.unchanged.requests} requests to the service (target ≤ ${JOB_REQUESTS}) and ${count(job.unchanged.documents)} record documents (target 0); ${times(job.unchanged.ms / none.ms)} the wall time of the window-by-window run`,
    },
    {
      measurement: `nightly pull of ${count(figures.records)} contracts over two years through an export job: ${count(figures.changed)} records (${((figures.changed / figures.records) * 100).toFixed(1)}%) changed (median of three)`,
      subject: `${what(job.nightly)}; ${job.nightly.requests} requests to the service`,
      time: spread(job.nightly), ...blank,
      output: `${formatBytes(job.nightly.bytes)} downloaded (window by window: ${formatBytes(figures.nightly.bytes)})`,
      ratio: `documents ${(jobShare * 100).toFixed(1)}%, wall ${times(jobWall)} the window-by-window run`,
      target: `≤ ${DOCUMENTS_SHARE * 100}% documents, ≤ ${times(JOB_WALL_SHARE)} wall`,
      standing: jobMet ? 'met' : 'not met',
      verdict: `nightly pull through a job, 0.5% changed: ${(jobShare * 100).toFixed(1)}% of a full pull's documents (target ≤ 5%), ${times(jobWall)} the wall time of the window-by-window nightly run (target ≤ ${times(JOB_WALL_SHARE)})`,
    },
  ];
  return [
    { measurement: `full pull of the same two years into an empty folder (baseline: median of three)`, subject: what(full), time: spread(full), ...blank, output: '', ratio: 'baseline', target: 'baseline', standing: 'info' },
    row(`${count(figures.changed)} records (${((figures.changed / figures.records) * 100).toFixed(1)}%) changed in the open month (median of three)`, figures.nightly, true),
    {
      ...row('nothing changed', none, false),
      target: '0 documents',
      standing: none.documents === 0 && none.exports === 0 ? 'met' : 'not met',
      verdict: `nightly pull, nothing changed: ${count(none.documents)} record documents read and ${none.exports} exports (target 0), ${none.checks} checks of p50 ${duration(none.checkMs)} each in the service`,
    },
    row('one record back-dated into a settled month and one deleted from another', figures.settled, false),
    {
      ...row('a busy tenant, a record a second written to the open month before and during the run', figures.busy, false),
      output: `${figures.busy.moving} window${figures.busy.moving === 1 ? '' : 's'} still being written, kept as pulled`,
      ratio: `open month exported ${figures.busy.exports}×, wall ${times(figures.busy.ms / figures.nightly.ms)} the quiet nightly run`,
      target: '≤ 2 exports of the open month, exit 0',
      standing: figures.busy.exports <= 2 ? 'met' : 'not met',
      verdict: `nightly pull of a busy tenant: the open month exported ${figures.busy.exports} time${figures.busy.exports === 1 ? '' : 's'} (target ≤ 2), ${times(figures.busy.ms / figures.nightly.ms)} the wall time of the quiet nightly run`,
    },
    ...jobRows,
  ];
}
