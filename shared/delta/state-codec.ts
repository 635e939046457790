/**
 * A delta state as it is kept: one gzip of JSON, with what it is bound to. Records are
 * `[id, key, hash]` triples (a key that is no text: null; a record in the view but not given:
 * hash null), so a state of a million records is a
 * few megabytes kept and read whole, once per delta.
 */
import { z } from 'zod';
import { compareKeys, type DeltaState } from './delta-state.js';
import { gunzipJson, gzipJson } from './delta-blobs.js';
import type { FilterKey } from './wider-range.js';

/** What a state is bound to: a token is answered only for the same. */
export interface StateBinding {
  readonly tenant: string;
  readonly clientId: string;
  readonly resource: string;
  /** The view's fingerprint (fields, line fields, Drafts). */
  readonly view: string;
  /** The filters' fingerprint. */
  readonly filters: string;
}

export interface KeptState {
  readonly binding: StateBinding;
  /** When its token was issued (seconds): a token that says otherwise was altered. */
  readonly issued: number;
  readonly state: DeltaState;
  /** The filters themselves (their fingerprint is the binding's): a wider date range goes on from them (wider-range.ts). Absent in states kept before. */
  readonly filterKeys?: readonly FilterKey[];
}

/** A binding as it is kept (with a state, and with a delta's pages). */
export const BINDING_SCHEMA = z.object({ tenant: z.string(), clientId: z.string(), resource: z.string(), view: z.string(), filters: z.string() });

type Triple = [id: string, key: string | null, hash: string | null];

const kept = z.object({
  v: z.literal(1),
  binding: BINDING_SCHEMA,
  issued: z.number().int().positive(),
  since: z.number().int().nonnegative(),
  records: z.array(z.tuple([z.string(), z.string().nullable(), z.string().nullable()])),
  filterKeys: z.array(z.union([z.tuple([z.string(), z.string()]), z.tuple([z.string(), z.string(), z.string()])])).optional(),
});

/** Records in key order (those without a key last), so that the next delta's search finds them nearly sorted. */
export async function encodeState({ binding, issued, state, filterKeys }: KeptState): Promise<Uint8Array> {
  const records: Triple[] = [...state.records].map(([id, entry]) => [id, entry.key ?? null, entry.hash ?? null]);
  records.sort((a, b) => (a[1] === null ? (b[1] === null ? 0 : 1) : b[1] === null ? -1 : compareKeys(a[1], b[1])));
  return gzipJson({ v: 1, binding, issued, since: state.since, records, ...(filterKeys ? { filterKeys } : {}) });
}

/** The kept state, or undefined for bytes that are not one (a state is never trusted unread). */
export async function decodeState(bytes: Uint8Array): Promise<KeptState | undefined> {
  const decoded = await gunzipJson(bytes, kept);
  if (!decoded) return undefined;
  const { binding, issued, since, records, filterKeys } = decoded;
  return { binding, issued, state: { since, records: new Map(records.map(([id, key, hash]) => [id, { key: key ?? undefined, hash: hash ?? undefined }])) }, ...(filterKeys ? { filterKeys } : {}) };
}
