/**
 * The manifest a pull keeps in its output folder (`_manifest.json`: readers skip it): what was
 * asked, the schema fingerprint every file shares, the folder's watermark, and per window its
 * status, the result's ETag, the time its files reflect (asOf), files, rows, bytes, sha256 and the
 * request ids. A re-run checks every window by its ETag (its files checked against the sha256
 * first) and pulls again only what changed, so it never duplicates and never misses a change.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isDatasetName, type DatasetName, type Format } from './datasets.js';
import { dataFile, dataFilePattern, LEGACY_MANIFEST_FILE, legacyFilePattern, MANIFEST_FILE, partialFile, tablesOf } from './layout.js';
import { nextDay, parseDay } from './windows.js';
import { SummaryClientError } from './client-error.js';

/** What a pull asks for, and of whom; a folder holds the pull of one request only. */
export interface PullRequestKey {
  /** The service's base URL: a folder started against UAT never resumes against production. */
  readonly service: string;
  /** The client id whose roles shaped the files (their columns), or `default credential`. */
  readonly client: string;
  readonly dataset: string;
  readonly format: string;
  readonly by: string;
  readonly filters: Readonly<Record<string, string>>;
}

export interface ManifestFile {
  /** Relative to the folder, as layout.ts names it (`contracts-2025-03.parquet`, `invoices/invoices-2025-03.parquet`). */
  readonly file: string;
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
}

/**
 * `done`: pulled; later runs check it by its ETag and pull it again only when it changed (or its
 * files are not intact). `failed`: holds no files; pulled again.
 */
export type WindowStatus = 'done' | 'failed';

export interface ManifestWindow {
  /** `YYYY-MM`, or `from_to` for a part of a month. */
  readonly window: string;
  readonly from: string;
  readonly to: string;
  readonly status: WindowStatus;
  /** The service's ETag of the window's result when its files were pulled (absent: pulled by an older client, or failed). */
  readonly etag?: string;
  /**
   * The service's X-Summary-As-Of of the last answer about the window: every write before it is in
   * its files (absent: pulled by an older client or from an older service, or failed).
   */
  readonly asOf?: string;
  /** Still being written when pulled: its files are the second answer, kept as pulled; the next run checks it again. */
  readonly moving?: true;
  readonly rows: number;
  readonly bytes: number;
  readonly files: readonly ManifestFile[];
  /** The service's X-Request-ID of the last call (support can trace it); several for a JSON walk. */
  readonly requestIds: readonly string[];
  readonly error?: string;
  readonly finishedAt: string;
}

export interface Manifest {
  readonly version: 3;
  readonly request: PullRequestKey;
  /** The service's X-Summary-Schema of every file listed (absent: not known yet, or a folder of an older client). */
  schema?: string;
  /**
   * Every write that landed before it is in the folder: the oldest asOf of its windows (watermark.ts).
   * Absent while a window has no asOf or failed without files to stand for it.
   */
  watermark?: string;
  /**
   * The export job of the last run that went through one: its id (support can trace it) and its
   * transactionTime, the watermark of the windows it answered. Absent after a run window by window.
   */
  job?: { readonly id: string; readonly transactionTime: string };
  /**
   * The token of the folder's last delta (delta-pass.ts) and the range it was asked for: the next
   * run of the same range asks what changed since it. Absent: the folder is not kept by a delta yet.
   */
  delta?: { readonly token: string; readonly from: string; readonly to: string };
  windows: ManifestWindow[];
}

const VERSION = 3;

/** The folder cannot take this pull: another request's pull, or a manifest that cannot be read or trusted. */
export class ManifestError extends SummaryClientError {
  readonly code = 'MANIFEST_INVALID';
  override readonly name = 'ManifestError';
}

/**
 * The manifest in `dir`, or a new one (kept in memory until the first window is pulled: a pull
 * that fails before never leaves one). A folder that holds another request's pull is refused. One
 * of an older client is read as this version without validators (every window is pulled again once,
 * the whole folder at once): an earlier version's (`_manifest.json` version 2), or 0.1's
 * (`manifest.json`, invoices' tables side by side), which is taken over.
 */
export function openManifest(dir: string, request: PullRequestKey, options: OpenOptions = {}): Manifest {
  const path = join(dir, MANIFEST_FILE);
  const check = (manifest: Manifest) => checkRequest(dir, manifest, options.anySource ? { ...request, service: manifest.request.service, client: manifest.request.client } : request);
  if (existsSync(path)) return check(readManifest(path, [2, VERSION], request));
  const legacy = join(dir, LEGACY_MANIFEST_FILE);
  if (existsSync(legacy)) return takeOver(dir, check(readManifest(legacy, [1], request)), !options.readOnly);
  return { version: VERSION, request, windows: [] };
}

