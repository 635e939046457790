/**
 * What a delta token sent with a request comes to, as outcomes (the HTTP stage maps them to
 * problems, as it does the result reader's): the state to continue from, or why there is none.
 * Another client's or tenant's token, an unknown one and a tampered one are one outcome
 * (`notFound`): the answer never says whether a token exists.
 */
import { EMPTY_STATE, type DeltaState } from './delta-state.js';
import { isExpired, parseDeltaToken } from './delta-token.js';
import { stateBlob, type DeltaBlobs } from './delta-blobs.js';
import { decodeState, type StateBinding } from './state-codec.js';
import { addedDays, type AddedDays, type FilterKey } from './wider-range.js';

export type TokenOutcome =
  | { readonly kind: 'state'; readonly state: DeltaState; readonly added?: readonly AddedDays[] }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'expired' }
  | { readonly kind: 'notFound' }
  | { readonly kind: 'viewChanged' }
  | { readonly kind: 'filtersChanged' };

export interface TokenInput {
  /** The token sent, or undefined for none (the whole view, as of now). */
  readonly token: string | undefined;
  /** What the request is bound to: its tenant, client, view and filters. */
  readonly binding: StateBinding;
  /** The request's filters (the binding has their fingerprint): a token goes on to a wider date range of the same. */
  readonly filterKeys: readonly FilterKey[];
  readonly now: number;
  /** A token's life, in days (DELTA_TOKEN_DAYS). */
  readonly days: number;
  readonly blobs: DeltaBlobs;
}

export async function resolveToken(input: TokenInput): Promise<TokenOutcome> {
  if (input.token === undefined) return { kind: 'state', state: EMPTY_STATE };
  const token = parseDeltaToken(input.token);
  if (!token) return { kind: 'malformed' };
  if (isExpired(token, input.now, input.days)) return { kind: 'expired' };
  const bytes = await input.blobs.get(stateBlob(input.binding.tenant, token.stateId));
  const kept = bytes && await decodeState(bytes);
  const { binding } = input;
  if (!kept || kept.issued !== token.issued || kept.binding.tenant !== binding.tenant || kept.binding.clientId !== binding.clientId || kept.binding.resource !== binding.resource) return { kind: 'notFound' };
  const added = kept.binding.filters === binding.filters ? undefined : kept.filterKeys && addedDays(kept.filterKeys, input.filterKeys);
  if (kept.binding.filters !== binding.filters && !added) return { kind: 'filtersChanged' };
  if (kept.binding.view !== binding.view) return { kind: 'viewChanged' };
  return { kind: 'state', state: kept.state, ...(added ? { added } : {}) };
}
