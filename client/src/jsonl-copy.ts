/**
 * A delta merged into a JSON Lines folder's windows (delta-pass.ts): a window's file read as its
 * lines by record id, the window's lines after the delta (a changed record keeps its line's place,
 * a new one comes after), and its new file written hidden as a walk writes it (fetch-window.ts:
 * one record per line, as the service answers it; an empty window has no file).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { WindowFailure } from './fetch-window.js';
import { dataFile, partialFile } from './layout.js';
import { readListedFile, sha256, type ManifestFile, type ManifestWindow } from './manifest.js';
import type { DatasetName } from './datasets.js';
import type { DeltaRecord, WalkedDelta } from './delta-walk.js';
import type { MergedWindow } from './delta-pass.js';

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
    const bytes = readListedFile(dir, file);
    if (!bytes) return undefined;
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

/**
 * A window after the delta: the lines of `held` it keeps (`keep`), the changed records whose home
 * it is in their places or after them, written hidden under `label` unless they read as before
 * and `rewrite` is false (the held file is named for other days, or another entry shares the
 * window's days: a range made wider grew it).
 */
export function mergeLines(dir: string, dataset: DatasetName, label: string, held: ReadonlyMap<string, Line> | undefined, delta: Pick<WalkedDelta, 'changed'>, mine: readonly string[], keep: (id: string) => boolean, rewrite = false): MergedWindow {
  const lines: Line[] = [];
  const placed = new Set<string>();
  const homed = new Set(mine);
  let removed = 0;
  for (const [id, line] of held ?? []) {
    if (homed.has(id)) {
      lines.push(lineOf(delta.changed.get(id)!));
      placed.add(id);
    } else if (keep(id)) {
      lines.push(line);
    } else {
      removed++;
    }
  }
  for (const id of mine) if (!placed.has(id)) lines.push(lineOf(delta.changed.get(id)!));
  const before = held ? [...held.values()] : undefined;
  const same = !rewrite && before !== undefined && before.length === lines.length && before.every((line, index) => line === lines[index]);
  return { same, files: same ? [] : writeWindowLines(dir, dataset, label, lines), rows: lines.length, changed: mine.length, removed };
}

/** A record as a line of the folder: the JSON the service answered, on one line. */
function lineOf(record: DeltaRecord): Line {
  return JSON.stringify(record);
}

/** Writes a window's lines hidden as `<dataset>-<label>.jsonl` (none for no lines); its files, to be committed. */
function writeWindowLines(dir: string, dataset: DatasetName, label: string, lines: readonly Line[]): { file: ManifestFile; staged: boolean }[] {
  if (lines.length === 0) return [];
  const file = dataFile(dataset, dataset, label, 'jsonl');
  const text = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8');
  const path = join(dir, partialFile(file));
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  } catch (error) {
    rmSync(path, { force: true });
    throw new WindowFailure(`cannot write ${path}: ${(error as Error).message}`);
  }
  return [{ file: { file, rows: lines.length, bytes: text.byteLength, sha256: sha256(text) }, staged: true }];
}
