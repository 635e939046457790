import { randomUUID } from 'node:crypto';
import { REQUEST_ID_PATTERN } from '../model/operation-contract.js';

/**
 * The request's id: the gateway's own (API Management's request id, or the local gateway's), which
 * it puts in X-Request-ID after dropping whatever the caller sent there. A request that reached the
 * function without a valid one (not through the gateway) gets a new UUID.
 */
export function pickRequestId(fromGateway: string | null, newId: () => string = randomUUID): string {
  return fromGateway !== null && REQUEST_ID_PATTERN.test(fromGateway) ? fromGateway : newId();
}

/** The caller's own request id, when it is valid (1–128 of `[A-Za-z0-9._:-]`); an invalid one is dropped. */
export function validClientRequestId(value: string | null | undefined): string | undefined {
  return typeof value === 'string' && REQUEST_ID_PATTERN.test(value) ? value : undefined;
}
