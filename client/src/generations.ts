/**
 * The folder readers open (--out) is a link to one generation of it, so that a run changes it
 * for readers at one instant: a run works in a new generation, made of hard links to the files
 * of the one readers see (no copy), and once it has settled it, renames a new link over --out.
 * A reader that opens the folder sees it as it was before the run or after it, whole: an invoices
 * month's two tables old together or new together, a record moved between months in one file. A
 * run killed at any point leaves --out as the last run left it; the next run goes on in the
 * generation the killed one worked in (folder.ts, tidyFolder, finishes its commit there).
 *
 *   data/contracts                        -> .contracts.summary-client/gen-8 (a relative link)
 *   data/.contracts.summary-client/        the lock (folder-lock.ts) and the generations:
 *     gen-7/                               the one readers saw before, kept until the next run
 *     gen-8/                               the one --out names
 *
 * Where --out cannot be a link made by the run, the run works in it in place, as summary-client
 * did before (a rename per file, each atomic; a run killed between two of them leaves a mix until
 * the next run): on Windows (a directory link needs a privilege there, and cannot be renamed over
 * another), where --out is a mount point, a link the user made, the current folder or one above
 * it, or where its parent folder cannot be written.
 */
import { copyFileSync, constants, cpSync, readFileSync, realpathSync, existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmdirSync, rmSync, statSync, symlinkSync, linkSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { OptionsError } from './client-error.js';
import { LOCK_FILE, lockFolder } from './folder-lock.js';
import { MANIFEST_FILE } from './layout.js';

const GENERATION = /^gen-(\d+)$/;

/** The folder of a run: where it works, and how it shows what it did to readers. */
export interface RunFolder {
  /** Where the run reads and writes: a generation, or --out itself (in place). */
  readonly work: string;
  /** The run works in --out itself: it has no generations. */
  readonly inPlace: boolean;
  /** The run goes on in a generation a run stopped before it showed it to readers. */
  readonly resumed: boolean;
  /** --out is a folder in place (an older summary-client's, or one made by hand): the run's end moves it into the generations and links --out. */
  readonly older: boolean;
  /**
   * Ends the run: `show` makes its generation the one --out names (one rename), and the older
   * ones but the last are removed; else a generation this run made is removed (one a stopped run
   * left stays for the next). Then the lock is given back, and what the run made and left empty
   * is removed.
   */
  close(show: boolean): void;
}

/** The hidden folder beside --out that holds its lock and its generations. */
export function generationsOf(out: string): string {
  const path = resolve(out);
  return join(dirname(path), `.${basename(path)}.summary-client`);
}

/**
 * Opens --out for a run: locks it (FolderBusy if another run holds it) and chooses where the run
 * works. Nothing readers see changes before close.
 */
export function openRunFolder(out: string): RunFolder {
  const path = resolve(out);
  if (inPlace(path)) return inPlaceFolder(out);
  const home = generationsOf(path);
  const madeParent = !existsSync(dirname(path));
  const madeHome = !existsSync(home);
  try {
    mkdirSync(home, { recursive: true });
  } catch (error) {
    if (isRefused(error)) return inPlaceFolder(out);
    throw error;
  }
  const unlocks: (() => void)[] = [];
  const release = () => {
    for (const unlock of unlocks.reverse()) unlock();
    if (madeHome && generations(home).length === 0) {
      removeIfEmpty(home);
      if (madeParent) removeIfEmpty(dirname(path));
    }
  };
  try {
    unlocks.push(lockFolder(home, out));
    // A folder in place (an older summary-client's, or made by hand) is moved into the
    // generations when the run shows its own; meanwhile its lock keeps an older client out.
    const older = existsSync(path) && !lstatSync(path).isSymbolicLink();
    if (older) unlocks.push(lockFolder(path, out));
    const linkedTo = older ? undefined : shownGeneration(path, home);
    // A generation removed by hand is no folder to start from.
    const shown = linkedTo !== undefined && existsSync(join(home, `gen-${linkedTo}`)) ? linkedTo : undefined;
    const newest = generations(home).at(-1);
    const resumed = newest !== undefined && (shown === undefined || newest > shown);
    // An older folder takes the number before the run's when it moves.
    const number = resumed ? newest : Math.max(linkedTo ?? 0, newest ?? 0) + (older ? 2 : 1);
    const work = join(home, `gen-${number}`);
    if (!resumed) {
      rmSync(work, { recursive: true, force: true });
      if (older) cloneFolder(path, work);
      else if (shown !== undefined) cloneFolder(join(home, `gen-${shown}`), work);
      else mkdirSync(work);
    }
    return {
      work, inPlace: false, resumed, older,
      close(show) {
        try {
          // A run that changed nothing (refused at its start, or a night with nothing new) shows nothing new.
          if (show && !resumed && !older && shown !== undefined && sameFolder(work, join(home, `gen-${shown}`))) {
            rmSync(work, { recursive: true, force: true });
          } else if (show) {
            let previous = shown;
            if (older) {
              // Once in the life of a folder, --out is missing between these two renames.
              previous = number - 1;
              rmSync(join(home, `gen-${previous}`), { recursive: true, force: true });
              renameSync(path, join(home, `gen-${previous}`));
              removeLock(join(home, `gen-${previous}`));
            }
            showGeneration(path, home, number);
            // The one readers saw stays for a reader that opened it by its own path, until the next run.
            for (const old of generations(home)) if (old !== number && old !== previous) rmSync(join(home, `gen-${old}`), { recursive: true, force: true });
          } else if (!resumed) {
            rmSync(work, { recursive: true, force: true });
          }
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

/** A run in --out itself, locked there: no generations. */
function inPlaceFolder(out: string): RunFolder {
  const made = !existsSync(out);
  mkdirSync(out, { recursive: true });
  let unlock: () => void;
  try {
    unlock = lockFolder(out);
  } catch (error) {
    if (made) removeTablesAndSelf(out);
    throw error;
  }
  return {
    work: out, inPlace: true, resumed: false, older: false,
    close() {
      unlock();
      // A run that leaves nothing (refused at its start) leaves no folder it made.
      if (made) removeTablesAndSelf(out);
    },
  };
}

/**
 * Whether --out must be worked in place (see the top of this file). A link into another folder's
 * generations (a copy made with `cp -r`, which copies the link) is refused: a run through it would
 * change the other folder.
 */
function inPlace(path: string): boolean {
  if (process.platform === 'win32') return true;
  const cwd = resolve('.');
  if (cwd === path || cwd.startsWith(`${path}${sep}`) || dirname(path) === path) return true;
  if (!lstatSync(path, { throwIfNoEntry: false })) return false;
  const own = lstatSync(path);
  if (own.isSymbolicLink()) {
    if (shownGeneration(path, generationsOf(path)) !== undefined) return false;
    const target = resolve(dirname(path), readlinkSync(path));
    if (GENERATION.test(basename(target)) && /^\..+\.summary-client$/.test(basename(dirname(target)))) {
      throw new OptionsError(`--out ${path} is a link to ${target}, a generation of another pull's folder (a copy made by copying the link): pulling through it would change that folder. Copy a folder with what its link names (cp -rL), or pull into a new --out`);
    }
    return existsSync(path);
  }
  return own.isDirectory() && own.dev !== statSync(dirname(path)).dev;
}

/** The generation --out links to, if it is a link to one of its own. */
function shownGeneration(path: string, home: string): number | undefined {
  let target: string;
  try {
    target = readlinkSync(path);
  } catch {
    return undefined;
  }
  const full = resolve(dirname(path), target);
  const match = dirname(full) === home ? GENERATION.exec(basename(full)) : null;
  return match ? Number(match[1]) : undefined;
}

/** The generations in `home`, oldest first. */
function generations(home: string): number[] {
  let names: string[];
  try {
    names = readdirSync(home);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const match = GENERATION.exec(name);
    return match ? [Number(match[1])] : [];
  }).sort((a, b) => a - b);
}

/** Makes --out name generation `number`: a new link, renamed over it (one atomic step). */
function showGeneration(path: string, home: string, number: number): void {
  const link = join(home, `.link-${process.pid}`);
  rmSync(link, { force: true });
  symlinkSync(relative(dirname(path), join(home, `gen-${number}`)), link);
  renameSync(link, path);
}

/** Removes the lock files a folder in place held (its lock, taken by this run: folder-lock.ts). */
function removeLock(dir: string): void {
  for (const name of readdirSync(dir)) if (name.startsWith(LOCK_FILE)) rmSync(join(dir, name), { force: true });
}

/**
 * A copy of a generation made of hard links: a file is shared until the run replaces it, by a
 * rename (nothing is written into a file in place). Hidden files being written (`.name.partial`,
 * which a stopped run may finish: folder.ts, tidyFolder) are copied, as is every file where the file
 * system has no links. A folder in place's lock stays behind.
 */
function cloneFolder(from: string, to: string): void {
  mkdirSync(to);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) cloneFolder(source, target);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else if (entry.name.startsWith(LOCK_FILE)) continue;
    else if (entry.name.startsWith('.') && entry.name.endsWith('.partial')) copyFileSync(source, target);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target, constants.COPYFILE_FICLONE);
      }
    }
  }
}

