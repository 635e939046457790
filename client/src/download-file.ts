/**
 * One file of an export job, fetched from storage by its read-only URL: with none of the service's
 * credentials, over https, following no redirect, its body bounded by the size the manifest
 * declares, given up when the server is silent (READ_TIMEOUT_MS) or the call's deadline passes,
 * resumed where it broke off (a Range request, pinned to the blob's ETag), written as it comes,
 * hidden, beside where it goes, and hashed on the way; then checked against the manifest's bytes
 * and sha256 and as every reader of the folder would open it (decoded-size.ts), or deleted.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { checkParquet, fileBytes, UnsafeParquet } from './decoded-size.js';
import { partialFile } from './layout.js';
import type { ManifestFile } from './manifest.js';
import { printable } from './printable.js';
import { DeadlinePassed, networkCause, Stalled, withRetry, type RetryPolicy } from './retry.js';
import { BodyTooLarge, READ_TIMEOUT_MS, sendRequest, UnaskedCoding, UnsafeDocument } from './summary-api.js';

/** What the job's manifest says of a file, and where it goes in the folder. */
export interface JobFile {
  /** The file relative to --out (layout.ts: named by the client, never by the URL). */
  readonly file: string;
  readonly url: string;
  readonly records: number;
  readonly bytes: number;
  readonly sha256: string;
}

/** Storage refused the file's URL (403): its signature expired or was revoked. Asking the job again gives new URLs. */
export class UrlRefused extends Error {
  override readonly name = 'UrlRefused';
}

/** The file could not be had as the manifest describes it: the window fails, nothing of it is written. */
export class FileRefused extends Error {
  override readonly name = 'FileRefused';
}

export interface DownloadOptions {
  readonly out: string;
  readonly retry: RetryPolicy;
  /** The largest file taken (SUMMARY_MAX_EXPORT_BYTES). */
  readonly maxBytes: number;
  readonly signal: AbortSignal;
  readonly fetchImpl?: typeof fetch;
  readonly readTimeoutMs?: number;
  readonly onRetry?: (why: string, waitMs: number) => void;
}

/**
 * Downloads `file` and writes it hidden (partialFile) once it is whole and checked; resolves with
 * its manifest entry. Rejects with UrlRefused (403), FileRefused (anything else that no retry
 * changed), or the abort's reason.
 */
