/**
 * Row groups encoded in worker threads, where the instance has more than one core: the exporting
 * thread keeps filling the next row group's buffers while a worker writes the sealed one's pages
 * and compresses them. A sealed row group is typed arrays only, so it moves to the worker without
 * a copy (transferred), and its bytes come back the same way.
 *
 * The workers run `row-group-worker.js`, which sits beside this module in `dist/` and beside the
 * chunk holding it in the deploy bundle (an entry of its own there). From TypeScript sources
 * (tests under jest) there is no script a worker can run, so exports encode in the calling
 * thread.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker, type MessagePort } from 'node:worker_threads';
import { EXPORT_SLOTS } from '../../admission/export-slots.js';
import type { ChunkColumn } from './parquet-column.js';
import { encodeRowGroup, type EncodedRowGroup } from './row-group.js';
import type { SealedColumn, SealedRowGroup } from './sealed.js';

/** Encodes row groups away from the calling thread. */
export interface RowGroupEncoder {
  /** Row groups one table may have in flight: one per worker. */
  readonly parallel: number;
  encode(columns: readonly ChunkColumn[], group: SealedRowGroup): Promise<EncodedRowGroup>;
}

/**
 * Workers at most, whatever the core count: one worker keeps up with one exporting thread (its
 * share, pages and snappy, is under a fifth of an export's CPU in the profiles), and an instance
 * runs at most EXPORT_SLOTS.total exports at once.
 */
const MAX_WORKERS = EXPORT_SLOTS.total;

/** The worker thread's script (row-group-worker.ts) once compiled, beside this module. */
const WORKER_SCRIPT = 'row-group-worker.js';

interface EncodeRequest {
  readonly id: number;
  readonly columns: readonly ChunkColumn[];
  readonly group: SealedRowGroup;
}

type EncodeReply = { readonly id: number; readonly encoded: EncodedRowGroup } | { readonly id: number; readonly error: string };

/** Row group workers of one's own (the process shares one set: rowGroupEncoder). */
export interface RowGroupWorkers extends RowGroupEncoder {
  /** Stops the workers; row groups they had not answered fail. */
  close(): Promise<void>;
}

let shared: RowGroupWorkers | null | undefined;

/**
 * The process's row group encoder: one worker per core beyond the first (at most MAX_WORKERS),
 * started on the first full row group and idle without holding the process open; undefined on a single core
 * (Elastic Premium EP1) or where no worker script exists, where row groups are encoded in the
 * calling thread.
 */
export function rowGroupEncoder(): RowGroupEncoder | undefined {
  if (shared === undefined) {
    const workers = Math.min(availableParallelism() - 1, MAX_WORKERS);
    shared = workers > 0 && existsSync(fileURLToPath(workerScript())) ? createRowGroupWorkers(workers) : null;
  }
  return shared ?? undefined;
}

/** The worker script beside this module's compiled JavaScript (none beside its TypeScript source). */
function workerScript(): URL {
  return new URL(`./${WORKER_SCRIPT}`, import.meta.url);
}

/** `count` row group workers running the worker script beside this module's compiled JavaScript. */
export function createRowGroupWorkers(count: number): RowGroupWorkers {
  return new WorkerPool(workerScript(), count);
}

/** A fixed number of workers; each request goes to the one with the fewest waiting. */
class WorkerPool implements RowGroupWorkers {
  private readonly workers: (EncoderWorker | undefined)[];

  constructor(private readonly script: URL, readonly parallel: number) {
    this.workers = new Array<EncoderWorker | undefined>(parallel).fill(undefined);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker?.close()));
  }

  encode(columns: readonly ChunkColumn[], group: SealedRowGroup): Promise<EncodedRowGroup> {
    let chosen = this.running(0);
    for (let w = 1; w < this.workers.length; w++) {
      const worker = this.running(w);
      if (worker.waiting < chosen.waiting) chosen = worker;
    }
    return chosen.encode(columns, group);
  }

  /** Worker `w`, started (again, if it stopped). */
  private running(w: number): EncoderWorker {
    let worker = this.workers[w];
    if (worker === undefined || worker.stopped) this.workers[w] = worker = new EncoderWorker(this.script);
    return worker;
  }
}

/** One worker thread and the requests it has not answered yet. */
class EncoderWorker {
  private readonly thread: Worker;
  private readonly pending = new Map<number, { resolve: (encoded: EncodedRowGroup) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  stopped = false;

  constructor(script: URL) {
    // No flags of the process: the thread runs plain compiled JavaScript, and a worker refuses
    // many process flags (`--expose-gc`, `--input-type` of code given to `node -e`).
    this.thread = new Worker(script, { execArgv: [] });
    // An idle worker does not keep the process alive; one with work does (see encode).
    this.thread.unref();
    this.thread.on('message', (reply: EncodeReply) => this.settle(reply));
    this.thread.on('error', (error) => this.stop(error));
    this.thread.on('exit', (code) => this.stop(new Error(`the row group worker exited (code ${code})`)));
  }

  get waiting(): number {
    return this.pending.size;
  }

  encode(columns: readonly ChunkColumn[], group: SealedRowGroup): Promise<EncodedRowGroup> {
    const id = this.nextId++;
    const result = new Promise<EncodedRowGroup>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    if (this.pending.size === 1) this.thread.ref();
    const request: EncodeRequest = { id, columns, group };
    try {
      this.thread.postMessage(request, group.columns.flatMap(buffersOf));
    } catch (error) {
      this.settle({ id, error: error instanceof Error ? error.message : String(error) });
    }
    return result;
  }

  private settle(reply: EncodeReply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.thread.unref();
    if ('error' in reply) waiter.reject(new Error(`encoding a row group failed: ${reply.error}`));
    else waiter.resolve(reply.encoded);
  }

  async close(): Promise<void> {
    this.stop(new Error('the row group workers were closed'));
    await this.thread.terminate();
  }

  private stop(error: Error): void {
    this.stopped = true;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
    void this.thread.terminate();
  }
}

/** The array buffers of a sealed column (each its own: sealing copies out), to transfer. */
function buffersOf(column: SealedColumn): ArrayBuffer[] {
  const { defined, values, indices } = column;
  return [defined?.buffer, indices?.buffer, values.data.buffer, values.kind === 'bytes' ? values.ends.buffer : undefined]
    .filter((buffer): buffer is ArrayBuffer => buffer !== undefined);
}

/** The worker's side: encodes each request, answers with the bytes (transferred) or the error's message. */
export function serveEncodeRequests(port: MessagePort): void {
  port.on('message', ({ id, columns, group }: EncodeRequest) => {
    let encoded: EncodedRowGroup;
    try {
      encoded = encodeRowGroup(columns, group);
    } catch (error) {
      port.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies EncodeReply);
      return;
    }
    port.postMessage({ id, encoded } satisfies EncodeReply, [encoded.bytes.buffer as ArrayBuffer]);
  });
}
