/**
 * One delta, start to end, speaking no HTTP: the token sent comes to a state (or to why there is
 * none), the delta of the caller's view since that state is worked out, and the state it leaves
 * is kept under a new token before anything is answered — so a token given out always names a
 * kept state, and a delta asked again with the same token answers again.
 */
import { createHash } from 'node:crypto';
import type { SummaryQuery } from '../model/summary-query.js';
import type { Scope, StoredRecord } from '../model/view.js';
import type { ResourceDefinition } from '../model/resource-definition.js';
import type { DeltaReads, StoreMeter } from '../store/record-store.js';
import { computeDelta, type Delta } from './compute-delta.js';
import { stateBlob } from './delta-blobs.js';
import type { DeltaDeps } from './delta-deps.js';
import { formatDeltaToken, newDeltaToken } from './delta-token.js';
import { resolveToken, type TokenOutcome } from './resolve-token.js';
import { encodeState, type StateBinding } from './state-codec.js';
import { UNKNOWN_VALUES, type DeltaState } from './delta-state.js';
import { filterKeys, queryOfDays } from './wider-range.js';

export interface DeltaRequest {
  readonly scope: Scope;
  readonly query: SummaryQuery;
  readonly clientId: string;
  /** The token sent, or undefined: the whole view as of now (or, with `since`, what changed in it since then). */
  readonly token: string | undefined;
  /**
   * Without a token: the time (ms since the epoch) a copy the caller made without the feed holds
   * every write before. The delta is then what changed since, and the ids of every other record of
   * the view (`kept`), so that the copy drops what is not among them.
   */
  readonly since?: number;
  /** The service's clock, ms since the epoch. */
  readonly now: number;
  readonly meter: StoreMeter;
  /** What the caller is given of a changed record, or undefined to leave it out (compute-delta.ts). */
  readonly give?: (record: StoredRecord) => StoredRecord | undefined;
  /** Stops the delta between store reads. */
  readonly signal?: AbortSignal;
  readonly deps: DeltaDeps;
}

/** A delta worked out, its state kept under `token`; or why the token sent came to no state. */
export type DeltaOutcome =
  | { readonly kind: 'delta'; readonly delta: Delta; readonly token: string; readonly binding: StateBinding; readonly kept: readonly string[] }
  | Exclude<TokenOutcome, { readonly kind: 'state' }>;

/** The field whose stored text places a record in the key range removals are counted down (its creation time). */
export function deltaKeyField(resource: ResourceDefinition): string {
  const created = resource.filters.find((filter) => filter.kind === 'dayRange');
  if (!created) throw new TypeError(`resource ${resource.name} has no date range: the delta feed needs one`);
  return created.field;
}

/** What a state is bound to: the caller's tenant and client, the resource, the view (fields, line fields, Drafts, the key field) and the filters. */
export function deltaBinding(scope: Scope, clientId: string, query: SummaryQuery): StateBinding {
  const { view } = scope;
  const fingerprint = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 22);
  return {
    tenant: scope.tenant,
    clientId,
    resource: view.resource.name,
    view: fingerprint([view.fields.map((field) => field.name), view.lineFields.map((field) => field.name), view.drafts, deltaKeyField(view.resource)]),
    filters: fingerprint(filterKeys(query)),
  };
}

/** Reads of a query that matches nothing the caller may see: no store is asked (summary-query.ts, matchesNothing). */
const NOTHING: DeltaReads = {
  changed: async function* nothing() {},
  count: async () => 0,
  keys: async () => [],
  writtenAt: async () => new Map(),
};

export async function runDelta(request: DeltaRequest): Promise<DeltaOutcome> {
  const { scope, query, clientId, now, meter, deps, give, signal } = request;
  const binding = deltaBinding(scope, clientId, query);
  const keys = filterKeys(query);
  const resolved = await resolveToken({ token: request.token, binding, filterKeys: keys, now, days: deps.tokenDays, blobs: deps.blobs });
  if (resolved.kind !== 'state') return resolved;
  const reads = query.matchesNothing ? NOTHING : deps.reads;
  const keyField = deltaKeyField(query.resource);
  const state = request.since === undefined ? resolved.state : await startedSince(reads, request, keyField);
  // The days a wider range adds to the token's: the caller was given none of their records.
  const whole = (resolved.added ?? []).map((days) => queryOfDays(query, days));
  const delta = await computeDelta({ reads, scope, query, keyField, state, now, meter, whole, ...(give ? { give } : {}), ...(signal ? { signal } : {}) });
  signal?.throwIfAborted();
  const token = newDeltaToken(now);
  await deps.blobs.put(stateBlob(scope.tenant, token.stateId), await encodeState({ binding, issued: token.issued, state: delta.next, filterKeys: keys }));
  const sent = new Set([...delta.changed.map((record) => String(record[query.resource.idField])), ...delta.removed.map((removal) => removal.id)]);
  const kept = request.since === undefined ? [] : [...state.records.keys()].filter((id) => !sent.has(id));
  return { kind: 'delta', delta, token: formatDeltaToken(token), binding, kept };
}

/**
 * The state of a copy made without the feed, as of `since`: every record of the view now, by its
 * id-only read, as given with values unknown, and the writes since `since` to read. A record
 * deleted after `since` is in no part of it: the copy drops it, being among no row of the answer.
 */
async function startedSince(reads: DeltaReads, request: DeltaRequest, keyField: string): Promise<DeltaState> {
  const { scope, query, meter, signal } = request;
  signal?.throwIfAborted();
  const present = await reads.keys(scope, query, {}, keyField, meter, signal);
  return { since: Math.floor(request.since! / 1000), records: new Map(present.map(({ id, key }) => [id, { key: typeof key === 'string' ? key : undefined, hash: UNKNOWN_VALUES }])) };
}
