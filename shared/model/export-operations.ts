/** The names of the export operations: routes, operation ids, log and span names, written once. */
import type { ResourceDefinition } from './resource-definition.js';

/** One export operation's names, as operationNames gives a summary operation's. */
export interface ExportOperationNames {
  readonly id: string;
  readonly route: string;
  /** The OpenAPI path. */
  readonly path: string;
  readonly method: 'POST' | 'GET' | 'DELETE';
  readonly logName: string;
  readonly spanName: string;
}

/** The route of a job (the Functions route template: `{id}` is the job id). */
const JOB_ROUTE = 'v1/exports/{id}';

/** The kick-off of a resource's export jobs: POST /v1/<resource>/exports. */
export function kickOffNames(resource: ResourceDefinition): ExportOperationNames {
  const route = `v1/${resource.name}/exports`;
  return Object.freeze({ id: `${resource.name}Export`, route, path: `/${route}`, method: 'POST', logName: `${resource.name}.exports`, spanName: `POST /${route}` });
}

/** GET /v1/exports/{id}: a job's progress, then its manifest. */
export const STATUS_NAMES: ExportOperationNames = Object.freeze({ id: 'exportStatus', route: JOB_ROUTE, path: `/${JOB_ROUTE}`, method: 'GET', logName: 'exports.status', spanName: `GET /${JOB_ROUTE}` });

/** DELETE /v1/exports/{id}: cancels a job and deletes its files. */
export const CANCEL_NAMES: ExportOperationNames = Object.freeze({ id: 'cancelExport', route: JOB_ROUTE, path: `/${JOB_ROUTE}`, method: 'DELETE', logName: 'exports.cancel', spanName: `DELETE /${JOB_ROUTE}` });

/** A job id: 128 random bits, hex. Anything else names no job. */
export const JOB_ID = /^[0-9a-f]{32}$/;

/** Seconds a caller is asked to wait between two status calls of a running job. */
export const STATUS_RETRY_SECONDS = 2;

/** The longest a status call waits for its job to complete when asked to (`Prefer: wait=N`): well inside a function's timeout. */
export const MAX_STATUS_WAIT_SECONDS = 20;

/** How often a waiting status call looks at its job's outcomes. */
export const STATUS_POLL_MS = 250;
