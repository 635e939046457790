/**
 * A delta token as a caller holds it: `d1.<state id>.<issued>`, the id of the state it stands for
 * (128 random bits, hex) and when it was issued (seconds since the epoch, the service's clock).
 * It names nothing else: what it is bound to (tenant, client, view, filters) is in the state, kept
 * by the service (docs/decisions.md, "The delta feed").
 */
import { randomBytes } from 'node:crypto';
import { DELTA_TOKEN_PATTERN } from '../model/delta-operations.js';

export interface DeltaToken {
  readonly stateId: string;
  /** Seconds since the epoch. */
  readonly issued: number;
}

/** A new token for a state made now. */
export function newDeltaToken(now: number): DeltaToken {
  return { stateId: randomBytes(16).toString('hex'), issued: Math.floor(now / 1000) };
}

export function formatDeltaToken(token: DeltaToken): string {
  return `d1.${token.stateId}.${token.issued}`;
}

/** The token a text is, or undefined when it has not the form of one (never a thrown error: the caller answers). */
export function parseDeltaToken(text: string): DeltaToken | undefined {
  if (!DELTA_TOKEN_PATTERN.test(text)) return undefined;
  const [, stateId, issued] = text.split('.');
  return { stateId: stateId!, issued: Number(issued) };
}

/** Whether a token is past its life (`days`) at `now`: told by the token itself, whatever is still kept. */
export function isExpired(token: DeltaToken, now: number, days: number): boolean {
  return token.issued + days * 86_400 < Math.floor(now / 1000);
}
