/**
 * One pull at a time per folder: two runs into one --out (a nightly job overlapping a long
 * backfill) would remove each other's files being written and save manifests that drop each
 * other's windows. A run takes the lock before it writes anything (pull.ts). The lock is a hidden
 * file naming the process and the host that hold it; one whose process is gone (a run killed) on
 * this host is taken over. One of another host (a network folder shared by two machines) is never
 * taken over, since no process of another host can be seen from here: the run stops, naming it.
 *
 * Every step that decides who holds the lock is one the file system does atomically: a lock is
 * made whole (written aside, then linked into place, which fails if one is there). A dead run's
 * lock is taken over under a second lock of the same making (`takeOver`): of runs that find the
 * same dead lock, one takes over and the others find it busy; it removes the lock only while it is
 * still the dead one. (Moving the dead lock aside without that guard let a third run of several
 * starting at once take the folder too: seen with three test suites at a time on two loaded cores.)
 * What is left: a takeover left by a run killed in it is stale after STARTING_MS, and two runs
 * that remove the same stale one at once may both take over.
 */
import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { printable } from './printable.js';
import { SummaryClientError } from './client-error.js';

export const LOCK_FILE = '.summary-client.lock';

/**
 * A lock that names no process (being made on a file system without links, or cut short) counts
 * as a run starting until it is this old.
 */
const STARTING_MS = 10_000;

/** The locks this process holds (by real path): its own pid in a lock is no proof that the lock is dead. */
const held = new Set<string>();

/** When this process started: a lock with its pid made since is another thread's or module copy's. */
const STARTED_AT = Date.now() - process.uptime() * 1000;

/** The folder is another run's: wait for it, or pull elsewhere (exit 2). */
export class FolderBusy extends SummaryClientError {
  readonly code = 'FOLDER_BUSY';
  override readonly name = 'FolderBusy';
}

/** This machine's name, as a lock records it (a name never has white space). */
const HOST = hostname().replace(/\s/g, '') || 'unknown';

/**
 * Takes the lock kept in `home` (a folder that exists) for the folder `dir` names in messages (--out;
 * its lock is kept beside it: generations.ts); the returned function gives it back.
 */
export function lockFolder(home: string, dir = home): () => void {
  const path = join(realpathSync(home), LOCK_FILE);
  if (held.has(path)) throw busy(dir, process.pid);
  const mine = `${process.pid} ${randomUUID()} host=${HOST}\n`;
  if (!create(path, mine)) {
    const seen = read(path);
    if (seen !== undefined) {
      const holder = holderOf(seen);
      const host = hostOf(seen);
      if (host !== undefined && host !== HOST) throw elsewhere(dir, path, host, holder);
      if (holder === undefined ? !madeBefore(path, Date.now() - STARTING_MS) : alive(holder, path)) throw busy(dir, holder);
      takeOver(path, seen, dir, mine);
    } else if (!create(path, mine)) {
      // Gone as it was read: whoever makes the next lock holds the folder; another run that got there first holds it now.
      throw busy(dir, holderOf(read(path) ?? ''));
    }
  }
  held.add(path);
  return () => {
    held.delete(path);
    try {
      if (readFileSync(path, 'utf8') === mine) rmSync(path, { force: true });
    } catch {
      // Gone already: nothing to give back.
    }
  };
}

/** Makes the lock with `content` whole, unless there is one: false then. */
function create(path: string, content: string): boolean {
  const aside = `${path}.${randomUUID()}`;
  writeFileSync(aside, content, { flag: 'wx' });
  try {
    linkSync(aside, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    // No links here (FAT and exFAT drives answer EISDIR on Windows, some shares EACCES or EPERM):
    // made in place, where a reader may see it empty for a moment (counted as a run starting).
    try {
      writeFileSync(path, content, { flag: 'wx' });
      return true;
    } catch (fallback) {
      if ((fallback as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw fallback;
    }
  } finally {
    removeQuietly(aside);
  }
}

/** Removes a file of the lock's own making, if it can (a scanner holding it on Windows must not fail the run). */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Hidden, and never read: harmless if it stays.
  }
}

/**
 * Takes over a dead run's lock (`seen`), one run at a time: the takeover is itself a lock
 * (`<lock>.takeover`, made whole as a lock is). Its holder removes the lock only if it is still
 * the dead one, then makes its own; a run that finds a takeover going on, or the lock no longer
 * the dead one, finds the folder busy. A takeover left by a run killed in it is stale after
 * STARTING_MS, and removed.
 */
function takeOver(path: string, seen: string, dir: string, mine: string): void {
  const guard = `${path}.takeover`;
  if (!create(guard, mine)) {
    if (!madeBefore(guard, Date.now() - STARTING_MS)) throw busy(dir, undefined);
    removeQuietly(guard);
    if (!create(guard, mine)) throw busy(dir, undefined);
  }
  try {
    const now = read(path);
    if (now !== undefined && now !== seen) throw busy(dir, holderOf(now));
    if (now !== undefined) rmSync(path, { force: true });
    if (!create(path, mine)) throw busy(dir, holderOf(read(path) ?? ''));
  } finally {
    if (read(guard) === mine) removeQuietly(guard);
  }
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The process a lock names (its first word), or undefined when it names none. */
function holderOf(content: string): number | undefined {
  const pid = Number.parseInt(content, 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** Whether the file was last written before `time` (ms since the epoch); one that is gone was. */
function madeBefore(path: string, time: number): boolean {
  try {
    return statSync(path).mtimeMs < time;
  } catch {
    return true;
  }
}

/** The host a lock names (`host=NAME`), or undefined for a lock of an older client (taken as this host's). */
function hostOf(content: string): string | undefined {
  return /(?:^|\s)host=(\S+)/.exec(content)?.[1];
}

function busy(dir: string, holder: number | undefined): FolderBusy {
  return new FolderBusy(`another summary-client pull (${holder === undefined ? 'starting' : `process ${holder}`}) is writing into ${dir}: let it finish, or pull into another --out`);
}

function elsewhere(dir: string, path: string, host: string, holder: number | undefined): FolderBusy {
  return new FolderBusy(`${dir} is locked by a summary-client pull on host ${printable(host, 64)}${holder === undefined ? '' : ` (process ${holder})`}, which this machine cannot see, so the lock is never taken over from here: let that pull finish. If none runs there any more (it was killed, or the machine is gone), remove ${path} and run again`);
}

/**
 * Whether the process a lock names runs. This one's pid in a lock it does not hold: another
 * thread's or module copy's if made since this process started, else a dead run's whose pid came back.
 */
function alive(pid: number, path: string): boolean {
  if (pid === process.pid) return !madeBefore(path, STARTED_AT);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
