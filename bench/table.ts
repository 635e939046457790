/** Whether a figure meets the target; `info` for figures without one. */
export type Standing = 'met' | 'not met' | 'info' | 'failed';

/** One row of the results table. */
export interface TableRow {
  readonly measurement: string;
  readonly subject: string;
  /** Median time (export: whole export; JSON: p50 per request; HTTP: p50 latency). */
  readonly time: string;
  readonly throughput: string;
  readonly p99: string;
  /** Peak RSS, with the RSS at the start of the measured work in brackets. */
  readonly memory: string;
  readonly output: string;
  readonly ratio: string;
  readonly target: string;
  readonly standing: Standing | '';
  /** For a targeted row: the sentence saying where the target stands (listed under the table). */
  readonly verdict?: string;
}

const HEADER = ['measurement', 'subject', 'median time', 'throughput', 'p99', 'peak RSS (at start)', 'output', 'ratio ours ÷ baseline', 'target', 'status'];

/** The rows as one Markdown table. */
export function renderTable(rows: readonly TableRow[]): string {
  const cells = rows.map((row) => [row.measurement, row.subject, row.time, row.throughput, row.p99, row.memory, row.output, row.ratio, row.target, row.standing]);
  const widths = HEADER.map((title, c) => Math.max(title.length, ...cells.map((line) => line[c]!.length)));
  const line = (values: readonly string[]) => `| ${values.map((value, c) => value.padEnd(widths[c]!)).join(' | ')} |`;
  return [line(HEADER), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}

/** 1234567 → "1,234,567". */
export function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** A duration given in milliseconds, in s, ms or µs as fits. */
export function duration(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 1) return `${ms.toFixed(ms >= 100 ? 0 : 1)} ms`;
  return `${Math.round(ms * 1000)} µs`;
}

/** Bytes in MB (10^6) or kB. */
export function size(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`;
}

/** A ratio such as "2.31×". */
export function times(ratio: number): string {
  return `${ratio.toFixed(2)}×`;
}
