import { describe, expect, it } from '@jest/globals';
import { admitJob, type AdmittedJob } from '../../../shared/admission/job-admission.js';

const caps = { jobsPerClient: 2, jobsPerTenant: 3, windowsPerTenant: 40, jobsPerService: 5, windowsPerService: 60 };
const NOW = 1_000_000;
let next = 0;
const job = (tenant: string, clientId: string, windows = 1, until = NOW + 1000): AdmittedJob => ({ jobId: `job${next++}`, tenant, clientId, windows, until });

/** Admits each in turn; the refusals' scope and count, or 'ok'. */
function admitAll(jobs: readonly AdmittedJob[], ledger: AdmittedJob[] = []): string[] {
  return jobs.map((candidate) => {
    const decided = admitJob(ledger, candidate, caps, NOW);
    if ('refusal' in decided) return `${decided.refusal.scope} ${decided.refusal.counting}`;
    ledger.splice(0, ledger.length, ...decided.admitted);
    return 'ok';
  });
}

describe('job admission', () => {
  it('refuses a client past its jobs, then its tenant past its jobs, whichever client asks', () => {
    expect(admitAll([job('a', 'a1'), job('a', 'a1'), job('a', 'a1'), job('a', 'a2'), job('a', 'a3')])).toEqual(['ok', 'ok', 'client jobs', 'ok', 'tenant jobs']);
  });

  it('refuses a tenant past its queued windows, counting the windows the job asks for', () => {
    expect(admitAll([job('a', 'a1', 30), job('a', 'a2', 11), job('a', 'a2', 10)])).toEqual(['ok', 'tenant windows', 'ok']);
  });

  it('refuses past the service\'s jobs and windows, whatever the tenant', () => {
    expect(admitAll([job('a', 'a1'), job('b', 'b1'), job('c', 'c1'), job('d', 'd1'), job('e', 'e1'), job('f', 'f1')])).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'service jobs']);
    expect(admitAll([job('a', 'a1', 40), job('b', 'b1', 21)])).toEqual(['ok', 'service windows']);
  });

  it('no longer counts a job past its end, and counts a job admitted again once', () => {
    const ledger = [job('a', 'a1', 1, NOW - 1), job('a', 'a1', 1, NOW)];
    const again = job('a', 'a1');
    expect(admitAll([job('a', 'a1'), again], ledger)).toEqual(['ok', 'ok']);
    expect(admitJob(ledger, again, caps, NOW)).toEqual({ admitted: ledger });
  });
});
