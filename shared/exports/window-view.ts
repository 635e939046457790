/**
 * A job's window as a result to read: the window's query in the view the job was started with
 * (EXPORT_VIEW_CHANGED when the roles now give another), with the caller's ETag for it as the
 * precondition. The worker exports through it; the kick-off checks through it.
 */
import { ApiError } from '../errors/api-error.js';
import type { SummaryQuery } from '../model/summary-query.js';
import type { CleaningPlan } from '../output/record-cleaner.js';
import { parseIfNoneMatch, type IfNoneMatch } from '../results/if-none-match.js';
import type { PreparedResource } from '../results/prepared-resource.js';
import type { ResultDeps } from '../results/result-deps.js';
import type { ResultInput } from '../results/result-reader.js';
import type { ExportJob, ExportWindow } from '../store/export-jobs.js';
import type { StoreMeter } from '../store/record-store.js';
import { windowQuery } from './export-request.js';

/** One window of a job, ready to read: the reader's input, and the plan its records are cleaned with. */
export interface WindowView {
  readonly input: ResultInput;
  readonly query: SummaryQuery;
  readonly cleaning: CleaningPlan;
  readonly precondition: IfNoneMatch | undefined;
}

/** The window's result in the job's view, or EXPORT_VIEW_CHANGED (thrown) when that view is not the one the job was started with. */
export function windowView(job: ExportJob, window: ExportWindow, resource: PreparedResource, deps: ResultDeps, context: { readonly requestId: string; readonly meter: StoreMeter }): WindowView {
  const { view, cleaning, schemaTags } = resource.prepare(job.roles);
  if (schemaTags.parquet !== job.schema) throw viewChanged();
  const query = windowQuery(job, window, { view, members: resource.members, maxPageSize: deps.config.maxPageSize });
  const sent = job.ifNoneMatch[window.label];
  const precondition = sent === undefined ? undefined : parseIfNoneMatch(sent);
  const input: ResultInput = {
    scope: { tenant: job.tenant, view }, query, format: 'parquet', schemaTag: job.schema,
    requestId: context.requestId, clientId: job.clientId, precondition, meter: context.meter, deps,
  };
  return { input, query, cleaning, precondition };
}

/** The caller's view is no longer the one the job was started with. */
export function viewChanged(): ApiError {
  return new ApiError('EXPORT_VIEW_CHANGED', 'The columns your roles show have changed since this job was started (a role was granted or taken away, or the datapoints configuration changed). Start a new job.');
}
