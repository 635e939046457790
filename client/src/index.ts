/** The pull client as a library: the same parts the summary-client CLI is made of. */
export { OptionsError, SummaryClientError, type ClientErrorCode } from './client-error.js';
export { DATASETS, type DatasetName, type DateBy, type Format } from './datasets.js';
export { readSettings, trustCaFile, SettingsError, DEFAULT_MAX_EXPORT_BYTES, type ClientSettings } from './settings.js';
export { summaryApi, TokenError, BodyTooLarge, type SummaryApi, type Filters, type Page, type Problem } from './summary-api.js';
export { pull, PullStopped, QUIET_WAIT_MS, SERVICE_QUIET_MS, type PullOptions } from './pull.js';
export { isComplete, type PullEvent, type PullSummary, type Rewrite, type WindowOutcome, type WindowStatus } from './pull-summary.js';
export { FolderBusy } from './folder-lock.js';
export { monthWindows, halves, type Window } from './windows.js';
export { DEFAULT_RETRY, withRetry, type RetryPolicy } from './retry.js';
export { MANIFEST_FILE, dataFile } from './layout.js';
export { ManifestError, type Manifest, type ManifestWindow, type ManifestFile } from './manifest.js';
export { explainTokenFailure } from './token-failure.js';
export type { paths, components } from './api.js';
