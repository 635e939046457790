/**
 * The export jobs in the OpenAPI document: the kick-off of each resource, a job's status and its
 * cancel, their problem responses (`ExportProblem<status>`: only the codes these operations
 * answer) and the status document's schema.
 */
import { z } from 'zod';
import type { ErrorCode } from '../shared/errors/error-codes.js';
import { CANCEL_NAMES, JOB_ID, kickOffNames, STATUS_NAMES, STATUS_RETRY_SECONDS, MAX_STATUS_WAIT_SECONDS } from '../shared/model/export-operations.js';
import { IF_NONE_MATCH_MEMBER } from '../shared/exports/export-request.js';
import { mediaTypeOf } from '../shared/model/operation-contract.js';
import type { ResourceDefinition } from '../shared/model/resource-definition.js';
import { componentRef, schemaRef } from './component-ref.js';
import { narrowedProblemRefs, narrowedProblemResponses } from './error-responses.js';
import { toJsonSchema, type JsonObject } from './json-schema.js';
import { ProblemSchema } from './problem-schema.js';
import { settingDefaults } from './service-defaults.js';

/** What every operation may answer before its own checks: the credentials, the gateway, a fault. */
const EDGE: readonly ErrorCode[] = ['INVALID_TOKEN', 'INVALID_API_KEY', 'INVALID_SUBSCRIPTION_KEY', 'MISSING_ROLE', 'CLIENT_NOT_REGISTERED', 'RATE_LIMITED', 'INTERNAL', 'IDENTITY_UNAVAILABLE'];

/** The codes each export operation answers. */
export const EXPORT_OPERATION_CODES = {
  kickOff: [...EDGE, 'NOT_ACCEPTABLE', 'INVALID_JSON', 'INVALID_BODY', 'UNKNOWN_FILTER', 'INVALID_FILTER', 'INVALID_DATE', 'DATE_RANGE_INCOMPLETE', 'DATE_RANGE_REVERSED',
    'DATE_RANGE_TOO_LONG', 'INVALID_ORDER_BY', 'PAGINATION_NOT_ALLOWED', 'INVALID_PRECONDITION', 'REQUEST_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'TOO_MANY_EXPORT_JOBS',
    'STORE_UNAVAILABLE', 'STORAGE_UNAVAILABLE'],
  status: [...EDGE, 'NOT_ACCEPTABLE', 'NOT_FOUND', 'EXPORT_VIEW_CHANGED', 'STORE_UNAVAILABLE', 'STORAGE_UNAVAILABLE'],
  cancel: [...EDGE, 'NOT_FOUND', 'STORE_UNAVAILABLE'],
} as const satisfies Record<string, readonly ErrorCode[]>;

/** The component name of an export operation's problem response of a status. */
export function exportProblemName(status: number): string {
  return `ExportProblem${status}`;
}


const file = z.strictObject({
  table: z.string().meta({ description: 'The table: `contracts`; for invoices `invoices` or `invoice_tables` (the two files of the synchronous export\'s zip).' }),
  url: z.url().meta({ description: 'A read-only URL of this one file (an Azure Storage user delegation SAS, https only), valid until the job expires. Fetch it without any of the service\'s credentials. Treat it as a secret: it is the file.' }),
  records: z.int().min(0).meta({ description: 'Rows in the file.' }),
  bytes: z.int().min(0).meta({ description: 'The file\'s size: check what you downloaded against it.' }),
  sha256: z.string().regex(/^[0-9a-f]{64}$/).meta({ description: 'SHA-256 of the file, hex.' }),
});

const window = z.strictObject({
  label: z.string().regex(/^\d{4}-\d{2}$/).meta({ description: 'The calendar month, YYYY-MM: the key of `ifNoneMatch`.' }),
  from: z.string().meta({ description: 'The window\'s first day (the range\'s From member for it).' }),
  to: z.string().meta({ description: 'Its last day, included.' }),
  status: z.enum(['pending', 'exported', 'unchanged', 'failed']).meta({ description: '`pending` while the job runs; `exported` (its files are listed), `unchanged` (its ETag was in `ifNoneMatch`: no files), `failed` (see `problem`).' }),
  etag: z.string().optional().meta({ description: 'The window\'s validator: the ETag the summary operation answers for this window and view with Accept Parquet. Keep it and send it in `ifNoneMatch` next time.' }),
  records: z.int().min(0).optional().meta({ description: 'Records of the window (0 when unchanged or failed).' }),
  files: z.array(file).optional().meta({ description: 'Once the job is completed: the window\'s files, each table at least one (several when a table is larger than one synchronous export may be).' }),
  problem: ProblemSchema.optional().meta({ description: 'Why the window failed.' }),
  moving: z.literal(true).optional().meta({ description: 'Exported while its records were still being written (a write within the last few seconds, QUIET_SECONDS): its files hold every write before the job\'s `transactionTime`, and its ETag matches nothing, so your next job exports the window again. Absent otherwise.' }),
});

