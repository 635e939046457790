/** What a pull is asked for (pull.ts): the dataset, its range and filters, the folder, and how the run goes. */
import type { DatasetName, DateBy, Format } from './datasets.js';
import type { Via } from './pull-summary.js';
import type { RetryPolicy } from './retry.js';

export interface PullOptions {
  readonly dataset: DatasetName;
  readonly from: string;
  readonly to: string;
  readonly by: DateBy;
  readonly format: Format;
  /** Further filters, as body members (`status`, `supplierId`, ...). */
  readonly filters: Readonly<Record<string, string>>;
  readonly out: string;
  /** Whom the files come from: the service's base URL and the client id (kept in the manifest). */
  readonly source: { readonly service: string; readonly client: string };
  readonly pageSize?: number;
  readonly retry?: RetryPolicy;
  /** The clock, in milliseconds since the epoch (default Date.now): names a growing window's files. */
  readonly now?: () => number;
  /**
   * A strict run (--until-quiet): windows still being written are pulled again, each confirmed
   * after the service's quiet period, until none moves or this many milliseconds have passed
   * (then the run is not complete: exit 1).
   */
  readonly untilQuietMs?: number;
  /** Waits (default setTimeout): a strict run's pauses, a job's polls. */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * `delta`: the range through one delta of the service, merged into the folder (JSON Lines;
   * refused where the service offers none); `job`: the range through one export job, its files
   * from storage (refused where the service offers none); `windows`: a conditional request per
   * window. Default: the delta for JSON Lines and a job for Parquet where the service offers them
   * and the pull can take them (no --until-quiet), else windows.
   */
  readonly via?: Via;
}
