import type { Clock } from '../util/clock.js';
import type { ExportSettings } from '../config/load-config.js';
import type { SummaryEndpoint } from '../http/summary-endpoint.js';
import type { ExportJobs } from './export-job.js';
import type { ExportFiles, WindowQueue } from './export-storage.js';

/** What export jobs work with, beside the summary operations' collaborators (each endpoint's deps). */
export interface ExportDeps {
  readonly settings: ExportSettings;
  readonly jobs: ExportJobs;
  readonly files: ExportFiles;
  readonly queue: WindowQueue;
  /** The summary operation of each resource, by name: a job reads and checks through it (its view, its filters, its reader). */
  readonly endpoints: ReadonlyMap<string, SummaryEndpoint>;
  /** The one clock (util/clock.ts). */
  readonly clock: Clock;
}
