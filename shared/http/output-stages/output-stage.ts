import type { Format } from '../../model/operation-contract.js';
import type { CleaningPlan, CleaningReport } from '../../output/record-cleaner.js';
import type { StoreMeter } from '../../store/record-store.js';
import type { ResultInput } from '../../results/result-reader.js';
import type { SummaryDeps } from '../summary-deps.js';

/** What a handler answers: status, headers, a complete body, and the record count for the log. */
export interface HttpResult {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array;
  readonly records: number;
  /** What the store reads cost, when the store was read. */
  readonly store?: StoreMeter;
  /** Stored values that did not match their fields (record-cleaner.ts), for the log line. */
  readonly cleaning?: CleaningReport;
}

/** What an output stage (JSON page or Parquet export) works from: the result to read (format and schema tag its own), and what HTTP adds. */
export interface OutputStageInput extends Omit<ResultInput, 'format' | 'schemaTag' | 'deps'> {
  /** How the records are cleaned for the scope's view (record-cleaner.ts). */
  readonly cleaning: CleaningPlan;
  /** The fingerprint of the view's columns in each format, made once per prepared view (prepared-resource.ts). */
  readonly schemaTags: Readonly<Record<Format, string>>;
  /** The request as the caller sent it: the operation's path, the query string and the parsed body (a JSON page's links carry them: page-links.ts). */
  readonly request: { readonly path: string; readonly params: URLSearchParams; readonly body: unknown };
  readonly deps: Pick<SummaryDeps, 'store' | 'pageCursors' | 'clock' | 'config' | 'exportSlots' | 'log'>;
}

/** An output stage: reads the store for a validated query and answers it in one format. */
export type OutputStage = (input: OutputStageInput) => Promise<HttpResult>;
