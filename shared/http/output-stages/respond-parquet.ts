import { ApiError } from '../../errors/api-error.js';
import { exportFile } from '../../model/operation-contract.js';
import { OutputLimitExceeded } from '../../output/output-limit-exceeded.js';
import type { OutputStage } from './output-stage.js';
import { baseHeaders } from '../response-headers.js';
import { readResult } from '../../results/result-reader.js';
import { EXPORT_DEADLINE_MS } from '../../config/platform-limit.js';
import { outcomeError, validatorHeaders } from './answer-outcome.js';

/**
 * The Parquet renderer: the whole result as the reader streams it (../../results/result-reader.ts:
 * version, precondition, export slot, deadline, store reads), in the resource's export shape (one Parquet file, or a
 * zip of two). The body is complete before a byte is sent, so a store fault is a clean 503 and a
 * result over PARQUET_MAX_BYTES a 413, never a truncated file.
 */
export const respondParquet: OutputStage = async (input) => {
  const { cleaning, query, requestId, deps, meter } = input;
  let read;
  try {
    read = await readResult({ ...input, format: 'parquet', schemaTag: input.schemaTags.parquet }).whole(async (records, signal) => {
      const generatedAt = new Date(deps.clock());
      // Loaded on the first export: the writer stays off the cold start of instances serving JSON.
      const { exportParquet, footerMetadata } = await import('../../output/export-parquet.js');
      return exportParquet(records, cleaning, { maxBytes: deps.config.parquetMaxBytes, metadata: footerMetadata({ requestId, generatedAt, query }), generatedAt, signal });
    }, { deadlineMs: EXPORT_DEADLINE_MS });
  } catch (error) {
    if (error instanceof OutputLimitExceeded) {
      throw new ApiError('RESULT_TOO_LARGE', `The export would exceed ${deps.config.parquetMaxBytes} bytes; narrow the filters (a shorter date range, one workspace or one status) and export in parts.`);
    }
    throw error;
  }
  if (read.kind !== 'records') throw outcomeError(read, input.schemaTags.parquet);
  const result = read.rendered;
  const file = exportFile(query.resource.export);
  return {
    status: 200,
    headers: {
      ...baseHeaders(file.mediaType, requestId),
      ...validatorHeaders(read.validators, input.schemaTags.parquet),
      'Content-Disposition': `attachment; filename="${query.resource.name}-${requestId}.${file.extension}"`,
    },
    body: result.body,
    records: result.records,
    store: meter,
    ...(result.cleaning.problems.length > 0 ? { cleaning: result.cleaning } : {}),
  };
};
