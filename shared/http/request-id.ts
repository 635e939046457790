import { randomUUID } from 'node:crypto';

/** What an X-Request-ID may look like to be kept: 1–128 of `[A-Za-z0-9._:-]`. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a valid incoming X-Request-ID (1–128 of `[A-Za-z0-9._:-]`), otherwise makes a UUID. */
export function pickRequestId(incoming: string | null, newId: () => string = randomUUID): string {
  return incoming !== null && REQUEST_ID_PATTERN.test(incoming) ? incoming : newId();
}
