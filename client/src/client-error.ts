/**
 * What the client can stop for, each with a stable `code` (as jose's errors carry theirs): a
 * library caller switches on `code`, the CLI prints the message (what is wrong and what to do)
 * and exits 2.
 *
 * | code | class | what stopped the run |
 * | --- | --- | --- |
 * | `SETTINGS_INVALID` | SettingsError (settings.ts) | a SUMMARY_* setting is missing or malformed |
 * | `OPTIONS_INVALID` | OptionsError | the pull's own options (a range, a split, a path) cannot be pulled |
 * | `MANIFEST_INVALID` | ManifestError (manifest.ts) | the folder's manifest is not this pull's or cannot be read |
 * | `FOLDER_BUSY` | FolderBusy (folder-lock.ts) | another run holds the folder |
 * | `TOKEN_REFUSED` | TokenError (summary-api.ts) | no access token could be had |
 * | `PULL_STOPPED` | PullStopped (fetch-window.ts) | the service refuses what no window could change, or the columns kept changing |
 *
 * @example
 * try { await pull(api, options); } catch (error) {
 *   if (error instanceof SummaryClientError && error.code === 'FOLDER_BUSY') return; // tonight's run is still going
 *   throw error;
 * }
 */
export type ClientErrorCode = 'SETTINGS_INVALID' | 'OPTIONS_INVALID' | 'MANIFEST_INVALID' | 'FOLDER_BUSY' | 'TOKEN_REFUSED' | 'PULL_STOPPED';

/** A run stopped for a reason its user must act on. A library caller catches this one class, not each kind. */
export abstract class SummaryClientError extends Error {
  abstract readonly code: ClientErrorCode;
  override readonly name: string = 'SummaryClientError';
}

/** The pull's own options cannot be pulled (a range backwards, a dataset split by a date it has not, a job of JSON Lines). */
export class OptionsError extends SummaryClientError {
  override readonly name = 'OptionsError';
  readonly code = 'OPTIONS_INVALID';
}
