import { randomUUID } from 'node:crypto';

export const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a valid incoming X-Request-ID (1–128 of `[A-Za-z0-9._:-]`), otherwise makes a UUID. */
export function pickRequestId(incoming: string | null, newId: () => string = randomUUID): string {
  return incoming !== null && VALID.test(incoming) ? incoming : newId();
}