/** Whether two generations hold the same manifest and the same names (a file is replaced only with the manifest saved). */
function sameFolder(a: string, b: string): boolean {
  const names = (dir: string) => readdirSync(dir, { recursive: true }).map(String).sort().join('\n');
  const manifest = (dir: string) => readFileSync(join(dir, MANIFEST_FILE), { flag: 'r' });
  try {
    return names(a) === names(b) && manifest(a).equals(manifest(b));
  } catch {
    return false;
  }
}

function isRefused(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EACCES' || code === 'EPERM' || code === 'EROFS';
}

function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not there, or not empty: it stays.
  }
}

/** Removes a folder the run made if nothing is in it (nor in the table folders it made inside it). */
function removeTablesAndSelf(dir: string): void {
  try {
    for (const name of readdirSync(dir)) {
      const inner = join(dir, name);
      if (statSync(inner).isDirectory()) removeIfEmpty(inner);
    }
    rmdirSync(dir);
  } catch {
    // Not empty (another run's lock, files of the user's): it stays.
  }
}

/**
 * Where a run into --out works, or the last one worked: the newest generation (a run stopped
 * before it ended left its work there, hidden from readers), else --out itself.
 */
export function workingFolder(out: string): string {
  const home = generationsOf(out);
  const newest = generations(home).at(-1);
  return newest === undefined ? out : join(home, `gen-${newest}`);
}

/**
 * Copies the folder readers see at `from` to `to` (which must not exist), as a pull folder of its
 * own: its files into the first generation of `to`, and `to` linked to it. (`cp -r` copies the
 * link itself, which names the generations of `from`.)
 */
export function copyRunFolder(from: string, to: string): void {
  const home = generationsOf(to);
  mkdirSync(home, { recursive: true });
  cpSync(realpathSync(from), join(home, 'gen-1'), { recursive: true });
  showGeneration(resolve(to), home, 1);
}
