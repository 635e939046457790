import type { DeltaReads } from '../store/record-store.js';
import type { DeltaBlobs } from './delta-blobs.js';

/** What the delta feed works with beside the summary operations' own: the store's delta reads, its blobs, a token's life. */
export interface DeltaDeps {
  readonly reads: DeltaReads;
  readonly blobs: DeltaBlobs;
  /** How long a token is answered, in days (DELTA_TOKEN_DAYS). */
  readonly tokenDays: number;
}
