/**
 * The manifest a pull keeps in its output folder (`manifest.json`): what was asked, and per window
 * its status, files, rows, bytes, sha256 and the request id. A re-run reads it to skip the windows
 * already done (their files checked against the sha256), so it resumes and never duplicates.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nextDay } from './windows.js';

export const MANIFEST_FILE = 'manifest.json';

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
  readonly file: string;
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
}

export interface ManifestWindow {
  /** `YYYY-MM`, or `from_to` for a part of a month that was split. */
  readonly window: string;
  readonly from: string;
  readonly to: string;
  readonly status: 'done' | 'failed';
  readonly rows: number;
  readonly bytes: number;
  readonly files: readonly ManifestFile[];
  /** The service's X-Request-ID of the last call (support can trace it); several for a JSON walk. */
  readonly requestIds: readonly string[];
  readonly error?: string;
  readonly finishedAt: string;
}

export interface Manifest {
  readonly version: 1;
  readonly request: PullRequestKey;
  windows: ManifestWindow[];
}

/** The folder cannot take this pull: another request's pull, or a manifest that cannot be read. */
export class ManifestError extends Error {}

/** The manifest in `dir`, or a new one; refuses a folder that holds another request's pull. */
export function openManifest(dir: string, request: PullRequestKey): Manifest {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) return { version: 1, request, windows: [] };
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
    if (!isManifest(manifest)) throw new Error('not a version 1 manifest of summary-client');
  } catch (error) {
    throw new ManifestError(`${path} cannot be read (${error instanceof Error ? error.message : String(error)}): pull into another --out`);
  }
  if (JSON.stringify(canonical(manifest.request)) !== JSON.stringify(canonical(request))) {
    throw new ManifestError(`${dir} holds a pull of ${describe(manifest.request)}, not of ${describe(request)}: use another --out`);
  }
  return manifest;
}

function isManifest(value: unknown): value is Manifest {
  const manifest = value as Partial<Manifest> | null;
  const request = manifest?.request as Partial<PullRequestKey> | undefined;
  return manifest?.version === 1 && Array.isArray(manifest.windows)
    && ['service', 'client', 'dataset', 'format', 'by'].every((key) => typeof request?.[key as keyof PullRequestKey] === 'string')
    && typeof request?.filters === 'object' && request.filters !== null
    && manifest.windows.every((entry) => typeof entry?.window === 'string' && typeof entry.from === 'string' && typeof entry.to === 'string' && Array.isArray(entry.files) && entry.files.every((file) => typeof file?.file === 'string' && typeof file.sha256 === 'string'));
}

/** Every data file the manifest lists. */
export function listedFiles(manifest: Manifest): Set<string> {
  return new Set(manifest.windows.flatMap((entry) => entry.files.map((file) => file.file)));
}

/** Writes the manifest atomically (a stopped run never leaves half a manifest). */
export function saveManifest(dir: string, manifest: Manifest): void {
  const path = join(dir, MANIFEST_FILE);
  writeFileSync(`${path}.partial`, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(`${path}.partial`, path);
}

/** Records a window's outcome, replacing what the manifest said of the same window before. */
export function recordWindow(manifest: Manifest, entry: ManifestWindow): void {
  manifest.windows = [...manifest.windows.filter((existing) => existing.window !== entry.window), entry].sort((a, b) => a.from.localeCompare(b.from));
}

/** The done entries covering `from`..`to` whose files are intact, or null when it must be pulled (again). */
export function doneEntries(manifest: Manifest, dir: string, from: string, to: string): ManifestWindow[] | null {
  const inside = manifest.windows.filter((entry) => entry.from >= from && entry.to <= to);
  if (inside.length === 0 || inside.some((entry) => entry.status !== 'done')) return null;
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

export function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function sha256File(path: string): string | undefined {
  return existsSync(path) ? sha256(readFileSync(path)) : undefined;
}

function canonical(request: PullRequestKey): PullRequestKey {
  return { ...request, filters: Object.fromEntries(Object.entries(request.filters).sort(([a], [b]) => a.localeCompare(b))) };
}

function describe(request: PullRequestKey): string {
  const filters = Object.entries(request.filters).map(([name, value]) => ` ${name}=${value}`).join('');
  return `${request.dataset} as ${request.format} by ${request.by}${filters} from ${request.service} as ${request.client}`;
}
