import type { Allowlist } from '../access/allowlist.js';
import type { Authenticator } from '../auth/authenticate.js';
import type { PageCursors } from '../cursors/page-cursors.js';
import type { ResultDeps } from '../results/result-deps.js';
import type { RequestLogger } from '../telemetry/request-log-entry.js';

/** Everything a summary handler works with: what reading results needs, and the edges'. Built once per process, swapped freely in tests. */
export interface SummaryDeps extends ResultDeps {
  /** Server-side page cursors (bounded and optional: a failing one only slows walks down); the reader uses them guarded (`pageCursors`). */
  readonly cursors: PageCursors;
  readonly allowlist: Allowlist;
  /** The credentials check (remember-credentials.ts). */
  readonly authenticate: Authenticator;
  readonly log: RequestLogger;
}
