import * as z from 'zod';
import type { WindowMessage } from './export-storage.js';

const LABEL = /^\d{4}-\d{2}$/;
const windowMessage = z.object({
  jobId: z.string().min(1).max(64),
  tenant: z.string().min(1).max(63),
  label: z.string().regex(LABEL),
  then: z.array(z.string().regex(LABEL)).max(1000).optional(),
});

/** The message, or undefined for one that is not a window message (dropped: it can never succeed). */
export function readWindowMessage(message: unknown): WindowMessage | undefined {
  const parsed = windowMessage.safeParse(typeof message === 'string' ? parseJson(message) : message);
  return parsed.success ? parsed.data : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
