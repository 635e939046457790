import { ApiError } from '../../errors/api-error.js';
import type { StoredRecord } from '../../model/view.js';
import { buildJsonEnvelope, jsonEnvelopeBytes } from '../../output/json-envelope.js';
import { cleaningWarning, cleanRecord, newCleaningReport } from '../../output/record-cleaner.js';
import type { OutputStage } from './output-stage.js';
import { baseHeaders } from '../response-headers.js';
import { mediaTypeOf } from '../../model/operation-contract.js';
import { linkBase, pageLinks } from './page-links.js';
import { paginate } from '../../output/pagination.js';
import { readResult } from '../../results/result-reader.js';
import { outcomeError, validatorHeaders } from './answer-outcome.js';

/**
 * The JSON page renderer: the page the reader read (../../results/result-reader.ts: version,
 * precondition, cursors, store reads), each record cleaned to exactly the view's fields (record-cleaner.ts), in the
 * envelope with its pagination, links and validators. A page past the end is an empty 200 with a
 * warning.
 */
export const respondJson: OutputStage = async (input) => {
  const { cleaning, query, requestId, request, deps, meter } = input;
  const { page, pageSize } = query;
  const read = await readResult({ ...input, format: 'json', schemaTag: input.schemaTags.json }).page();
  if (read.kind !== 'page') throw outcomeError(read, input.schemaTags.json);
  // Every value checked against its field, and exactly the allowlisted fields, on the way out.
  const cleaned = newCleaningReport();
  const records: StoredRecord[] = [];
  for (const record of read.records) {
    const answered = cleanRecord(cleaning, record, cleaned);
    if (answered !== undefined) records.push(answered);
  }
  const warning = cleaningWarning(cleaned);
  const pagination = paginate({ page, pageSize, totalRecords: read.totalRecords, resultWindow: deps.config.maxResultWindow, nextReachable: read.nextReachable });
  const envelope = buildJsonEnvelope(records, pagination, { requestId, generatedAt: new Date(deps.clock()), ...(warning ? { warning } : {}) });
  const headers = { ...baseHeaders(`${mediaTypeOf('json')}; charset=utf-8`, requestId), ...validatorHeaders(read.validators, input.schemaTags.json) };
  const links = linkBase(deps.config.publicBaseUrl, request.path, request.params, request.body);
  if (links) {
    // A link follower stops where the links stop, reading no warning: a next page that exists but
    // cannot be reached (its cursor could not be stored) is a retryable 503, never a silent end.
    if (pagination.windowEnds) throw nextPageUnreachable();
    const { header, next } = pageLinks(links, pagination);
    headers.Link = header;
    if (next !== undefined) envelope.pagination.nextLink = next;
  }
  return {
    status: 200,
    headers,
    // Encoded once here: the host needs bytes anyway, and the log needs their count
    // (Buffer.byteLength of a 400 kB string cost a sixth of a 1000-row request, measured).
    body: jsonEnvelopeBytes(envelope),
    records: records.length,
    store: meter,
    ...(warning ? { cleaning: cleaned } : {}),
  };
};

function nextPageUnreachable(): ApiError {
  return new ApiError('STORE_UNAVAILABLE', 'The link to the next page could not be made (the page cursor store is unavailable): ask for this page again shortly.', { headers: { 'Retry-After': '1' } });
}
