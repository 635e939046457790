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
 * A generation is made under a name no run takes for one (`.making-N`) and named `gen-N` once
 * whole; one is removed after a rename to `.removing-N`: a run killed while it makes or removes
 * one leaves nothing the next run would go on in.
 *
 * Where --out cannot be a link made by the run, the run works in it in place, as summary-client
 * did before (a rename per file, each atomic; a run killed between two of them leaves a mix until
 * the next run): on Windows (a directory link needs a privilege there, and cannot be renamed over
 * another), on a file system without symbolic links, where --out is a mount point, a link of the
 * user's to a folder elsewhere, the current folder or one above it, where it cannot be moved, or
 * where its parent folder cannot be written.
 */
import { chmodSync, constants, copyFileSync, cpSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { LOCK_FILE, lockFolder } from './folder-lock.js';
import { MANIFEST_FILE } from './layout.js';
import { generations, generationsOf, inPlace, refuseInsideGenerations, shownGeneration, TRANSIENT } from './folder-place.js';

export { generationsOf } from './folder-place.js';

/** The folder of a run: where it works, and how it shows what it did to readers. */
export interface RunFolder {
  /** Where the run reads and writes: a generation, or --out itself (in place). */
  readonly work: string;
  /** The run works in --out itself: it has no generations. */
  readonly inPlace: boolean;
  /** The run goes on in a generation a run stopped before it showed it to readers. */
  readonly resumed: boolean;
  /** --out was a folder in place (an older summary-client's, or one made by hand): it is now a link to its first generation. */
  readonly linked: boolean;
  /**
   * Ends the run: `show` makes its generation the one --out names (one rename), unless it holds
   * what the one shown holds, and the older ones but the last are removed; else a generation
   * this run made is removed (one a stopped run left stays for the next). Then the lock is given
   * back, and what the run made and left empty is removed.
   */
  close(show: boolean): void;
}

/**
 * Opens --out for a run: locks it (FolderBusy if another run holds it) and chooses where the run
 * works. Nothing readers see changes before close, but that a folder in place becomes a link to
 * its first generation (the same files).
 */
export function openRunFolder(out: string): RunFolder {
  const path = resolve(out);
  refuseInsideGenerations(path);
  if (inPlace(path)) return inPlaceFolder(out);
  const home = generationsOf(path);
  const madeParent = !existsSync(dirname(path));
  const madeHome = !existsSync(home);
  try {
    mkdirSync(home, { recursive: true });
    // As private as the folder: its files move in here.
    if (madeHome && existsSync(path)) chmodSync(home, (statSync(path).mode & 0o7777) | 0o700);
  } catch (error) {
    if (madeHome) removeIfEmpty(home);
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
  let made: string | undefined;
  try {
    unlocks.push(lockFolder(home, out));
    for (const name of readdirSync(home)) if (TRANSIENT.test(name)) removeQuietly(join(home, name));
    const linked = existsSync(path) && !lstatSync(path).isSymbolicLink();
    if (linked && !linkFolder(path, home, out)) {
      release();
      return inPlaceFolder(out);
    }
    const linkedTo = shownGeneration(path, home);
    // A generation removed by hand is no folder to start from.
    const shown = linkedTo !== undefined && existsSync(join(home, `gen-${linkedTo}`)) ? linkedTo : undefined;
    const newest = generations(home).at(-1);
    const resumed = newest !== undefined && (shown === undefined || newest > shown);
    const number = resumed ? newest : Math.max(linkedTo ?? 0, newest ?? 0) + 1;
    const work = join(home, `gen-${number}`);
    if (!resumed) {
      made = join(home, `.making-${number}`);
      if (shown === undefined) mkdirSync(made);
      else cloneFolder(join(home, `gen-${shown}`), made);
      renameSync(made, work);
      made = work;
    }
    return {
      work, inPlace: false, resumed, linked,
      close(show) {
        try {
          // A run that changed nothing (refused at its start, or a night with nothing new) shows nothing new.
          if (show && !(!resumed && shown !== undefined && sameFolder(work, join(home, `gen-${shown}`)))) {
            showGeneration(path, home, number);
            // The one readers saw stays for a reader that opened it by its own path, until the next run.
            for (const old of generations(home)) if (old !== number && old !== shown) removeGeneration(home, old);
          } else if (!resumed) {
            removeGeneration(home, number);
          }
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    if (made !== undefined) removeQuietly(made);
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
    work: out, inPlace: true, resumed: false, linked: false,
    close() {
      unlock();
      // A run that leaves nothing (refused at its start) leaves no folder it made.
      if (made) removeTablesAndSelf(out);
    },
  };
}

/** Makes --out name generation `number`: a new link, renamed over it (one atomic step). */
function showGeneration(path: string, home: string, number: number): void {
  renameSync(linkTo(path, home, number), path);
}

/** A new link to generation `number` as --out names it (relative), made aside in `home`: its path. */
function linkTo(path: string, home: string, number: number): string {
  const link = join(home, `.link-${process.pid}`);
  rmSync(link, { force: true });
  symlinkSync(relative(dirname(path), join(home, `gen-${number}`)), link);
  return link;
}

/** Removes a generation: named as being removed first (never gone on in), then removed as far as it can be. */
function removeGeneration(home: string, number: number): void {
  const removing = join(home, `.removing-${number}`);
  try {
    renameSync(join(home, `gen-${number}`), removing);
  } catch {
    return;
  }
  removeQuietly(removing);
}

/**
 * Removes a folder the run is done with, its folders made writable first (a table folder made
 * read-only by hand keeps its mode in every generation). What cannot be removed (a file an NFS
 * reader holds open) stays, under a name no run goes on in, for the next run to try again.
 */
function removeQuietly(dir: string): void {
  try {
    const writable = (folder: string) => {
      chmodSync(folder, (lstatSync(folder).mode & 0o7777) | 0o700);
      for (const entry of readdirSync(folder, { withFileTypes: true })) if (entry.isDirectory()) writable(join(folder, entry.name));
    };
    if (lstatSync(dir).isDirectory()) writable(dir);
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // Left for the next run.
  }
}

/**
 * Makes a folder in place (an older summary-client's, or one made by hand) the first generation
 * of --out, and --out a link to it: the link is made first (a file system without links refuses
 * it before anything moves), then the folder is moved, then the link renamed where it was (for
 * that instant --out is not there; a run killed in it leaves it so until the next run, which
 * finds the generation). Its lock is taken meanwhile, so that an older client cannot write into
 * it. False where it cannot be (the run then works in place).
 */
function linkFolder(path: string, home: string, out: string): boolean {
  const unlock = lockFolder(path, out);
  const number = (generations(home).at(-1) ?? 0) + 1;
  const first = join(home, `gen-${number}`);
  let link: string;
  try {
    link = linkTo(path, home, number);
  } catch (error) {
    unlock();
    if (isRefused(error)) return false;
    throw error;
  }
  try {
    renameSync(path, first);
  } catch (error) {
    unlock();
    rmSync(link, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (isRefused(error) || code === 'EBUSY' || code === 'EXDEV' || code === 'EINVAL') return false;
    throw error;
  }
  renameSync(link, path);
  // The folder's lock moved with it; it is this run's (the lock of --out is now the one in `home`).
  unlock();
  for (const name of readdirSync(first)) if (name.startsWith(LOCK_FILE)) rmSync(join(first, name), { force: true });
  return true;
}

/**
 * A copy of a generation made of hard links: a file is shared until the run replaces it, by a
 * rename (nothing is written into a file in place). Hidden files being written (`.name.partial`,
 * which a stopped run may finish: folder.ts, tidyFolder) are copied, as is every file where the file
 * system has no links. Folders keep their modes.
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
  // Last, and writable by the run: it writes into its generation.
  chmodSync(to, (statSync(from).mode & 0o7777) | 0o700);
}

/** Whether two generations hold the same manifest and the same names (a listed file is replaced only with the manifest saved). */
function sameFolder(a: string, b: string): boolean {
  const names = (dir: string) => readdirSync(dir, { recursive: true }).map(String).sort().join('\n');
  const manifest = (dir: string) => readFileSync(join(dir, MANIFEST_FILE));
  try {
    return names(a) === names(b) && manifest(a).equals(manifest(b));
  } catch {
    return false;
  }
}

function isRefused(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS';
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
