import type { Config } from '../config/load-config.js';
import type { GuardedCursors } from '../cursors/guarded-cursors.js';
import type { RecordStore } from '../store/record-store.js';
import type { ExportSlots } from '../admission/export-slots.js';
import type { Clock } from '../util/clock.js';

/** What reading a result works with: the store, the page cursors, the export slots, the clock, the settings and a log for what it only warns about. */
export interface ResultDeps {
  readonly config: Config;
  readonly store: RecordStore;
  /** The page cursors as the reader uses them: guarded (deadline, breaker), failures counted (guarded-cursors.ts). */
  readonly pageCursors: GuardedCursors;
  /** The one clock every part reads (util/clock.ts). */
  readonly clock: Clock;
  /** Bounds concurrent exports (memory: slots × PARQUET_MAX_BYTES). */
  readonly exportSlots: ExportSlots;
  readonly log: { warning(requestId: string, message: string): void };
}
