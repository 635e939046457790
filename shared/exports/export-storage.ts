/**
 * The two seams of export storage: the files (Azure Blob Storage) and the queue of windows to
 * export (Azure Queue Storage). Azurite serves both locally, the same SDKs talk to it.
 */

/** One window of one job to export: what a queue message carries. */
export interface WindowMessage {
  readonly jobId: string;
  readonly tenant: string;
  readonly label: string;
  /** The windows that follow it in its chain (window-chains.ts), sent one by one as each is settled. */
  readonly then?: readonly string[];
}

/** The files of export jobs, in one container: `<job id>/<window label>/<try>/<table>-<part>.parquet`. */
export interface ExportFiles {
  /** Writes a file as it comes (replacing one of the same name), labelled with when its job expires. */
  write(blob: string, chunks: readonly Uint8Array[], expires: Date): Promise<void>;
  /** Deletes every file whose name starts with `prefix` (a job's `<id>/`, a window's `<id>/<label>/`), but those in `keep`. */
  removeAll(prefix: string, keep?: ReadonlySet<string>): Promise<void>;
  /** For each file, a URL that reads it and nothing else, over https, until `expires`. */
  readUrls(blobs: readonly string[], expires: Date): Promise<string[]>;
  /** Deletes the files whose job has expired by `now`; returns how many. */
  sweep(now: Date): Promise<number>;
}

/** The queue of windows to export. */
export interface WindowQueue {
  /** Sends a message, visible after `delaySeconds` (0: now). */
  send(message: WindowMessage, delaySeconds?: number): Promise<void>;
}

/** The container of export files and the queues of windows (Bicep creates them; the local stack too). */
export const EXPORT_STORAGE = Object.freeze({
  container: 'exports',
  queue: 'export-windows',
  /** Where the Functions host moves a message that failed maxDequeueCount times. */
  poisonQueue: 'export-windows-poison',
});
