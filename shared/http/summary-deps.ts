import type { Allowlist } from '../access/allowlist.js';
import type { Authenticator } from '../auth/authenticate.js';
import type { Config } from '../config/load-config.js';
import type { PageCursors } from '../cursors/page-cursors.js';
import type { GuardedCursors } from '../cursors/guarded-cursors.js';
import type { RecordStore } from '../store/record-store.js';
import type { ExportSlots } from '../admission/export-slots.js';
import type { RequestLogger } from './request-log-entry.js';
import type { Clock } from '../util/clock.js';

/** Everything a summary handler works with; built once per process, swapped freely in tests. */
export interface SummaryDeps {
  readonly config: Config;
  readonly store: RecordStore;
  /** Server-side page cursors (bounded and optional: a failing one only slows walks down). */
  readonly cursors: PageCursors;
  /** The same cursors as the result reader uses them: guarded (deadline, breaker), failures counted (guarded-cursors.ts). */
  readonly pageCursors: GuardedCursors;
  readonly allowlist: Allowlist;
  /** The credentials check (remember-credentials.ts). */
  readonly authenticate: Authenticator;
  /** The one clock every part reads (util/clock.ts). */
  readonly clock: Clock;
  readonly log: RequestLogger;
  /** Bounds concurrent Parquet exports (memory: slots × PARQUET_MAX_BYTES). */
  readonly exportSlots: ExportSlots;
}