export interface OpenOptions {
  /** Change nothing in the folder (a dry run): a manifest of summary-client 0.1 is read as taken over, not moved. */
  readonly readOnly?: boolean;
  /** Take the folder's own service and client (a dry run without settings). */
  readonly anySource?: boolean;
}

/** Reads a manifest of one of `versions`, as this version: an older one without validators or schema. */
function readManifest(path: string, versions: readonly number[], request: PullRequestKey): Manifest {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ManifestError(`${path} cannot be read (${error instanceof Error ? error.message : String(error)}): pull into another --out`);
  }
  const problem = manifestProblem(manifest, versions, request);
  if (problem) throw new ManifestError(`${path} is refused: ${problem}. Nothing was changed; pull into another --out`);
  const read = manifest as Omit<Manifest, 'version'> & { version: number };
  if (read.version === VERSION) return read as Manifest;
  // 'open' windows of version 2 hold files like done ones; no window of an older client has an ETag.
  const windows = read.windows.map(({ etag: _etag, ...entry }) => ({ ...entry, status: entry.status === 'failed' ? 'failed' as const : 'done' as const }));
  return { version: VERSION, request: read.request, windows };
}

/** What makes `value` no manifest this client can trust, or undefined. */
function manifestProblem(value: unknown, versions: readonly number[], asked: PullRequestKey): string | undefined {
  const manifest = value as { version?: unknown; request?: Partial<PullRequestKey>; schema?: unknown; watermark?: unknown; windows?: unknown } | null;
  const version = manifest?.version;
  if (typeof version !== 'number' || !versions.includes(version) || !Array.isArray(manifest!.windows)) return `not a version ${versions.join(' or ')} manifest of summary-client`;
  if (manifest!.schema !== undefined && typeof manifest!.schema !== 'string') return 'its schema is not a fingerprint';
  if (manifest!.watermark !== undefined && typeof manifest!.watermark !== 'string') return 'its watermark is not a time';
  const job = (manifest as { job?: { id?: unknown; transactionTime?: unknown } }).job;
  if (job !== undefined && (typeof job?.id !== 'string' || typeof job.transactionTime !== 'string')) return 'its job is not an id and a time';
  const delta = (manifest as { delta?: { token?: unknown; from?: unknown; to?: unknown } }).delta;
  if (delta !== undefined && (typeof delta?.token !== 'string' || typeof delta.from !== 'string' || typeof delta.to !== 'string')) return 'its delta is not a token and a range';
  const request = manifest!.request;
  if (!['service', 'client', 'dataset', 'format', 'by'].every((key) => typeof request?.[key as keyof PullRequestKey] === 'string') || typeof request?.filters !== 'object' || request.filters === null) {
    return 'its request is not complete';
  }
  // The files of the request this run makes (another request is refused by checkRequest after this).
  const dataset = isDatasetName(request.dataset!) ? request.dataset : (asked.dataset as DatasetName);
  const format = (request.format === 'jsonl' || request.format === 'parquet' ? request.format : asked.format) as Format;
  const pattern = version === 1 ? legacyFilePattern(dataset, format) : dataFilePattern(dataset, format);
  for (const entry of manifest!.windows as Partial<ManifestWindow>[]) {
    if (typeof entry?.window !== 'string' || typeof entry.from !== 'string' || typeof entry.to !== 'string' || parseDay(entry.from) === undefined || parseDay(entry.to) === undefined || !Array.isArray(entry.files)) {
      return 'a window entry is not complete';
    }
    if (!['done', 'open', 'failed'].includes(entry.status as string)) return `window ${entry.window} has no known status`;
    if (entry.etag !== undefined && typeof entry.etag !== 'string') return `window ${entry.window} has an ETag that is not text`;
    if (entry.asOf !== undefined && (typeof entry.asOf !== 'string' || Number.isNaN(Date.parse(entry.asOf)))) return `window ${entry.window} has an asOf that is not a time`;
    for (const file of entry.files as Partial<ManifestFile>[]) {
      if (typeof file?.file !== 'string' || typeof file.sha256 !== 'string') return `window ${entry.window} lists a file without name or sha256`;
      // Files are only ever named by the client: anything else (../elsewhere, an absolute path) is never touched.
      if (!pattern.test(file.file)) return `it lists ${JSON.stringify(file.file)}, which is not a file summary-client writes for this pull`;
    }
  }
  return undefined;
}

function checkRequest(dir: string, manifest: Manifest, request: PullRequestKey): Manifest {
  if (JSON.stringify(canonical(manifest.request)) !== JSON.stringify(canonical(request))) {
    throw new ManifestError(`${dir} holds a pull of ${describe(manifest.request)}, not of ${describe(request)}: use another --out`);
  }
  return manifest;
}

