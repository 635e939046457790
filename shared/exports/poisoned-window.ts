import { ApiError } from '../errors/api-error.js';
import type { ExportDeps } from './export-deps.js';
import { failedOutcome, liveJob, settleWindow } from './settle-window.js';
import { readWindowMessage } from './window-message.js';

/**
 * The poison handler: a window whose message failed every delivery is recorded as failed (unless
 * a late delivery recorded it meanwhile), so that no job runs for ever.
 */
export async function recordPoisonedWindow(raw: unknown, deps: ExportDeps): Promise<void> {
  const message = readWindowMessage(raw);
  if (!message) return;
  const job = await liveJob(message, deps);
  if (!job || !job.windows.some((window) => window.label === message.label)) return;
  const error = new ApiError('EXPORT_WINDOW_FAILED', `The window ${message.label} could not be exported after every retry (the store or the export storage kept failing). Start a new job for this window, or pull it with the summary operation.`);
  // A late delivery may have recorded it meanwhile: then that outcome stands.
  await settleWindow(job, message, failedOutcome(message.label, error, `export-${job.id}-${message.label}`), deps);
}
