/**
 * How a pull changes its folder so that a reader never sees half of it: new files are written
 * hidden (layout.ts, partialFile), then the manifest is saved listing them in place of what they
 * replace (the commit point), then they are renamed into place and the replaced files removed. A
 * run stopped in between is set right by the next one (tidyFolder).
 */
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DatasetName, Format } from './datasets.js';
import { foldersOf, LEGACY_MANIFEST_FILE, legacyFilePattern, partialFile, strayPattern } from './layout.js';
import { listedFiles, sha256File, type Manifest, type ManifestWindow } from './manifest.js';

/**
 * Lists `entries` in the manifest in place of the entries `replaces` picks (and the folder's schema
 * with them), saves it, then renames the `staged` files (written hidden) into place and removes the
 * files of the replaced entries that no new entry lists.
 */
export function commitEntries(dir: string, manifest: Manifest, change: { replaces: (entry: ManifestWindow) => boolean; entries: readonly ManifestWindow[]; staged: ReadonlySet<string>; schema?: string }, save: () => void): void {
  const replaced = manifest.windows.filter(change.replaces);
  manifest.windows = [...manifest.windows.filter((entry) => !replaced.includes(entry)), ...change.entries].sort((a, b) => a.from.localeCompare(b.from));
  if (change.schema !== undefined) manifest.schema = change.schema;
  save();
  for (const file of change.staged) renameSync(join(dir, partialFile(file)), join(dir, file));
  const kept = listedFiles(manifest);
  for (const entry of replaced) for (const file of entry.files) if (!kept.has(file.file)) rmSync(join(dir, file.file), { force: true });
}

/**
 * Sets right what a stopped run left. A hidden file the manifest lists whole (the run stopped
 * after listing a window, before renaming its files into place) is renamed into place. Every other
 * hidden `.partial` of this pull is removed; in a folder this pull owns (it has a manifest), so
 * are this dataset's data files the manifest does not list (a glob would load them twice), among
 * them the visible `.partial` files (a manifest's too) and top-level invoice tables of
 * summary-client 0.1.
 */
export function tidyFolder(dir: string, manifest: Manifest, pull: { dataset: DatasetName; format: Format }, owned: boolean): { recovered: string[]; removed: string[] } {
  const listed = listedFiles(manifest);
  const sums = new Map(manifest.windows.flatMap((entry) => entry.files.map((file) => [file.file, file.sha256] as const)));
  const recovered: string[] = [];
  const removed: string[] = [];
  const legacy = legacyFilePattern(pull.dataset, pull.format);
  for (const folder of new Set(['', ...foldersOf(pull.dataset, pull.format)])) {
    const path = join(dir, folder);
    if (!existsSync(path)) continue;
    const own = strayPattern(pull.dataset, pull.format, folder);
    for (const name of readdirSync(path)) {
      const file = `${folder}${name}`;
      if (listed.has(file)) continue;
      const hidden = name.startsWith('.') && own.test(name);
      const finished = hidden ? `${folder}${name.slice(1, -'.partial'.length)}` : '';
      const sum = sums.get(finished);
      if (sum !== undefined && sha256File(join(dir, finished)) !== sum && sha256File(join(dir, file)) === sum) {
        renameSync(join(dir, file), join(dir, finished));
        recovered.push(finished);
        continue;
      }
      const visible = own.test(name) || (folder === '' && (legacy.test(name) || legacy.test(name.replace(/\.partial$/, '')) || name === `${LEGACY_MANIFEST_FILE}.partial`));
      if (hidden || (owned && visible)) {
        rmSync(join(dir, file), { force: true });
        removed.push(file);
      }
    }
  }
  return { recovered, removed };
}

/**
 * What readers of the folder would load besides this pull's files, in its table folders, that the
 * manifest does not list (a copy made by hand): a file of the pull's format whatever its name
 * (DuckDB's and polars' `*.parquet` globs take names starting with `.` or `_` too), and any other
 * visible entry (pyarrow and pandas open every file of a folder not starting with `.` or `_`).
 * The pull never removes them: it did not write them.
 */
export function foreignFiles(dir: string, manifest: Manifest, pull: { dataset: DatasetName; format: Format }): string[] {
  const listed = listedFiles(manifest);
  const folders = foldersOf(pull.dataset, pull.format);
  const foreign: string[] = [];
  for (const folder of folders) {
    const path = join(dir, folder);
    if (!existsSync(path)) continue;
    for (const name of readdirSync(path)) {
      const file = `${folder}${name}`;
      const loaded = name.endsWith(`.${pull.format}`) || !(name.startsWith('.') || name.startsWith('_'));
      if (loaded && !listed.has(file) && !folders.includes(`${file}/`)) foreign.push(file);
    }
  }
  return foreign.sort();
}
