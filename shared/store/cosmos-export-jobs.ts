import type { Container, CosmosClient } from '@azure/cosmos';
import * as z from 'zod';
import { DATABASE_ID } from '../model/resources.js';
import { EXPORT_JOBS_CONTAINER } from './container-definitions.js';
import type { ExportJob, ExportJobs, WindowOutcome } from './export-jobs.js';
import type { TakenVersion } from './record-store.js';
import { ApiError } from '../errors/api-error.js';
import { createCosmosAdmissionLedger } from './cosmos-admission-ledger.js';
import { statusOf, storeFault } from './store-fault.js';

/** How long job state outlives the job: a worker still finishing, a late status call answered 404 from the record. */
const KEPT_AFTER_EXPIRY_SECONDS = 3600;

const window = z.object({ label: z.string(), from: z.string(), to: z.string() });
const jobDocument = z.object({
  id: z.string(),
  tenantId: z.string(),
  kind: z.literal('job'),
  clientId: z.string(),
  resource: z.string(),
  roles: z.array(z.string()),
  schema: z.string(),
  given: z.record(z.string(), z.string()),
  request: z.record(z.string(), z.string()),
  range: z.object({ from: z.string(), to: z.string() }),
  windows: z.array(window),
  ifNoneMatch: z.record(z.string(), z.string()),
  createdAt: z.string(),
  transactionTime: z.string(),
  expires: z.string(),
  accepted: z.boolean(),
  cancelled: z.boolean(),
});
const fileEntry = z.object({ table: z.string(), blob: z.string(), records: z.number(), bytes: z.number(), sha256: z.string() });
const checkedVersion = z.object({ records: z.number().int().min(0), latestWrite: z.number().int().min(0), takenAt: z.number().int().min(0) });
const outcomeDocument = z.object({
  kind: z.literal('window'),
  jobId: z.string(),
  label: z.string(),
  status: z.enum(['exported', 'unchanged', 'failed']),
  etag: z.string().optional(),
  records: z.number(),
  files: z.array(fileEntry),
  problem: z.record(z.string(), z.unknown()).optional(),
  // A malformed one costs only the shortcut (check-windows.ts), never the outcome.
  checked: checkedVersion.optional().catch(undefined),
});

/**
 * Export jobs in their Cosmos container (EXPORT_JOBS_CONTAINER), one data tenant per partition:
 * a job document, one document per window outcome (`<job>.<label>`, created once: the first wins) and a done marker
 * (`<job>.done`), and the service's one ledger of admitted jobs (cosmos-admission-ledger.ts). Each of a job's carries a `ttl` that ends an hour after the job's expiry. A document that
 * does not read as what it should be is no job (and no outcome): a caller gets 404, never another's job.
 */
export function createCosmosExportJobs(client: CosmosClient): ExportJobs {
  const container: Container = client.database(DATABASE_ID).container(EXPORT_JOBS_CONTAINER.id);
  const admissions = createCosmosAdmissionLedger(container);
  const ttl = (job: ExportJob) => Math.max(1, Math.ceil((Date.parse(job.expires) - Date.now()) / 1000) + KEPT_AFTER_EXPIRY_SECONDS);
  const toDocument = (job: ExportJob) => {
    const { tenant, ...rest } = job;
    return { ...rest, tenantId: tenant, kind: 'job', ttl: ttl(job) };
  };
  const toJob = (document: unknown, tenant: string): ExportJob | undefined => {
    const parsed = jobDocument.safeParse(document);
    if (!parsed.success || parsed.data.tenantId !== tenant) return undefined;
    const { tenantId, kind: _kind, ...rest } = parsed.data;
    return { ...rest, tenant: tenantId };
  };
  // Every query names the tenant in its WHERE clause as well as its partition: the embedded server ignores the partition key.
  const query = async <T>(tenant: string, text: string, parameters: { name: string; value: string | readonly string[] }[]): Promise<T[]> => {
    const { resources } = await container.items.query<T>({ query: `${text} AND c.tenantId = @tenant`, parameters: [...parameters, { name: '@tenant', value: tenant }] }, { partitionKey: tenant }).fetchAll();
    return resources;
  };
  return translated({
    async create(job) {
      await container.items.create(toDocument(job));
    },
    async replace(job) {
      await container.item(job.id, job.tenant).replace(toDocument(job));
    },
    async get(tenant, id) {
      const { resource } = await container.item(id, tenant).read();
      return resource ? toJob(resource, tenant) : undefined;
    },
    async remove(tenant, id) {
      await container.item(id, tenant).delete().catch((error: { code?: number }) => {
        if (error.code !== 404) throw error;
      });
    },
    async outcomes(tenant, id) {
      const documents = await query<unknown>(tenant, 'SELECT * FROM c WHERE c.kind = "window" AND c.jobId = @id', [{ name: '@id', value: id }]);
      return documents.flatMap((document) => {
        const parsed = outcomeDocument.safeParse(document);
        if (!parsed.success || parsed.data.jobId !== id) return [];
        const { kind: _kind, jobId: _jobId, ...outcome } = parsed.data;
        return [outcome as WindowOutcome];
      });
    },
    async record(job, outcome) {
      try {
        await container.items.create({ ...outcome, id: `${job.id}.${outcome.label}`, tenantId: job.tenant, kind: 'window', jobId: job.id, ttl: ttl(job) });
        return true;
      } catch (error) {
        if (statusOf(error) === 409) return false;
        throw error;
      }
    },
    async markDone(job) {
      await container.items.upsert({ id: `${job.id}.done`, tenantId: job.tenant, kind: 'done', jobId: job.id, clientId: job.clientId, ttl: ttl(job) });
      await admissions.release([job.id]);
    },
    async versionsOf(tenant, etags) {
      const versions = new Map<string, TakenVersion>();
      if (etags.length === 0) return versions;
      const rows = await query<unknown>(tenant, 'SELECT c.etag, c.checked FROM c WHERE c.kind = "window" AND ARRAY_CONTAINS(@etags, c.etag) AND IS_DEFINED(c.checked)', [{ name: '@etags', value: etags }]);
      for (const row of rows) {
        const parsed = z.object({ etag: z.string(), checked: checkedVersion }).safeParse(row);
        if (!parsed.success || !etags.includes(parsed.data.etag)) continue;
        const known = versions.get(parsed.data.etag);
        if (!known || known.takenAt < parsed.data.checked.takenAt) versions.set(parsed.data.etag, parsed.data.checked);
      }
      return versions;
    },
    admissions: translated(admissions),
  });
}

/**
 * The store's faults translated once, here at its seam, as the record store's are (store-fault.ts):
 * every call of `calls` rejects with 503 STORE_UNAVAILABLE (throttling, outages, the network) or
 * the SDK's own error (a bug), never anything its callers must translate again.
 */
function translated<T extends object>(calls: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, call] of Object.entries(calls)) {
    wrapped[name] = typeof call !== 'function' ? call : async (...args: unknown[]) => {
      try {
        return await (call as (...args: unknown[]) => Promise<unknown>)(...args);
      } catch (error) {
        throw error instanceof ApiError ? error : storeFault(error, false);
      }
    };
  }
  return wrapped as T;
}
