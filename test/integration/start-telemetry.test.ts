import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';

// The production wiring, in a fresh process (it registers global providers): with a connection
// string the Azure Monitor distro and the Functions instrumentation load and a real tracer
// provider is registered (nothing is sent: the ingestion endpoint is a closed loopback port);
// without one nothing loads.
const root = new URL('../../', import.meta.url);
const probe = (connectionString: string | null) => `
  const { trace } = await import('@opentelemetry/api');
  const before = Object.keys(await import('node:module')).length;
  const { startTelemetry } = await import(${JSON.stringify(new URL('dist/shared/telemetry/start-telemetry.js', root).href)});
  const { lazyManagedIdentity } = await import(${JSON.stringify(new URL('dist/shared/app/managed-identity.js', root).href)});
  const started = await startTelemetry(${connectionString === null ? 'undefined' : JSON.stringify(connectionString)}, lazyManagedIdentity());
  const span = trace.getTracer('probe').startSpan('probe');
  console.log(JSON.stringify({ started, recording: span.isRecording(), provider: trace.getTracerProvider().constructor.name, before }));
  span.end();
  process.exit(0);
`;

async function run(connectionString: string | null): Promise<{ started: boolean; recording: boolean; provider: string }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe(connectionString)], { cwd: root, env: { PATH: process.env.PATH }, timeout: 20_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { started: boolean; recording: boolean; provider: string };
}

describe('startTelemetry', () => {
  it('registers the Azure Monitor pipeline when a connection string is set', async () => {
    const result = await run('InstrumentationKey=00000000-0000-4000-8000-000000000000;IngestionEndpoint=https://127.0.0.1:9/');
    expect(result).toMatchObject({ started: true, recording: true });
  });

  it('loads nothing and records nothing without one (the local default)', async () => {
    expect(await run(null)).toMatchObject({ started: false, recording: false });
  });
});
