/**
 * Where a pull folder's generations are (beside --out: `.<name>.summary-client/gen-N`), which one
 * --out shows, and where a run keeps none: it works in --out itself (generations.ts, inPlace), or
 * is refused (an --out inside another folder's generations).
 */
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { OptionsError } from './client-error.js';

/** A generation's name. */
const GENERATION = /^gen-(\d+)$/;
/** Names of a generation being made or removed, and of a link being made: never gone on in. */
export const TRANSIENT = /^\.(?:making|removing|link)-\d+$/;
/** The folder beside --out that holds its generations. */
const HOME = /^\..+\.summary-client$/;

/** The hidden folder beside --out that holds its lock and its generations. */
export function generationsOf(out: string): string {
  const path = resolve(out);
  return join(dirname(path), `.${basename(path)}.summary-client`);
}

/**
 * Refuses an --out that is, or is inside, another folder's generations (a copy of the link made
 * by `cp -r`, a link moved without its generations, `--out .` in a generation, a link of the
 * user's to a pull folder): a run there would change that folder behind its lock.
 */
export function refuseInsideGenerations(path: string): void {
  const real = realPath(path);
  const parts = real.split(sep);
  for (let at = 1; at < parts.length; at++) {
    // The generations' folder itself, or a generation in it (being made or removed too).
    const inside = parts[at + 1];
    if (!HOME.test(parts[at]!) || (inside !== undefined && !GENERATION.test(inside) && !TRANSIENT.test(inside))) continue;
    const home = parts.slice(0, at + 1).join(sep);
    const folder = join(dirname(home), parts[at]!.slice(1, -'.summary-client'.length));
    // Its own generation, through its own link.
    if (at === parts.length - 2 && GENERATION.test(inside!) && sameEntry(home, generationsOf(path))) return;
    throw new OptionsError(`--out ${path} is ${real === path ? '' : `(through a link) ${real}, `}inside the generations of the pull folder ${folder}: a run here would change that folder behind its lock. Pull into ${folder} itself; copy a pull folder with what its link names (cp -rL), and move it with its ${parts[at]} beside it`);
  }
}

/** A path with every link in it resolved, those of the folders that exist (the rest as written). */
function realPath(path: string): string {
  let existing = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(existing), ...rest);
    } catch {
      if (dirname(existing) === existing) return path;
      rest.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
}

/** Whether two paths name one folder (a case-insensitive file system spells it two ways). */
function sameEntry(a: string, b: string): boolean {
  const first = statSync(a, { throwIfNoEntry: false });
  const second = statSync(b, { throwIfNoEntry: false });
  return first !== undefined && second !== undefined && first.dev === second.dev && first.ino === second.ino;
}

/** Whether --out must be worked in place (generations.ts says when, at its top). */
export function inPlace(path: string): boolean {
  if (process.platform === 'win32') return true;
  const cwd = realpathSync('.');
  const real = realPath(path);
  if (cwd === real || cwd.startsWith(`${real}${sep}`) || dirname(path) === path) return true;
  const own = lstatSync(path, { throwIfNoEntry: false });
  if (own === undefined) return false;
  if (own.isSymbolicLink()) return shownGeneration(path, generationsOf(path)) === undefined && existsSync(path);
  return own.isDirectory() && isMountPoint(path, own.dev);
}

/** Whether a folder is a mount point: another device than its parent's, or (Linux) listed as one, as a bind mount is. */
function isMountPoint(path: string, dev: number): boolean {
  if (dev !== statSync(dirname(path)).dev) return true;
  let mounts: string;
  try {
    mounts = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return false;
  }
  const real = realpathSync(path);
  // The fifth field of each line, with space, tab, newline and backslash written as octal escapes.
  return mounts.split('\n').some((line) => line.split(' ')[4]?.replace(/\\([0-7]{3})/g, (_, code: string) => String.fromCharCode(Number.parseInt(code, 8))) === real);
}

/** The generation --out links to, if it is a link to one of its own. */
export function shownGeneration(path: string, home: string): number | undefined {
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
export function generations(home: string): number[] {
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
