import type { ExportSettings } from '../config/load-config.js';
import type { PreparedResource } from '../results/prepared-resource.js';
import type { ResultDeps } from '../results/result-deps.js';
import type { ExportJobs } from '../store/export-jobs.js';
import type { RequestLogger } from '../telemetry/request-log-entry.js';
import type { ExportFiles, WindowQueue } from './export-storage.js';

/** What export jobs work with: their own stores, and what reading results needs (the summary operations' own). */
export interface ExportDeps {
  readonly settings: ExportSettings;
  readonly jobs: ExportJobs;
  readonly files: ExportFiles;
  readonly queue: WindowQueue;
  /** Each resource prepared for reading, by name: made once per process, shared with the summary operations. */
  readonly resources: ReadonlyMap<string, PreparedResource>;
  /** The summary operations' collaborators as a job reads through them, and the log a window's line goes to. */
  readonly results: ResultDeps & { readonly log: RequestLogger };
}
