import type { ExportJobFigures, PathFigures } from './export-job.js';
import { count, duration, size, times, type TableRow } from './table.js';

function spread(path: PathFigures): string {
  return `${duration(path.ms)} [${duration(path.range[0])}–${duration(path.range[1])}]`;
}

/** A job of the whole range against the window-by-window pull of it, measured in the same run. */
export function exportJobRows(figures: ExportJobFigures): TableRow[] {
  const base = figures.windowsPath;
  const measurement = (what: string) => `${what}: ${count(figures.records)} contracts, ${figures.windows} months`;
  const memory = `${size(figures.peakRss)} (${size(figures.rssBefore)})`;
  const blank = { throughput: '', p99: '' } as const;
  return [
    {
      measurement: measurement('pull client, month by month (baseline)'), subject: `${base.files} synchronous Parquet exports into a folder`,
      time: spread(base), ...blank, memory: '—', output: `${count(base.requests)} requests, ${count(base.documents)} documents`, ratio: 'baseline', target: 'baseline', standing: 'info',
    },
    {
      measurement: measurement('export job, kick-off to manifest'), subject: `${figures.job.files} files in Azurite, ${size(figures.job.bytes)}, largest ${size(figures.largestFile)}`,
      time: spread(figures.job), ...blank, memory, output: `${count(figures.job.requests)} requests (kick-off and status), ${count(figures.job.documents)} documents`,
      ratio: times(figures.job.ms / base.ms), target: 'informational', standing: 'info',
      verdict: `export job of ${figures.windows} windows (${count(figures.records)} contracts): kick-off to manifest ${times(figures.job.ms / base.ms)} the wall time of the month-by-month pull, ${times(figures.jobWithDownloads.ms / base.ms)} with every file downloaded; peak RSS ${size(figures.peakRss)} (${size(figures.rssBefore)} before the jobs, stack and service in the same process)`,
    },
    {
      measurement: measurement('export job, kick-off to every file downloaded (4 at a time)'), subject: `${figures.jobWithDownloads.files} files`,
      time: spread(figures.jobWithDownloads), ...blank, memory, output: `${count(figures.jobWithDownloads.requests)} requests`,
      ratio: times(figures.jobWithDownloads.ms / base.ms), target: 'informational', standing: 'info',
    },
    ...fairnessRows(figures),
  ];
}

/** Another tenant's one-month job alone (baseline) and while this tenant has its caps' worth of months queued (issue 49: within 3×). */
function fairnessRows({ fairness }: ExportJobFigures): TableRow[] {
  const blank = { throughput: '', p99: '', memory: '—' } as const;
  const ratio = fairness.loaded.ms / fairness.idle.ms;
  return [
    {
      measurement: 'another tenant\'s one-month job, alone (baseline)', subject: 'kick-off to manifest, 500 contracts',
      time: spread(fairness.idle), ...blank, output: `${count(fairness.idle.requests)} requests`, ratio: 'baseline', target: 'baseline', standing: 'info',
    },
    {
      measurement: `another tenant's one-month job, with ${fairness.busyWindows} months of this tenant queued`, subject: `4 jobs of 2 clients (its caps); ${fairness.busyDone} of their months done when it completed`,
      time: spread(fairness.loaded), ...blank, output: `${count(fairness.loaded.requests)} requests`, ratio: times(ratio), target: '≤ 3×', standing: ratio <= 3 ? 'met' : 'not met',
      verdict: `one tenant's one-month job while another has ${fairness.busyWindows} months queued: ${times(ratio)} its time alone (target ≤ 3×); ${fairness.busyDone} of the busy tenant's months were done by then`,
    },
  ];
}
