import type { Container } from '@azure/cosmos';
import * as z from 'zod';
import { admitJob, type AdmissionLedger, type AdmittedJob } from '../admission/job-admission.js';
import { statusOf } from './store-fault.js';

/**
 * Where the ledger lives: one document in the export jobs container, in a partition of its own
 * that no data tenant can name (data tenants are lower-case names: load-config.ts).
 */
const LEDGER = Object.freeze({ id: 'admission-ledger', partition: '~service' });

/** Tries of one change against writers racing it (each loses only to a change that landed). */
const MAX_TRIES = 40;

const entry = z.object({ jobId: z.string(), tenant: z.string(), clientId: z.string(), windows: z.number().int().min(0), until: z.number() });
const ledgerDocument = z.object({ jobs: z.array(entry) });

/**
 * The ledger of admitted export jobs (job-admission.ts) as one Cosmos document changed by
 * optimistic concurrency: read it with its ETag, change it, replace it only if it is still that
 * version (If-Match), else read it again. So every admission sees every admission before it, and
 * none passes a cap that a racing one filled. Jobs past their `until` are dropped at each change.
 * One document for the service: kick-offs are few (a tenant's nightly jobs), and one write each.
 */
export function createCosmosAdmissionLedger(container: Container): AdmissionLedger {
  const item = container.item(LEDGER.id, LEDGER.partition);
  const read = async (): Promise<{ jobs: AdmittedJob[]; etag: string | undefined }> => {
    const { resource } = await item.read<{ _etag?: string }>();
    if (!resource) return { jobs: [], etag: undefined };
    // A ledger that does not read as one is started anew: it costs the caps until its jobs end, never a kick-off.
    const parsed = ledgerDocument.safeParse(resource);
    return { jobs: parsed.success ? parsed.data.jobs : [], etag: resource._etag ?? '' };
  };
  /** Applies `change` to the ledger as it is, atomically; `change` returns the new jobs, or undefined to write nothing. */
  const change = async <T>(apply: (jobs: AdmittedJob[]) => { jobs?: AdmittedJob[]; result: T }): Promise<T> => {
    for (let tries = 1; ; tries++) {
      const { jobs, etag } = await read();
      const { jobs: next, result } = apply(jobs);
      if (!next) return result;
      const document = { id: LEDGER.id, tenantId: LEDGER.partition, kind: 'ledger', jobs: next };
      try {
        if (etag === undefined) await container.items.create(document);
        else await item.replace(document, { accessCondition: { type: 'IfMatch', condition: etag } });
        return result;
      } catch (error) {
        // Another change landed first (412), or created the ledger first (409): read it again.
        const status = statusOf(error);
        if (status !== 412 && status !== 409) throw error;
        // Raced every time: the store is busier than kick-offs should find it (a 503 with Retry-After).
        if (tries >= MAX_TRIES) throw Object.assign(new Error('the admission ledger changed under every try'), { code: 503 });
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * Math.min(tries, 5)));
      }
    }
  };
  return {
    admit: (job, caps, now) => change((jobs) => {
      const decided = admitJob(jobs, job, caps, now);
      return 'refusal' in decided ? { result: decided.refusal } : { jobs: decided.admitted, result: undefined };
    }),
    update: (job) => change((jobs) => {
      const at = jobs.findIndex((entry) => entry.jobId === job.jobId);
      return at < 0 ? { result: undefined } : { jobs: jobs.map((entry, index) => (index === at ? job : entry)), result: undefined };
    }),
    release: (jobIds) => change((jobs) => {
      const left = jobs.filter((entry) => !jobIds.includes(entry.jobId));
      return left.length === jobs.length ? { result: undefined } : { jobs: left, result: undefined };
    }),
    admitted: async (now) => (await read()).jobs.filter((entry) => entry.until > now),
  };
}
