import type { SummaryQuery } from '../../model/summary-query.js';
import type { Format } from '../../model/operation-contract.js';
import type { Scope } from '../../model/view.js';
import type { StoreMeter } from '../../store/record-store.js';
import type { CleaningPlan, CleaningReport } from '../../output/record-cleaner.js';
import type { SummaryDeps } from '../summary-deps.js';
import type { IfNoneMatch } from '../if-none-match.js';

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

/** What an output stage (JSON page or Parquet export) works from. */
export interface OutputStageInput {
  readonly scope: Scope;
  /** How the records are cleaned for the scope's view (record-cleaner.ts). */
  readonly cleaning: CleaningPlan;
  readonly query: SummaryQuery;
  /** The fingerprint of the view's columns in each format, made once per prepared view (summary-endpoint.ts). */
  readonly schemaTags: Readonly<Record<Format, string>>;
  readonly requestId: string;
  /** The calling client application: page cursors and export slots are per client. */
  readonly clientId: string;
  /** The request as the caller sent it: the operation's path, the query string and the parsed body (a JSON page's links carry them: page-links.ts). */
  readonly request: { readonly path: string; readonly params: URLSearchParams; readonly body: unknown };
  /** Fires when the caller has gone (where the host says so: caller-gone.ts). */
  readonly callerGone?: AbortSignal;
  /** The caller's If-None-Match: answered 412 RESULT_UNCHANGED while its result still has one of those ETags. */
  readonly precondition?: IfNoneMatch;
  /** What the store reads of this request cost: every read adds to it (the log line reads it, failures included). */
  readonly meter: StoreMeter;
  readonly deps: Pick<SummaryDeps, 'store' | 'pageCursors' | 'clock' | 'config' | 'exportSlots' | 'log'>;
}

/** An output stage: reads the store for a validated query and answers it in one format. */
export type OutputStage = (input: OutputStageInput) => Promise<HttpResult>;