export async function downloadFile(file: JobFile, options: DownloadOptions): Promise<ManifestFile> {
  const url = safeUrl(file.url);
  if (!Number.isSafeInteger(file.bytes) || file.bytes < 0 || file.bytes > options.maxBytes) {
    throw new FileRefused(`${file.file}: the manifest declares ${file.bytes} bytes, more than SUMMARY_MAX_EXPORT_BYTES (${options.maxBytes}) or no size`);
  }
  // The body goes to disk as it comes, hashed on the way: memory holds a chunk, whatever size the
  // manifest declares (a file refused is deleted, never read back whole).
  const hidden = join(options.out, partialFile(file.file));
  mkdirSync(dirname(hidden), { recursive: true });
  const sink = await open(hidden, 'w+');
  let hash = createHash('sha256');
  let received = 0;
  let etag: string | null = null;
  const restart = async () => {
    await sink.truncate(0);
    hash = createHash('sha256');
    received = 0;
  };
  const send = async (deadline: AbortSignal): Promise<{ response: Response }> => {
    // Broken off after its last byte (a stall before the end): nothing left to ask for.
    if (received > 0 && received === file.bytes && etag !== null) return { response: new Response(null, { status: 206 }) };
    // Resumed: the rest of the same blob, or (a changed blob) a 412 and the whole file again.
    const resume: Record<string, string> = received > 0 && etag !== null ? { range: `bytes=${received}-`, 'if-match': etag } : {};
    if (received > 0 && etag === null) await restart();
    const request = new Request(url, { headers: { accept: 'application/vnd.apache.parquet, application/octet-stream', 'accept-encoding': 'identity', ...resume } });
    const response = await sendRequest(options.fetchImpl ?? fetch, request, deadline, { maxExportBytes: file.bytes, readTimeoutMs: options.readTimeoutMs ?? READ_TIMEOUT_MS });
    if (response.status === 200 || response.status === 206) {
      if (response.status === 200 || !resume.range) {
        await restart();
      } else if (!response.headers.get('content-range')?.startsWith(`bytes ${received}-`)) {
        void response.body?.cancel().catch(() => {});
        throw new FileRefused(`${file.file}: storage answered a part that is not the rest asked for (${printable(response.headers.get('content-range') ?? 'no Content-Range', 80)})`);
      }
      etag = response.headers.get('etag');
      const declared = response.headers.get('content-length');
      if (declared !== null && Number(declared) !== file.bytes - received) {
        void response.body?.cancel().catch(() => {});
        throw new FileRefused(`${file.file}: storage declares ${printable(declared, 20)} bytes, the manifest ${file.bytes - received}`);
      }
      // The body as it comes, kept when it breaks off: the next attempt asks for the rest.
      const reader = response.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (received + value.byteLength > file.bytes) {
          void reader.cancel().catch(() => {});
          throw new BodyTooLarge(file.bytes, response.status, true);
        }
        // At its place in the file: a restart truncates it, and a write goes where `received` says.
        await sink.write(value, 0, value.byteLength, received);
        hash.update(value);
        received += value.byteLength;
      }
    } else if (response.status === 412 && resume.range) {
      // The blob changed since the first part (a window redone): the whole file again.
      etag = null;
      await restart();
      return await send(deadline);
    }
    return { response };
  };
  try {
    await fetchWhole(file, options, send);
    if (received !== file.bytes) throw new FileRefused(`${file.file}: ${received} bytes came, the manifest declares ${file.bytes}`);
    const sum = hash.digest('hex');
    if (sum !== file.sha256) throw new FileRefused(`${file.file}: its sha256 is not the manifest's (the file was changed in storage or on the way)`);
    let rows: number;
    try {
      // Read back a footer and a column chunk at a time (decoded-size.ts), never whole.
      rows = checkParquet(fileBytes(sink.fd, received)).rows;
    } catch (error) {
      if (!(error instanceof UnsafeParquet)) throw error;
      throw new FileRefused(`${file.file}: a file that no reader of the folder should open: ${printable(error.message)}`);
    }
    if (rows !== file.records) throw new FileRefused(`${file.file}: it holds ${rows} rows, the manifest says ${file.records}`);
    await sink.close();
    return { file: file.file, rows, bytes: received, sha256: sum };
  } catch (error) {
    await sink.close().catch(() => {});
    rmSync(hidden, { force: true });
    throw error;
  }
}

/** `send` with retries until storage answers the whole file; the failures a window takes, as FileRefused or UrlRefused. */
async function fetchWhole(file: JobFile, options: DownloadOptions, send: (deadline: AbortSignal) => Promise<{ response: Response }>): Promise<Response> {
  let response: Response;
  try {
    // The run's end stops the request under way and the waits between attempts (no backoff sat out).
    ({ response } = await withRetry(send, options.retry, options.onRetry, undefined, options.signal));
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    if (error instanceof FileRefused) throw error;
    if (error instanceof DeadlinePassed) throw new FileRefused(`${file.file}: storage gave ${error.message}`);
    if (error instanceof BodyTooLarge) throw new FileRefused(`${file.file}: storage sent more than the ${file.bytes} bytes the manifest declares`);
    if (error instanceof UnsafeDocument) throw new FileRefused(`${file.file}: storage's answer (${error.status}) is refused before parsing`);
    if (error instanceof UnaskedCoding) throw new FileRefused(`${file.file}: storage answered in the ${printable(error.coding)} coding, which this client did not ask for`);
    if (error instanceof Stalled) throw new FileRefused(`${file.file}: storage was silent: ${error.message}`);
    if (error instanceof TypeError) throw new FileRefused(`${file.file}: storage could not be reached (${networkCause(error)})`);
    throw error;
  }
  if (response.status === 403) throw new UrlRefused(`${file.file}: storage refused its URL (403): it expired or was revoked`);
  if (response.status !== 200 && response.status !== 206) {
    throw new FileRefused(`${file.file}: storage answered ${response.status}${response.status === 404 ? ' (the job was cancelled or has expired, and its files are gone)' : ''}`);
  }
  return response;
}

/** The URL if it is one to fetch a file from: https, without a user or password in it. */
function safeUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new FileRefused('the manifest lists a file URL that is not a URL');
  }
  if (url.protocol !== 'https:' || url.username || url.password) throw new FileRefused(`the manifest lists a file URL that is not plain https (${printable(url.protocol, 10)}): refused`);
  return url.href;
}
