/**
 * The local stack in a process of its own, for the benchmark and the load run: the load generator
 * then does not share its event loop, and the stack's memory can be read apart. One protocol over
 * the IPC channel, both ways:
 * - the child answers once `{ ok: true, result: StackTarget }` when it is ready, or
 *   `{ ok: false, error }` when it cannot start;
 * - then `'rss'` gets `{ rss, heapUsed }` after a full collection (the child runs with
 *   --expose-gc), and `'stop'` (or the parent leaving) stops the stack and the process.
 * `node dist/dev/stack-child.js` is the child; `startStackChild` its parent's side.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startLocalStack } from './local-stack.js';
import { requestTokens } from './request-tokens.js';

/** What a load generator needs to call the stack with all three credentials. */
export interface StackTarget {
  readonly baseUrl: string;
  /** An access token per dev client asked for. */
  readonly tokens: Readonly<Record<string, string>>;
  readonly subscriptionKey: string;
  readonly apiKey: string;
}

/** What the stack process is started with. */
export interface StackChildOptions {
  readonly clients: readonly string[];
  /** Contracts and invoices per data tenant (default npm start's). */
  readonly seedRecords?: number;
}

export interface StackMemory {
  readonly rss: number;
  readonly heapUsed: number;
}

/** A running stack process. */
export interface StackChild {
  readonly target: StackTarget;
  memory(): Promise<StackMemory>;
  stop(): Promise<void>;
}

type Ready = { readonly ok: true; readonly result: StackTarget } | { readonly ok: false; readonly error: string };

/** Starts the stack process and resolves once it is ready (its stderr is shown only if it fails). */
export async function startStackChild(options: StackChildOptions, timeoutMs = 180_000): Promise<StackChild> {
  const script = fileURLToPath(new URL('./stack-child.js', import.meta.url));
  const child: ChildProcess = fork(script, [JSON.stringify(options)], { execArgv: ['--expose-gc'], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 20_000) stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const target = await new Promise<StackTarget>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the local stack did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    child.once('message', (message) => {
      clearTimeout(timer);
      const answer = message as Ready;
      if (answer.ok) resolve(answer.result);
      else reject(new Error(`the local stack failed to start: ${answer.error}\n${stderr}`));
    });
    child.once('exit', (code) => reject(new Error(`the local stack exited (${code}) before it was ready\n${stderr}`)));
  }).catch((error: unknown) => {
    child.kill();
    throw error;
  });
  return {
    target,
    memory: () => new Promise((resolve) => {
      child.once('message', (message) => resolve(message as StackMemory));
      child.send('rss');
    }),
    stop: async () => {
      if (child.connected) child.send('stop');
      await exited;
    },
  };
}

/** The child's side: starts the stack on free loopback ports, without per-request logging. */
async function serve(options: StackChildOptions): Promise<void> {
  const stack = await startLocalStack({
    port: 0, cosmosPort: 0, authPort: 0, azuritePorts: { blob: 0, queue: 0, table: 0 }, settings: { LOG_REQUESTS: 'false' }, logRequest: () => {},
    ...(options.seedRecords !== undefined ? { seedRecords: options.seedRecords } : {}),
  });
  const stop = () => void stack.stop().then(() => process.exit(0));
  process.on('message', (message) => {
    if (message === 'rss') {
      (globalThis as { gc?: () => void }).gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      process.send!({ rss, heapUsed } satisfies StackMemory);
    } else if (message === 'stop') {
      stop();
    }
  });
  process.on('disconnect', stop);
  const tokens: Record<string, string> = {};
  for (const name of options.clients) tokens[name] = (await requestTokens(stack.authUrl, stack.identities, name)).access_token;
  const result: StackTarget = { baseUrl: stack.baseUrl, tokens, subscriptionKey: stack.identities.subscriptionKeys[0]!, apiKey: stack.identities.apiKeys[0]! };
  process.send!({ ok: true, result } satisfies Ready);
}

// Run as the child (forked with the IPC channel and its options), never when imported.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  serve(JSON.parse(process.argv[2] ?? '{}') as StackChildOptions).catch((error: unknown) => {
    process.send?.({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies Ready);
    process.exit(1);
  });
}
