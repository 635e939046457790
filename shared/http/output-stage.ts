import type { SummaryQuery } from '../filters/summary-query.js';
import type { Scope } from '../store/record-store.js';
import type { HttpResult } from './http-result.js';
import type { SummaryDeps } from './summary-deps.js';

/** What an output stage (JSON page or Parquet export) works from. */
export interface OutputStageInput {
  readonly scope: Scope;
  readonly query: SummaryQuery;
  readonly requestId: string;
  readonly deps: Pick<SummaryDeps, 'store' | 'clock' | 'config' | 'exportSlots'>;
}

/** An output stage: reads the store for a validated query and answers it in one format. */
export type OutputStage = (input: OutputStageInput) => Promise<HttpResult>;
