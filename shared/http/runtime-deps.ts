import { loadConfig } from '../config/load-config.js';
import { createSummaryDeps, type SummaryDeps } from './create-summary-deps.js';

let deps: SummaryDeps | undefined;

/**
 * The process-wide collaborators, built on first use from the environment. The function files
 * call this while the host loads them, so a bad setting stops start-up with a message naming it.
 */
export function runtimeDeps(): SummaryDeps {
  deps ??= createSummaryDeps(loadConfig());
  return deps;
}
