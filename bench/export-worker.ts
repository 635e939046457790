import { exportParquet } from '../shared/output/export-parquet.js';
import { planCleaning } from '../shared/output/record-cleaner.js';
import { cycleRecords, lineCount, readPool, type BenchResource } from './document-pool.js';
import { fullView } from './full-view.js';
import { parquetFacts, type ParquetFacts } from './parquet-facts.js';
import { peakRss, serveWorker, settle, type ProcessFigures } from './run-worker.js';

/** One export measurement. */
export interface ExportInput {
  readonly resource: BenchResource;
  /** Records streamed through the export (the pool is cycled to reach it). */
  readonly records: number;
  /** The pool of store documents (see writePool). */
  readonly poolFile: string;
}

/** What one export measurement found. */
export interface ExportFigures extends ProcessFigures, ParquetFacts {
  readonly ms: number;
  /** Parquet rows written: records, plus lines for invoices. */
  readonly rows: number;
  readonly bytes: number;
}

async function measure({ resource, records, poolFile }: ExportInput): Promise<ExportFigures> {
  const pool = readPool(poolFile);
  const view = fullView(resource);
  const lines = lineCount(pool, records);
  const generatedAt = new Date();
  const metadata = [
    { key: 'summary.requestId', value: 'bench' },
    { key: 'summary.generatedAt', value: generatedAt.toISOString() },
    { key: 'summary.resource', value: resource },
    { key: 'summary.filters', value: '{}' },
  ];
  const rssBeforeBytes = settle();
  const started = performance.now();
  const result = await exportParquet(cycleRecords(pool, records), planCleaning(view), { maxBytes: Number.MAX_SAFE_INTEGER, metadata, generatedAt });
  const ms = performance.now() - started;
  const peakRssBytes = peakRss();
  if (result.records !== records) throw new Error(`exported ${result.records} records, expected ${records}`);
  return { ms, rows: records + lines, bytes: result.body.byteLength, rssBeforeBytes, peakRssBytes, ...parquetFacts(result.body) };
}

serveWorker(measure);