/** The status document of a job: progress while it runs, the manifest when completed. */
export const ExportJobStatusSchema = z.strictObject({
  id: z.string().regex(JOB_ID).meta({ description: 'The job\'s id (128 random bits).' }),
  resource: z.string(),
  status: z.enum(['running', 'completed']),
  request: z.record(z.string(), z.string()).meta({ description: 'The request as understood: the filters, the whole range, the order.' }),
  transactionTime: z.string().meta({ description: 'Every write before this time (UTC) is in the files; compare a next job with it.' }),
  expires: z.string().meta({ description: 'When the job, its files and their URLs go (EXPORT_JOB_TTL_SECONDS after the kick-off).' }),
  schema: z.string().regex(/^[0-9a-f]{32}$/).meta({ description: 'The fingerprint of the files\' columns: the X-Summary-Schema of the synchronous export.' }),
  progress: z.strictObject({ windows: z.int().min(1), done: z.int().min(0), failed: z.int().min(0) }).meta({ description: 'Windows of the job, how many have their outcome, and how many of those failed.' }),
  problem: ProblemSchema.optional().meta({ description: 'Once the job is completed, when any of its windows failed (code EXPORT_WINDOW_FAILED, naming them): the job is `completed` all the same (every window has its outcome, the others\' files are listed), and this says so without walking the windows. Absent when every window was exported or unchanged.' }),
  windows: z.array(window),
  files: z.array(file.extend({
    window: z.string().regex(/^\d{4}-\d{2}$/).meta({ description: 'The label of the file\'s window.' }),
    part: z.int().min(0).meta({ description: 'The file\'s place among its table\'s files of the window: 0, then 1, … past PARQUET_MAX_BYTES.' }),
  })).optional().meta({ description: 'Once the job is completed: every file of the windows above, in one flat list (window, table, part), for tools that loop once over files (Data Factory\'s ForEach, Power Query).' }),
}).meta({ description: 'An export job: one window per calendar month of its range.' });

const cancelled = z.strictObject({ id: z.string().regex(JOB_ID), status: z.literal('cancelled') });

