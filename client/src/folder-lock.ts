/**
 * One pull at a time per folder: two runs into one --out (a nightly job overlapping a long
 * backfill) would remove each other's files being written and save manifests that drop each
 * other's windows. The lock is a hidden file naming the process that holds it; one whose process
 * is gone (a run killed) is taken over. It says nothing across machines sharing a network folder.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManifestError } from './manifest.js';

export const LOCK_FILE = '.summary-client.lock';

/** Takes the folder's lock (the folder exists); the returned function gives it back. */
export function lockFolder(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  const mine = `${process.pid}\n`;
  try {
    writeFileSync(path, mine, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
    if (alive(holder)) throw new ManifestError(`another summary-client pull (process ${holder}) is writing into ${dir}: let it finish, or pull into another --out`);
    writeFileSync(path, mine);
  }
  return () => {
    try {
      if (readFileSync(path, 'utf8') === mine) rmSync(path, { force: true });
    } catch {
      // Gone already: nothing to give back.
    }
  };
}

function alive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
