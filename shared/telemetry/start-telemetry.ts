import type { TokenCredential } from '@azure/identity';
import { trace } from '@opentelemetry/api';

/**
 * Sends the service's traces and metrics to Application Insights, as Azure Functions on Node
 * expects it: the Azure Monitor OpenTelemetry distro (ingestion authenticated with the app's
 * managed identity: the component has local auth disabled, so the connection string is no
 * secret) and the Functions instrumentation, which joins our spans to the host's invocation
 * (host.json `telemetryMode: OpenTelemetry`). Loaded only when a connection string is set: the
 * local stack and the tests never load the exporters. Resolves to whether telemetry was started.
 */
export async function startTelemetry(connectionString: string | undefined, credential: TokenCredential): Promise<boolean> {
  if (connectionString === undefined) return false;
  const [{ useAzureMonitor }, functionsModule] = await Promise.all([
    import('@azure/monitor-opentelemetry'),
    import('@azure/functions-opentelemetry-instrumentation'),
  ]);
  // A CommonJS package: under Node's ES module loader its exports are on `default`.
  const { AzureFunctionsInstrumentation } = ('default' in functionsModule ? functionsModule.default : functionsModule) as typeof functionsModule;
  useAzureMonitor({
    azureMonitorExporterOptions: { connectionString, credential },
    // Every request's trace: support looks a request up by its id. (The distro's default samples
    // at most 5 traces a second, which drops most of a busy minute.)
    samplingRatio: 1,
    tracesPerSecond: 0,
    // Our own spans carry what matters; the HTTP instrumentation would add one per store round trip.
    instrumentationOptions: { http: { enabled: false } },
  });
  const functions = new AzureFunctionsInstrumentation();
  functions.setTracerProvider(trace.getTracerProvider());
  functions.enable();
  return true;
}
