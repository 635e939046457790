/** The pull client as a library: the same parts the summary-client CLI is made of. */
export { DATASETS, type DatasetName, type DateBy, type Format } from './datasets.js';
export { readSettings, SettingsError, type ClientSettings } from './settings.js';
export { summaryApi, TokenError, type SummaryApi, type Filters, type Page, type Problem } from './summary-api.js';
export { pull, type PullOptions, type PullEvent, type PullSummary } from './pull.js';
export { monthWindows, halves, type Window } from './windows.js';
export { DEFAULT_RETRY, withRetry, type RetryPolicy } from './retry.js';
export { MANIFEST_FILE, type Manifest, type ManifestWindow, type ManifestFile } from './manifest.js';
export type { paths, components } from './api.js';
