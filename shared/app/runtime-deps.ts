import { loadConfig } from '../config/load-config.js';
import { createSummaryDeps } from './create-summary-deps.js';
import type { SummaryDeps } from '../http/summary-deps.js';
import { summaryEndpoints, type SummaryEndpoint } from '../http/summary-endpoint.js';
import { RESOURCES } from '../model/resources.js';
import { lazyManagedIdentity } from './managed-identity.js';
import { startTelemetry } from '../telemetry/start-telemetry.js';

let deps: SummaryDeps | undefined;

/**
 * The process-wide collaborators, built on first use from the environment. The function files
 * call this while the host loads them, so a bad setting stops start-up with a message naming it.
 */
export function runtimeDeps(): SummaryDeps {
  if (!deps) {
    const config = loadConfig();
    deps = createSummaryDeps(config);
    // Exporters load in the background; spans before they are ready are not exported.
    void startTelemetry(config.telemetryConnectionString, lazyManagedIdentity()).catch((error: unknown) => deps!.log.fault('telemetry', error));
  }
  return deps;
}

let endpoints: ReadonlyMap<string, SummaryEndpoint> | undefined;

/** Every resource's operation over runtimeDeps(), made once per process: the summary operations and export jobs share them. */
export function runtimeEndpoints(): ReadonlyMap<string, SummaryEndpoint> {
  return (endpoints ??= summaryEndpoints(RESOURCES, runtimeDeps()));
}
