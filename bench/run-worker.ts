import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What every measuring child reports besides its own figures. */
export interface ProcessFigures {
  /** RSS just before the measured work began (after the source was built and a full GC). */
  readonly rssBeforeBytes: number;
  /** The child's peak RSS over its whole life (`process.resourceUsage().maxRSS`). */
  readonly peakRssBytes: number;
}

/**
 * Runs one measurement in a fresh Node process (compiled `dist/bench/<script>.js`), so peak RSS
 * and the heap belong to that measurement alone, and resolves with what the child sent back.
 * The child is killed if it has not answered within `timeoutMs`. `oneCore`: the child runs on
 * the first core only (`taskset -c 0`, util-linux), as on a one-vCPU plan; Node's
 * availableParallelism() then says 1.
 */
export function runWorker<T>(script: string, input: unknown, timeoutMs: number, oneCore = false): Promise<T> {
  const path = fileURLToPath(new URL(`./${script}.js`, import.meta.url));
  return new Promise<T>((resolve, reject) => {
    // --expose-gc: the child collects the source's construction garbage before the timer starts.
    const node = { execPath: process.execPath, execArgv: ['--expose-gc'] };
    const pinned = oneCore ? { execPath: 'taskset', execArgv: ['-c', '0', node.execPath, ...node.execArgv] } : node;
    const child = fork(path, [JSON.stringify(input)], { ...pinned, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let answer: { ok: true; result: T } | { ok: false; error: string } | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not finish within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.on('message', (message) => {
      answer = message as typeof answer;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (answer?.ok) resolve(answer.result);
      else reject(new Error(`${script} failed (${signal ?? `exit ${code}`}): ${answer?.ok === false ? answer.error : 'no answer'}`));
    });
  });
}

/**
 * The child's side: parses the input from argv, runs the measurement, sends the result to the
 * parent and exits (a DuckDB instance or a server must not keep the process alive).
 */
export function serveWorker<I, T>(run: (input: I) => Promise<T>): void {
  const send = (message: unknown) => new Promise<void>((resolve) => {
    if (process.send) process.send(message, () => resolve());
    else {
      console.log(JSON.stringify(message, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)));
      resolve();
    }
  });
  run(JSON.parse(process.argv[2] ?? '{}') as I)
    .then((result) => send({ ok: true, result }))
    .then(() => process.exit(0))
    .catch(async (error: unknown) => {
      await send({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      process.exit(1);
    });
}

/** Collects garbage (the child runs with --expose-gc) and reads the RSS the measurement starts from. */
export function settle(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage.rss();
}

/** The process's peak RSS so far, in bytes (Node reports kilobytes). */
export function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}
