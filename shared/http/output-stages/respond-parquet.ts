import { ApiError } from '../../errors/api-error.js';
import { exportFile } from '../../model/operation-contract.js';
import { OutputLimitExceeded } from '../../output/output-limit-exceeded.js';
import type { OutputStage } from './output-stage.js';
import { CallerGone, EXPORT_DEADLINE_MS } from '../caller-gone.js';
import { baseHeaders } from '../response-headers.js';
import { unchangedError, validateResult, validatorHeaders } from './result-validator.js';

/**
 * The Parquet output stage: the result's validator first (412 where the caller's If-None-Match
 * still holds), then the whole result, read from the store as a stream, in the resource's
 * export shape (one Parquet file, or a zip of two). The body is complete before a byte is sent, so a
 * store fault is a clean 503 and a result over PARQUET_MAX_BYTES a 413, never a truncated file.
 */
export const respondParquet: OutputStage = async (input) => {
  const { scope, cleaning, query, requestId, clientId, deps, callerGone, meter } = input;
  // Before an export slot is taken: a check that holds costs one aggregate and no slot.
  const validated = await validateResult(input, 'parquet');
  if (validated.unchanged) throw unchangedError(validated, scope, 'parquet');
  // Gone while the version was taken: no slot, no store read for nobody.
  if (callerGone?.aborted) throw new CallerGone('the caller went away before the export started');
  const generatedAt = new Date(deps.clock());
  const metadata = [
    { key: 'summary.requestId', value: requestId },
    { key: 'summary.generatedAt', value: generatedAt.toISOString() },
    { key: 'summary.resource', value: query.resource.name },
    { key: 'summary.filters', value: JSON.stringify(query.given) },
  ];
  const release = await deps.exportSlots.acquire({ clientId, tenant: scope.tenant });
  if (!release) {
    throw new ApiError('EXPORTS_BUSY', 'Too many exports are running: one at a time per client application and per data tenant, and a few per instance. Wait for your running export to finish, then retry.', { headers: { 'Retry-After': '10' } });
  }
  // The export stops reading the store when its caller has gone, or at its deadline (every host).
  const deadline = AbortSignal.timeout(EXPORT_DEADLINE_MS);
  const stop = callerGone ? AbortSignal.any([callerGone, deadline]) : deadline;
  let result;
  try {
    // Loaded on the first export: the writer stays off the cold start of instances serving JSON.
    const { exportParquet } = await import('../../output/export-parquet.js');
    const records = query.matchesNothing ? noRecords() : deps.store.stream(scope, query, meter);
    result = await exportParquet(records, cleaning, { maxBytes: deps.config.parquetMaxBytes, metadata, generatedAt, signal: stop });
  } catch (error) {
    if (stop.aborted && callerGone?.aborted) throw new CallerGone('the caller went away during the export');
    if (stop.aborted) {
      throw new ApiError('STORE_UNAVAILABLE', `The export did not finish within ${EXPORT_DEADLINE_MS / 1000} s: the store is too slow for this range now. Retry later, or export a shorter range.`, { headers: { 'Retry-After': '60' } });
    }
    if (error instanceof OutputLimitExceeded) {
      throw new ApiError('RESULT_TOO_LARGE', `The export would exceed ${deps.config.parquetMaxBytes} bytes; narrow the filters (a shorter date range, one workspace or one status) and export in parts.`);
    }
    throw error;
  } finally {
    release();
  }
  const file = exportFile(query.resource.export);
  return {
    status: 200,
    headers: {
      ...baseHeaders(file.mediaType, requestId),
      ...validatorHeaders(validated, scope, 'parquet'),
      'Content-Disposition': `attachment; filename="${query.resource.name}-${requestId}.${file.extension}"`,
    },
    body: result.body,
    records: result.records,
    store: meter,
    ...(result.cleaning.problems.length > 0 ? { cleaning: result.cleaning } : {}),
  };
};

/** The records of a query that matches nothing, without asking the store. */
async function* noRecords(): AsyncGenerator<never> {}
