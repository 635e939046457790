/**
 * Which export jobs may start: caps on the jobs running and the windows they queue, per client
 * application, per data tenant and for the whole service. A job counts from the moment its
 * kick-off is admitted (not once it is accepted, after its checks), and admission is one atomic
 * step over the one ledger of admitted jobs (cosmos-admission-ledger.ts), so kick-offs that race
 * cannot pass a cap together.
 */

import type { JobCaps } from '../config/load-config.js';

export type { JobCaps };

/** A job in the ledger of admitted jobs. */
export interface AdmittedJob {
  readonly jobId: string;
  readonly tenant: string;
  readonly clientId: string;
  /** Windows it queues: every window of its range at admission, those left to export once accepted. */
  readonly windows: number;
  /**
   * When it stops counting (ms since the epoch) if nothing releases it first: the end of its
   * kick-off's time at admission, its expiry once accepted.
   */
  readonly until: number;
}


/** Why a job was not admitted: the cap it would pass. */
export interface Refusal {
  readonly scope: 'client' | 'tenant' | 'service';
  readonly counting: 'jobs' | 'windows';
  readonly limit: number;
  /** What runs now in that scope. */
  readonly running: number;
}

/** The ledger of admitted jobs, kept by the job store. */
export interface AdmissionLedger {
  /** Adds `job` unless a cap refuses it, atomically with every other admission: the refusal, or undefined once admitted. */
  admit(job: AdmittedJob, caps: JobCaps, now: number): Promise<Refusal | undefined>;
  /** Replaces an admitted job's count and end (its kick-off accepted it). */
  update(job: AdmittedJob): Promise<void>;
  /** Removes jobs (done, cancelled, never accepted); an id the ledger does not hold is no error. */
  release(jobIds: readonly string[]): Promise<void>;
  /** The jobs that count at `now`. */
  admitted(now: number): Promise<AdmittedJob[]>;
}

/**
 * The ledger after admitting `job` into the jobs that count at `now`, or the first cap it would
 * pass: the client's jobs, the tenant's jobs and windows, the service's jobs and windows.
 *
 * @example
 * admitJob([], { jobId, tenant: 'contoso', clientId, windows: 12, until }, caps, Date.now()); // { admitted: [that job] }
 */
export function admitJob(ledger: readonly AdmittedJob[], job: AdmittedJob, caps: JobCaps, now: number): { readonly admitted: AdmittedJob[] } | { readonly refusal: Refusal } {
  const live = ledger.filter((entry) => entry.until > now && entry.jobId !== job.jobId);
  const ofTenant = live.filter((entry) => entry.tenant === job.tenant);
  const checks: [Refusal['scope'], Refusal['counting'], number, readonly AdmittedJob[]][] = [
    ['client', 'jobs', caps.jobsPerClient, ofTenant.filter((entry) => entry.clientId === job.clientId)],
    ['tenant', 'jobs', caps.jobsPerTenant, ofTenant],
    ['tenant', 'windows', caps.windowsPerTenant, ofTenant],
    ['service', 'jobs', caps.jobsPerService, live],
    ['service', 'windows', caps.windowsPerService, live],
  ];
  for (const [scope, counting, limit, entries] of checks) {
    const running = counting === 'jobs' ? entries.length : entries.reduce((total, entry) => total + entry.windows, 0);
    const asked = counting === 'jobs' ? 1 : job.windows;
    if (running + asked > limit) return { refusal: { scope, counting, limit, running } };
  }
  return { admitted: [...live, job] };
}
