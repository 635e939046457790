/**
 * A JSON Lines folder's records as a delta merges them (delta-pass.ts): a window's file read as
 * its lines by record id, and a window's new lines written hidden, as a walk writes them
 * (fetch-window.ts: one record per line, as the service answers it; an empty window has no file).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { WindowFailure } from './fetch-window.js';
import { dataFile, partialFile } from './layout.js';
import { sha256, type ManifestFile, type ManifestWindow } from './manifest.js';
import type { DatasetName } from './datasets.js';
import type { DeltaRecord } from './delta-walk.js';

/** A record's line, exactly as the file holds it (without its newline). */
export type Line = string;

/**
 * The lines of a window's files by record id, in file order, or undefined when the files are not
 * the ones the manifest lists (changed or removed by hand) or a line names no record: the window
 * is then no copy to merge into.
 */
export function readWindowLines(dir: string, entry: ManifestWindow, idField: string): Map<string, Line> | undefined {
  const lines = new Map<string, Line>();
  for (const file of entry.files) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dir, file.file));
    } catch {
      return undefined;
    }
    if (sha256(bytes) !== file.sha256) return undefined;
    for (const line of bytes.toString('utf8').split('\n')) {
      if (line === '') continue;
      let id: unknown;
      try {
        id = (JSON.parse(line) as Record<string, unknown>)[idField];
      } catch {
        return undefined;
      }
      if (typeof id !== 'string' || lines.has(id)) return undefined;
      lines.set(id, line);
    }
  }
  return lines;
}

/** A record as a line of the folder: the JSON the service answered, on one line. */
export function lineOf(record: DeltaRecord): Line {
  return JSON.stringify(record);
}

/** Writes a window's lines hidden as `<dataset>-<label>.jsonl` (none for no lines); its files, to be committed. */
export function writeWindowLines(dir: string, dataset: DatasetName, label: string, lines: readonly Line[]): ManifestFile[] {
  if (lines.length === 0) return [];
  const file = dataFile(dataset, dataset, label, 'jsonl');
  const text = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8');
  const path = join(dir, partialFile(file));
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  } catch (error) {
    throw new WindowFailure(`cannot write ${path}: ${(error as Error).message}`);
  }
  return [{ file, rows: lines.length, bytes: text.byteLength, sha256: sha256(text) }];
}
