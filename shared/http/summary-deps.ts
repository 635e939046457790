import type { Allowlist } from '../access/allowlist.js';
import type { ApiKeyChecker } from '../auth/api-key-checker.js';
import type { TokenVerifier } from '../auth/token-verifier.js';
import type { Config } from '../config/load-config.js';
import type { RecordStore } from '../store/record-store.js';
import type { RequestLogger } from './request-log-entry.js';
import type { ExportSlots } from '../output/export-slots.js';

/** Everything a summary handler works with; built once per process, swapped freely in tests. */
export interface SummaryDeps {
  readonly config: Config;
  readonly store: RecordStore;
  readonly allowlist: Allowlist;
  readonly checkApiKey: ApiKeyChecker;
  readonly verifyToken: TokenVerifier;
  readonly clock: () => Date;
  readonly log: RequestLogger;
  /** Bounds concurrent Parquet exports (memory: slots × PARQUET_MAX_BYTES). */
  readonly exportSlots: ExportSlots;
}
