import { afterAll, describe, expect, it } from '@jest/globals';
import { planCleaning } from '../../shared/output/record-cleaner.js';
import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { SealedRowGroup } from '../../shared/output/parquet/sealed.js';
import type { ParquetTableWriter as TableWriter, ParquetTableOptions } from '../../shared/output/parquet/parquet-table-writer.js';
import type { createRowGroupWorkers as CreateWorkers, RowGroupWorkers } from '../../shared/output/parquet/row-group-workers.js';
import type { ChunkColumn } from '../../shared/output/parquet/parquet-column.js';
import { money, oneOf, text, timestamp, day } from '../../shared/model/fields.js';
import { readParquet } from '../support/parquet.js';
import { runChild } from '../support/run-child.js';

// Worker threads run compiled JavaScript: these tests load the build in dist/ (and the deploy
// bundle in package/), which `npm test` makes before jest starts. Under jest the sources have
// no script a worker can run, so every other test encodes in the exporting thread.
const root = new URL('../../', import.meta.url);
const dist = (path: string) => new URL(`dist/${path}`, root).href;
const { ParquetTableWriter } = (await import(dist('shared/output/parquet/parquet-table-writer.js'))) as { ParquetTableWriter: typeof TableWriter };
const { createRowGroupWorkers } = (await import(dist('shared/output/parquet/row-group-workers.js'))) as { createRowGroupWorkers: typeof CreateWorkers };

const FIELDS = [text('id'), oneOf('status', ['A', 'B']), text('name', true), day('due', true), timestamp('at'), money('amount')];
const record = (i: number) => ({
  id: `R${i}`, status: i % 3 ? 'A' : 'B', name: i % 4 ? `name ${i % 50}` : null, due: i % 5 ? '2025-02-28' : null,
  at: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(), amount: (i % 1000) * 1.25 - 300,
});

async function writeTable(rows: number, options: Partial<ParquetTableOptions>): Promise<Uint8Array> {
  const table = new ParquetTableWriter({ fields: FIELDS, maxBytes: 1 << 30, metadata: [], rowGroupSize: 4_000, ...options });
  for (let i = 0; i < rows; i++) await table.add(record(i));
  return Buffer.concat(await table.finish());
}

const pools: RowGroupWorkers[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
});

describe('row groups in worker threads', () => {
  it('encode byte for byte what the exporting thread encodes, in order', async () => {
    const workers = createRowGroupWorkers(2);
    pools.push(workers);
    const inWorkers = await writeTable(41_000, { encoder: workers });
    const here = await writeTable(41_000, { encoder: null });
    expect(Buffer.compare(inWorkers, here)).toBe(0);
    const file = await readParquet(inWorkers);
    expect(file.numRows).toBe(41_000);
    expect(file.rows[40_999]!.id).toBe('R40999');
  });

  it('answer a row group they cannot encode with its error, and go on serving', async () => {
    const workers = createRowGroupWorkers(1);
    pools.push(workers);
    const group: SealedRowGroup = { rows: 2, columns: [{ rows: 2, values: { kind: 'bytes', data: Uint8Array.of(1, 0, 0, 0, 97, 1, 0, 0, 0, 98), ends: Int32Array.of(5, 10) } }] };
    const wrong: ChunkColumn[] = [{ name: 's', type: 'BYTE_ARRAY', statistics: true }];
    await expect(workers.encode(wrong, group)).rejects.toThrow(/encoding a row group failed: statistics are kept for numbers and booleans only/);
    const right = { rows: 2, columns: [{ rows: 2, values: { kind: 'int32' as const, data: Int32Array.of(7, 9) } }] };
    const encoded = await workers.encode([{ name: 'n', type: 'INT32', statistics: true }], right);
    expect(encoded.numRows).toBe(2);
    expect(encoded.chunks[0]!.chunk.meta_data?.statistics).toMatchObject({ min_value: 7, max_value: 9 });
  });

  it('fail what is in flight when closed, instead of leaving it waiting', async () => {
    const workers = createRowGroupWorkers(1);
    const group = { rows: 1, columns: [{ rows: 1, values: { kind: 'int32' as const, data: Int32Array.of(1) } }] };
    const pending = workers.encode([{ name: 'n', type: 'INT32', statistics: false }], group);
    const failed = expect(pending).rejects.toThrow(/closed/);
    await workers.close();
    await failed;
  });

  it('let a process that exported end by itself: idle workers hold nothing open', async () => {
    const script = `
      const { exportParquet } = await import(${JSON.stringify(dist('shared/output/export-parquet.js'))});
      const { planCleaning } = await import(${JSON.stringify(dist('shared/output/record-cleaner.js'))});
      const { fullView } = await import(${JSON.stringify(dist('bench/full-view.js'))});
      const { documentPool, cycleRecords } = await import(${JSON.stringify(dist('bench/document-pool.js'))});
      const { rowGroupEncoder } = await import(${JSON.stringify(dist('shared/output/parquet/row-group-workers.js'))});
      const result = await exportParquet(cycleRecords(documentPool('contracts', 2000), 120000), planCleaning(fullView('contracts')), { maxBytes: 1e9, metadata: [], generatedAt: new Date() });
      console.log(JSON.stringify({ records: result.records, workers: rowGroupEncoder()?.parallel ?? 0 }));
    `;
    const run = await runChild(process.execPath, ['--input-type=module', '-e', script], {});
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ records: 120_000, workers: expect.any(Number) });
  });

  it('run from the deploy bundle: its worker script sits beside the chunk that starts it', async () => {
    const chunks = new URL('package/dist/chunks/', root);
    const starter = readdirSync(chunks).find((name) => readFileSync(new URL(name, chunks), 'utf8').includes('row-group-worker.js'));
    expect(starter).toBeDefined();
    expect(readdirSync(new URL('package/dist/functions/', root))).toEqual(['export-jobs.js', 'summary-operations.js']);
    const worker = new Worker(new URL('row-group-worker.js', chunks));
    try {
      const reply = new Promise<{ id: number; encoded?: { numRows: number; bytes: Uint8Array } }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      worker.postMessage({ id: 7, columns: [{ name: 'n', type: 'INT32', statistics: true }], group: { rows: 3, columns: [{ rows: 3, values: { kind: 'int32', data: Int32Array.of(1, 2, 3) } }] } });
      const answer = await reply;
      expect(answer.id).toBe(7);
      expect(answer.encoded?.numRows).toBe(3);
      expect(answer.encoded!.bytes.byteLength).toBeGreaterThan(12);
    } finally {
      await worker.terminate();
    }
  });
});
