import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../../dev/project-root.js';
import { FolderBusy, LOCK_FILE, lockFolder } from '../../client/src/folder-lock.js';

// The compiled lock (npm test builds first), as every pull process runs it.
const LOCK_MODULE = pathToFileURL(join(projectRoot(), 'client', 'dist', 'folder-lock.js')).href;
/** A pid no process has: the lock of a run that was killed. */
const DEAD = '2147483646\n';

/**
 * `runs` processes that try to take the folder's lock at the same instant, and say which they did.
 * Each loads the lock and says it is ready; once all are, they are given an instant a little ahead
 * and spin until it, so none starts late. A run that took the lock holds it until all have said.
 */
async function race(dir: string, runs: number): Promise<string[]> {
  const script = `
    const { lockFolder } = await import(${JSON.stringify(LOCK_MODULE)});
    let release;
    let input = '';
    process.stdin.on('data', (chunk) => {
      input += chunk;
      if (!input.endsWith('\\n') || release !== undefined) return;
      const at = Number(input);
      while (Date.now() < at) {}
      try { release = lockFolder(${JSON.stringify(dir)}); } catch (error) { console.log('busy: ' + error.message); process.exit(0); }
      console.log('took');
    });
    process.stdin.on('end', () => { release?.(); process.exit(0); });
    console.log('ready');
  `;
  const children = Array.from({ length: runs }, () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines: string[] = [];
    let waiting: (() => void)[] = [];
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const parts = out.split('\n');
      out = parts.pop()!;
      lines.push(...parts);
      waiting.forEach((wake) => wake());
      waiting = [];
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const line = async (index: number) => {
      while (lines.length <= index) await Promise.race([new Promise<void>((resolve) => waiting.push(resolve)), exited]);
      return lines[index] ?? '(exited)';
    };
    return { child, line, exited };
  });
  await Promise.all(children.map(({ line }) => line(0)));
  const at = Date.now() + 300;
  for (const { child } of children) child.stdin.write(`${at}\n`);
  const said = await Promise.all(children.map(({ line }) => line(1)));
  for (const { child } of children) child.stdin.end();
  await Promise.all(children.map(({ exited }) => exited));
  return said;
}

const folder = () => mkdtempSync(join(tmpdir(), 'lock-'));

describe('the folder lock', () => {
  it('lets exactly one of several runs starting at once take over a killed run\'s lock', async () => {
    for (let round = 0; round < 4; round++) {
      const dir = folder();
      writeFileSync(join(dir, LOCK_FILE), DEAD);
      const said = await race(dir, 6);
      expect([round, said.filter((line) => line === 'took').length]).toEqual([round, 1]);
      expect(said.filter((line) => line !== 'took').every((line) => /^busy: another summary-client pull \((process \d+|starting)\) is writing into /.test(line))).toBe(true);
      // Given back, and nothing else left behind.
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('lets exactly one of several runs starting at once into a folder without a lock', async () => {
    const dir = folder();
    expect((await race(dir, 6)).filter((line) => line === 'took')).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('is not taken twice by one process, and is given back only by its holder', () => {
    const dir = folder();
    const release = lockFolder(dir);
    expect(() => lockFolder(dir)).toThrow(`another summary-client pull (process ${process.pid}) is writing into ${dir}`);
    const content = readFileSync(join(dir, LOCK_FILE), 'utf8');
    expect(content).toMatch(new RegExp(`^${process.pid} [0-9a-f-]{36} host=${hostname().replace(/\s/g, '')}\\n$`));
    release();
    expect(readdirSync(dir)).toEqual([]);
    const again = lockFolder(dir);
    // A lock that another run made after this one was given back is not this one's to remove.
    writeFileSync(join(dir, LOCK_FILE), '1 another run\n');
    again();
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe('1 another run\n');
  });

  it('takes this process\'s pid in a lock it does not hold for another thread\'s, unless older than the process', () => {
    const dir = folder();
    const path = join(dir, LOCK_FILE);
    writeFileSync(path, `${process.pid} made by a worker thread\n`);
    expect(() => lockFolder(dir)).toThrow(`another summary-client pull (process ${process.pid}) is writing into ${dir}`);
    // Older than this process: a dead run's, whose pid this process got again.
    const old = (Date.now() - process.uptime() * 1000 - 60_000) / 1000;
    utimesSync(path, old, old);
    lockFolder(dir)();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('never takes over a lock of another host, however old, and names the file to remove', () => {
    const dir = folder();
    const path = join(dir, LOCK_FILE);
    writeFileSync(path, '2147483646 0c5e7f4e-0000-4000-8000-000000000000 host=build-agent-7\n');
    const old = (Date.now() - 86_400_000) / 1000;
    utimesSync(path, old, old);
    expect(() => lockFolder(dir)).toThrow(FolderBusy);
    expect(() => lockFolder(dir)).toThrow(`${dir} is locked by a summary-client pull on host build-agent-7 (process 2147483646), which this machine cannot see`);
    expect(() => lockFolder(dir)).toThrow(`remove ${path} and run again`);
    expect(readFileSync(path, 'utf8')).toContain('host=build-agent-7');
    // The same lock of this host is a dead run's, taken over.
    writeFileSync(path, `2147483646 0c5e7f4e-0000-4000-8000-000000000000 host=${hostname().replace(/\s/g, '')}\n`);
    lockFolder(dir)();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takes a lock that names no process for a run starting, until it is old', () => {
    const dir = folder();
    const path = join(dir, LOCK_FILE);
    writeFileSync(path, '');
    expect(() => lockFolder(dir)).toThrow(`another summary-client pull (starting) is writing into ${dir}`);
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(path, old, old);
    const release = lockFolder(dir);
    expect(readFileSync(path, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    release();
    expect(readdirSync(dir)).toEqual([]);
  });
});
