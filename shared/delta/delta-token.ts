/**
 * A delta token as a caller holds it: `d1.<state id>.<issued>`, the id of the state it stands for
 * (128 random bits, hex) and when it was issued (seconds since the epoch, the service's clock).
 * It names nothing else: what it is bound to (tenant, client, view, filters) is in the state, kept
 * by the service (docs/decisions.md, "The delta feed").
 */
import { randomBytes } from 'node:crypto';

export interface DeltaToken {
  readonly stateId: string;
  /** Seconds since the epoch. */
  readonly issued: number;
}

const FORM = /^d1\.([0-9a-f]{32})\.([1-9][0-9]{0,11})$/;

/** A new token for a state made now. */
export function newDeltaToken(now: number): DeltaToken {
  return { stateId: randomBytes(16).toString('hex'), issued: Math.floor(now / 1000) };
}

export function formatDeltaToken(token: DeltaToken): string {
  return `d1.${token.stateId}.${token.issued}`;
}

/** The token a text is, or undefined when it has not the form of one (never a thrown error: the caller answers). */
export function parseDeltaToken(text: string): DeltaToken | undefined {
  const match = FORM.exec(text);
  return match ? { stateId: match[1]!, issued: Number(match[2]) } : undefined;
}

/** Whether a token is past its life (`days`) at `now`: told by the token itself, whatever is still kept. */
export function isExpired(token: DeltaToken, now: number, days: number): boolean {
  return token.issued + days * 86_400 < Math.floor(now / 1000);
}
