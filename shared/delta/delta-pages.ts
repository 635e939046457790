/**
 * The later pages of a JSON delta, as they are kept: a delta is worked out whole on its first
 * request (its state must be), so pages 2 to n are written then, each a gzip of JSON with what it
 * is bound to, and a link (`deltaPage`) answers one of them with one blob read and no store read.
 */
import { z } from 'zod';
import { gunzipJson, gzipJson } from './delta-blobs.js';
import { BINDING_SCHEMA, type StateBinding } from './state-codec.js';

/** One kept page of a delta. */
export interface KeptPage {
  readonly binding: StateBinding;
  /** When the delta was worked out (seconds): a page is answered for DELTA_PAGES_HOURS after. */
  readonly created: number;
  readonly page: number;
  readonly pageSize: number;
  readonly totalPages: number;
  /** The delta's rows, changed records and removals. */
  readonly totalRecords: number;
  /** The page's rows, as they are answered. */
  readonly rows: readonly Readonly<Record<string, unknown>>[];
  /** On the last page: the token to keep. */
  readonly deltaToken?: string | undefined;
  /** On the last page: every write before this instant is in this delta or an earlier one (X-Summary-As-Of). */
  readonly asOf?: string | undefined;
}

const kept = z.object({
  v: z.literal(1),
  binding: BINDING_SCHEMA,
  created: z.number().int().positive(),
  page: z.number().int().min(2),
  pageSize: z.number().int().positive(),
  totalPages: z.number().int().min(2),
  totalRecords: z.number().int().nonnegative(),
  rows: z.array(z.record(z.string(), z.unknown())),
  deltaToken: z.string().optional(),
  asOf: z.string().optional(),
});

export async function encodePage(page: KeptPage): Promise<Uint8Array> {
  return gzipJson({ v: 1, ...page });
}

/** The kept page, or undefined for bytes that are not one. */
export async function decodePage(bytes: Uint8Array): Promise<KeptPage | undefined> {
  const decoded = await gunzipJson(bytes, kept);
  if (!decoded) return undefined;
  const { v: _v, ...page } = decoded;
  return page;
}

/** Two bindings are the same: the page (or state) is the caller's, for the same view and filters. */
export function sameBinding(a: StateBinding, b: StateBinding): boolean {
  return a.tenant === b.tenant && a.clientId === b.clientId && a.resource === b.resource && a.view === b.view && a.filters === b.filters;
}
