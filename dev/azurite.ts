/**
 * The local stack's Azure Storage: Azurite (the npm package, Microsoft's emulator) in a child
 * process, in memory, over https with a certificate from the local CA, and with OAuth on: a user
 * delegation key, which signs the export files' SAS, is only handed out to a bearer token over https,
 * as in Azure. Blob and queue hold the export jobs' files and messages; table runs because the
 * emulator's one command starts it (nothing here uses it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerCertificate } from './local-ca.js';

/** Where Azurite listens; 0 picks a free port. */
export interface AzuriteOptions {
  readonly host?: string;
  readonly blobPort?: number;
  readonly queuePort?: number;
  readonly tablePort?: number;
  readonly certificate: ServerCertificate;
}

/** A running Azurite. */
export interface RunningAzurite {
  /** The emulator's account: `https://127.0.0.1:10000/devstoreaccount1` (path-style, as Azurite names accounts on an IP). */
  readonly blobUrl: string;
  readonly queueUrl: string;
  readonly tableUrl: string;
  stop(): Promise<void>;
}

/** Azurite's one account. Its well-known key is never used here: every call carries a token. */
const AZURITE_ACCOUNT = 'devstoreaccount1';

/** How long Azurite may take to listen (it starts in about a second). */
const START_TIMEOUT_MS = 30_000;

/** Starts Azurite and resolves once its three services listen. */
export async function startAzurite(options: AzuriteOptions): Promise<RunningAzurite> {
  const host = options.host ?? '127.0.0.1';
  const dir = mkdtempSync(join(tmpdir(), 'azurite-tls-'));
  writeFileSync(join(dir, 'cert.pem'), options.certificate.cert);
  writeFileSync(join(dir, 'key.pem'), options.certificate.key, { mode: 0o600 });
  const script = createRequire(import.meta.url).resolve('azurite/dist/src/azurite.js');
  // The emulator exits with this process, however it ends (a killed test run, a killed npm start):
  // its IPC channel closes then, and the one line imported first exits on that.
  const child = spawn(process.execPath, [
    '--import', `data:text/javascript,${encodeURIComponent("process.on('disconnect', () => process.exit(0));")}`,
    script, '--inMemoryPersistence', '--silent', '--extentMemoryLimit', '512', '--oauth', 'basic',
    '--cert', join(dir, 'cert.pem'), '--key', join(dir, 'key.pem'),
    '--blobHost', host, '--queueHost', host, '--tableHost', host,
    '--blobPort', String(options.blobPort ?? 0), '--queuePort', String(options.queuePort ?? 0), '--tablePort', String(options.tablePort ?? 0),
    '--disableTelemetry', '--skipApiVersionCheck', '--loose',
  ], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  try {
    const urls = await listeningUrls(child);
    let stopped: Promise<void> | undefined;
    return {
      blobUrl: `${urls.Blob}/${AZURITE_ACCOUNT}`,
      queueUrl: `${urls.Queue}/${AZURITE_ACCOUNT}`,
      tableUrl: `${urls.Table}/${AZURITE_ACCOUNT}`,
      stop: () => (stopped ??= stopChild(child)),
    };
  } catch (error) {
    await stopChild(child);
    throw error;
  } finally {
    // Read once, when its servers start: the key is not left on disk.
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What is kept of Azurite's output while it starts, for the error that says why it did not. */
const OUTPUT_KEPT = 20_000;

/** The URL each service says it listens at ("Azurite Blob service is successfully listening at https://…"). */
function listeningUrls(child: ChildProcess): Promise<Record<'Blob' | 'Queue' | 'Table', string>> {
  return new Promise((resolve, reject) => {
    const found: Partial<Record<'Blob' | 'Queue' | 'Table', string>> = {};
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT));
    const timer = setTimeout(() => fail(new Error(`Azurite did not start within ${START_TIMEOUT_MS / 1000} s:\n${output}`)), START_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    const read = (chunk: Buffer) => {
      keep(chunk);
      for (const match of output.matchAll(/Azurite (Blob|Queue|Table) service is successfully listening at (https:\/\/\S+)/g)) {
        found[match[1] as 'Blob' | 'Queue' | 'Table'] = match[2]!.replace(/\/$/, '');
      }
      if (found.Blob && found.Queue && found.Table) {
        clearTimeout(timer);
        child.stdout!.off('data', read);
        child.stderr!.off('data', keep);
        // What it prints is not ours to show; read on so that a full pipe never stalls it.
        child.stdout!.resume();
        child.stderr!.resume();
        resolve(found as Record<'Blob' | 'Queue' | 'Table', string>);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', keep);
    child.once('exit', (code) => fail(new Error(`Azurite exited (${code}) before it listened:\n${output}`)));
    child.once('error', fail);
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  // Never started (a failed spawn emits no 'exit'), or already gone.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
    child.kill('SIGTERM');
    // Azurite closes its servers on SIGTERM; one that hangs is killed.
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}
