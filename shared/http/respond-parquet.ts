import { ApiError } from '../errors/api-error.js';
import { exportParquet } from '../output/export-parquet.js';
import { OutputLimitExceeded } from '../output/limited-byte-writer.js';
import type { OutputStage } from './output-stage.js';

/**
 * The Parquet output stage: the whole result, read from the store as a stream, as one Parquet
 * file (contracts) or a zip of two (invoices). The body is complete before a byte is sent, so a
 * store fault is a clean 503 and a result over PARQUET_MAX_BYTES a 413, never a truncated file.
 */
export const respondParquet: OutputStage = async ({ scope, query, requestId, deps }) => {
  const generatedAt = deps.clock();
  const metadata = [
    { key: 'summary.requestId', value: requestId },
    { key: 'summary.generatedAt', value: generatedAt.toISOString() },
    { key: 'summary.resource', value: query.resource },
    { key: 'summary.filters', value: JSON.stringify(query.given) },
  ];
  const release = deps.exportSlots.tryAcquire();
  if (!release) {
    throw new ApiError('EXPORTS_BUSY', 'Too many exports are running on this instance; retry shortly.', { headers: { 'Retry-After': '10' } });
  }
  let result;
  try {
    result = await exportParquet(deps.store.stream(scope, query), scope.view, { maxBytes: deps.config.parquetMaxBytes, metadata, generatedAt });
  } catch (error) {
    if (error instanceof OutputLimitExceeded) {
      throw new ApiError('RESULT_TOO_LARGE', `The export would exceed ${deps.config.parquetMaxBytes} bytes; narrow the filters (a shorter date range, one workspace or one status) and export in parts.`);
    }
    throw error;
  } finally {
    release();
  }
  const zip = query.resource === 'invoices';
  const filename = `${query.resource}-${requestId}.${zip ? 'zip' : 'parquet'}`;
  return {
    status: 200,
    headers: {
      'Content-Type': zip ? 'application/zip' : 'application/vnd.apache.parquet',
      'Content-Disposition': `attachment; filename="${filename}"`,
      'X-Request-ID': requestId,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
    body: result.body,
    records: result.records,
  };
};
