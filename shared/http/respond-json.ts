import { ApiError } from '../errors/api-error.js';
import { buildJsonEnvelope } from '../output/json-envelope.js';
import type { OutputStage } from './output-stage.js';
import { baseHeaders } from './response-headers.js';
import { mediaTypeOf } from './negotiate.js';

/**
 * The JSON output stage: total from a COUNT under the same filters, then the one page asked for
 * (neither when the query matches nothing the caller may see).
 * A page past the end is an empty 200 with a warning; a page reaching past MAX_RESULT_WINDOW is a
 * 400 that points to narrower filters or a Parquet export.
 */
export const respondJson: OutputStage = async ({ scope, query, requestId, deps }) => {
  const totalRecords = query.matchesNothing ? 0 : await deps.store.count(scope, query);
  const skip = (query.page - 1) * query.pageSize;
  let records: Awaited<ReturnType<typeof deps.store.list>> = [];
  if (skip < totalRecords) {
    const take = Math.min(query.pageSize, totalRecords - skip);
    if (skip + take > deps.config.maxResultWindow) {
      throw new ApiError('RESULT_WINDOW_EXCEEDED', `Pages can reach the first ${deps.config.maxResultWindow} records of a result only; narrow the filters (for example a shorter date range) or export the whole result as Parquet.`, {
        errors: [{ member: 'page', code: 'RESULT_WINDOW_EXCEEDED', message: `page × pageSize may reach at most record ${deps.config.maxResultWindow}.` }],
      });
    }
    records = await deps.store.list(scope, query, skip, take);
  }
  const envelope = buildJsonEnvelope(records, scope.view, { page: query.page, pageSize: query.pageSize, totalRecords, resultWindow: deps.config.maxResultWindow }, { requestId, generatedAt: deps.clock() });
  return {
    status: 200,
    headers: baseHeaders(`${mediaTypeOf('json')}; charset=utf-8`, requestId),
    // Encoded once here: the host needs bytes anyway, and the log needs their count
    // (Buffer.byteLength of a 400 kB string cost a sixth of a 1000-row request, measured).
    body: Buffer.from(JSON.stringify(envelope), 'utf8'),
    records: records.length,
  };
};