/**
 * Takes over a folder of summary-client 0.1: the manifest becomes `_manifest.json` and invoices'
 * tables move into their folders. Its windows have no ETag: the next run pulls them again.
 */
function takeOver(dir: string, legacy: Manifest, write: boolean): Manifest {
  const dataset = legacy.request.dataset as DatasetName;
  const format = legacy.request.format as Format;
  const tables = tablesOf(dataset, format);
  const windows = legacy.windows.map((entry) => {
    // Read only (a dry run), the files are looked at where 0.1 left them.
    const files = !write ? entry.files : entry.files.map((file) => {
      const table = tables.find((name) => file.file.startsWith(`${name}-`))!;
      const moved = dataFile(dataset, table, file.file.slice(table.length + 1).replace(/\.(parquet|jsonl)$/, ''), format);
      if (moved !== file.file && existsSync(join(dir, file.file))) {
        mkdirSync(dirname(join(dir, moved)), { recursive: true });
        renameSync(join(dir, file.file), join(dir, moved));
      }
      return { ...file, file: moved };
    });
    return { ...entry, files };
  });
  const manifest: Manifest = { version: VERSION, request: legacy.request, windows };
  if (write) {
    saveManifest(dir, manifest);
    rmSync(join(dir, LEGACY_MANIFEST_FILE), { force: true });
  }
  return manifest;
}

/** Every data file the manifest lists. */
export function listedFiles(manifest: Manifest): Set<string> {
  return new Set(manifest.windows.flatMap((entry) => entry.files.map((file) => file.file)));
}

/** Writes the manifest atomically (a stopped run never leaves half a manifest). */
export function saveManifest(dir: string, manifest: Manifest): void {
  const path = join(dir, MANIFEST_FILE);
  const partial = join(dir, partialFile(MANIFEST_FILE));
  writeFileSync(partial, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(partial, path);
}

/**
 * The done entries tiling `from`..`to` with an ETag and intact files: what a run checks by their
 * ETags. Null when the window must be pulled whole (a part failed or is missing, a file was
 * changed or removed, or it was pulled by an older client).
 */
export function checkableEntries(manifest: Manifest, dir: string, from: string, to: string): ManifestWindow[] | null {
  const inside = manifest.windows.filter((entry) => entry.from >= from && entry.to <= to);
  if (inside.length === 0 || inside.some((entry) => entry.status !== 'done' || !entry.etag)) return null;
  // The parts must tile the window exactly: no gap, no overlap.
  let expected = from;
  for (const entry of inside) {
    if (entry.from !== expected) return null;
    expected = nextDay(entry.to);
  }
  if (expected !== nextDay(to)) return null;
  const intact = inside.every((entry) => entry.files.every((file) => sha256File(join(dir, file.file)) === file.sha256));
  return intact ? inside : null;
}

/**
 * The folder's watermark: every write that landed before it is in the folder, the oldest asOf of
 * its windows. Undefined while a window has none (pulled by an older client, or from a service
 * that sends no X-Summary-As-Of), or a failed window has no files of an earlier pull to stand for it.
 */
export function watermarkOf(manifest: Manifest): string | undefined {
  const done = manifest.windows.filter((entry) => entry.status === 'done').sort((a, b) => a.from.localeCompare(b.from));
  if (done.length === 0 || done.some((entry) => entry.asOf === undefined)) return undefined;
  for (const failed of manifest.windows.filter((entry) => entry.status === 'failed')) {
    let day = failed.from;
    for (const entry of done) if (entry.from <= day && entry.to >= day) day = nextDay(entry.to);
    if (day <= failed.to) return undefined;
  }
  return done.map((entry) => entry.asOf!).reduce((oldest, asOf) => (Date.parse(asOf) < Date.parse(oldest) ? asOf : oldest));
}

export function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A listed file's bytes when it is the one the manifest lists (its sha256), else undefined (changed, removed, unreadable). */
export function readListedFile(dir: string, file: Pick<ManifestFile, 'file' | 'sha256'>): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, file.file));
  } catch {
    return undefined;
  }
  return sha256(bytes) === file.sha256 ? bytes : undefined;
}

/** The sha256 of a file, read a chunk at a time (a 2 GiB export is past what one read returns), or undefined when there is none. */
export function sha256File(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(16 * 1024 * 1024);
  const fd = openSync(path, 'r');
  try {
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) hash.update(chunk.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

function canonical(request: PullRequestKey): PullRequestKey {
  return { ...request, filters: Object.fromEntries(Object.entries(request.filters).sort(([a], [b]) => a.localeCompare(b))) };
}

function describe(request: PullRequestKey): string {
  const filters = Object.entries(request.filters).map(([name, value]) => ` ${name}=${value}`).join('');
  return `${request.dataset} as ${request.format} by ${request.by}${filters} from ${request.service} as ${request.client}`;
}