/** The export jobs' schemas (`components.schemas`). */
export function exportSchemas(filterSchemas: Readonly<Record<string, JsonObject>>, resources: readonly ResourceDefinition[]): Record<string, JsonObject> {
  const schemas: Record<string, JsonObject> = { ExportJobStatus: toJsonSchema(ExportJobStatusSchema), ExportJobCancelled: toJsonSchema(cancelled) };
  for (const resource of resources) {
    const filters = filterSchemas[resource.openapi.filtersSchema] as { properties: JsonObject; dependentRequired?: JsonObject };
    const { page: _page, pageSize: _pageSize, ...properties } = filters.properties;
    schemas[exportRequestSchema(resource)] = {
      type: 'object',
      description: `The kick-off of a ${resource.name} export job: the summary operation's filters and order, with one date range (both ends) of any number of calendar months `
        + `(at most EXPORT_MAX_MONTHS, default ${settingDefaults().exportMaxMonths}), and optionally \`${IF_NONE_MATCH_MEMBER}\`. No page or pageSize: a job exports every record. Only in the body (a query-string filter is 400).`,
      properties: {
        ...properties,
        [IF_NONE_MATCH_MEMBER]: {
          description: 'Window label (YYYY-MM) → the ETag you hold for it (from your last manifest, or the summary operation); or your last manifest\'s `windows` as they are (an array of objects with `label` and `etag`; windows without an ETag are left out). A window whose result still has that ETag is `unchanged` and gets no files. Labels outside the range are ignored.',
          oneOf: [
            { type: 'object', propertyNames: { pattern: '^\\d{4}-(0[1-9]|1[0-2])$' }, additionalProperties: { type: 'string' } },
            { type: 'array', maxItems: 1000, items: { type: 'object', required: ['label'], properties: { label: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$' }, etag: { type: 'string' } } } },
          ],
        },
      },
      ...(filters.dependentRequired ? { dependentRequired: filters.dependentRequired } : {}),
      additionalProperties: false,
    };
  }
  return schemas;
}

function exportRequestSchema(resource: ResourceDefinition): string {
  return `${resource.openapi.filtersSchema.replace(/Filters$/, '')}ExportRequest`;
}

/** The problem responses of the export operations (`components.responses`). */
export function exportErrorResponses(): Record<string, JsonObject> {
  return narrowedProblemResponses([...new Set(Object.values(EXPORT_OPERATION_CODES).flat())], exportProblemName);
}

function problems(codes: readonly ErrorCode[]): JsonObject {
  return narrowedProblemRefs(codes, exportProblemName);
}

const statusContent = { [mediaTypeOf('json')]: { schema: schemaRef('ExportJobStatus') } };
const base = { 'X-Request-ID': componentRef('headers', 'X-Request-ID'), 'Cache-Control': componentRef('headers', 'Cache-Control') };

/** The export operations' paths: the kick-off of every resource, and a job's status and cancel. */
export function exportPaths(resources: readonly ResourceDefinition[]): JsonObject {
  const paths: JsonObject = {};
  const prefer = {
    name: 'Prefer', in: 'header', required: false,
    description: `\`wait=N\` (RFC 7240): answer once the job is complete (then with Retry-After 0), or after N seconds (at most ${MAX_STATUS_WAIT_SECONDS}), whichever comes first; fewer polls, and the manifest as soon as it is there.`,
    schema: { type: 'string', examples: ['wait=20'] },
  };
  for (const resource of resources) {
    const names = kickOffNames(resource);
    paths[names.path] = {
      post: {
        operationId: names.id,
        tags: ['exports'],
        summary: `Start an export job of ${resource.name}: a whole range as Parquet files in storage`,
        description: `Checks the request as the summary operation checks one (its 400s), cuts the range into calendar months and exports each month into Parquet files, the same rows and schema as a synchronous export of that month answers, in the background. `
          + `Answers 202 at once with the job's status URL in Location (and Content-Location) and Retry-After (${STATUS_RETRY_SECONDS} s; 0 when the job is complete already); poll it until 200. A client may have EXPORT_JOBS_PER_CLIENT (default ${settingDefaults().exportJobsPerClient}) jobs running. `
          + 'Send the ETags of your last manifest in `ifNoneMatch`: the months that still have theirs are checked before the kick-off answers (aggregates, no record read; settled months together) and are `unchanged`; only the others are exported again. A job of which nothing changed is complete at once.',
        parameters: [prefer],
        requestBody: {
          required: true,
          content: { [mediaTypeOf('json')]: { schema: schemaRef(exportRequestSchema(resource)), examples: { twoYears: { summary: 'Two years, one window per month', value: { createdFrom: '2024-01-01', createdTo: '2025-12-31' } } } } },
        },
        responses: {
          202: {
            description: 'The job is started: its status (every window pending) and where to ask for it.',
            headers: { ...base, Location: componentRef('headers', 'Location'), 'Content-Location': componentRef('headers', 'Location'), 'Retry-After': componentRef('headers', 'Retry-After') },
            content: statusContent,
          },
          ...problems(EXPORT_OPERATION_CODES.kickOff),
        },
      },
    };
  }
  const id = { name: 'id', in: 'path', required: true, description: 'The job\'s id (from Location).', schema: { type: 'string', pattern: JOB_ID.source } };
  paths[STATUS_NAMES.path] = {
    parameters: [id],
    get: {
      operationId: STATUS_NAMES.id,
      parameters: [prefer],
      tags: ['exports'],
      summary: 'An export job\'s progress, then its manifest',
      description: '202 with the progress (windows done of all) and Retry-After while the job runs; 200 with the manifest once every window has its outcome. '
        + '404 for a job that is not your client application\'s (another client\'s or tenant\'s: no different from one that never existed), was cancelled, or has expired; '
        + '409 `EXPORT_VIEW_CHANGED` when your roles now give another view than the job was started with.',
      responses: {
        200: { description: 'The manifest: every window with its outcome, and each exported window\'s files with a read-only URL each.', headers: base, content: statusContent },
        202: { description: 'Running: the windows done so far.', headers: { ...base, 'Retry-After': componentRef('headers', 'Retry-After') }, content: statusContent },
        ...problems(EXPORT_OPERATION_CODES.status),
      },
    },
    delete: {
      operationId: CANCEL_NAMES.id,
      tags: ['exports'],
      summary: 'Cancel an export job and delete its files',
      description: 'The job stops (windows not begun are skipped), its files are deleted, and its status is 404 from then on.',
      responses: {
        202: { description: 'Cancelled.', headers: base, content: { [mediaTypeOf('json')]: { schema: schemaRef('ExportJobCancelled') } } },
        ...problems(EXPORT_OPERATION_CODES.cancel),
      },
    },
  };
  return paths;
}

/** The tag of the export operations. */
export const EXPORTS_TAG: JsonObject = { name: 'exports', description: 'Export jobs: a whole range of records as Parquet files in storage, listed in a manifest.' };
