import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Problem } from '../support/stack.js';
import { cosmosStoresOf } from '../../shared/app/create-summary-deps.js';
import { jobCall, kickOff } from '../support/export-jobs.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';

// Kick-offs that race: the caps hold from the moment a kick-off is admitted, in one atomic step
// over the ledger of admitted jobs (job-admission.ts), not once a job is accepted after its checks.
const CLIENTS = ['contoso-full', 'contoso-basic', 'contoso-financials', 'contoso-suppliers', 'contoso-drafts'];
const JOBS_PER_CLIENT = 2;
const JOBS_PER_TENANT = 4;
// 36 months each, with made-up ETags: every one is checked before its job is accepted.
const made = Object.fromEntries(Array.from({ length: 36 }, (_, index) => [`${2023 + Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`, 'W/"made-up"']));
const LONG = { createdFrom: '2023-01-01', createdTo: '2025-12-31', ifNoneMatch: made };
let own: OwnTenant;

beforeAll(async () => {
  // No workers: every accepted job stays running, so it counts until it is cancelled.
  own = await startOwnTenant(10, { clients: CLIENTS, service: { exports: { triggers: false } }, settings: { EXPORT_JOBS_PER_CLIENT: String(JOBS_PER_CLIENT), EXPORT_JOBS_PER_TENANT: String(JOBS_PER_TENANT), EXPORT_WINDOWS_PER_TENANT: String(JOBS_PER_TENANT * 36) } });
});

afterAll(async () => {
  await own?.stop();
});

/** Kicks off every (client) at once; resolves with the answers, as [client, status, code, Location]. */
async function race(names: readonly string[]): Promise<[string, number, string | undefined, string | null][]> {
  return Promise.all(names.map(async (name) => {
    const response = await kickOff(own.service, name, 'contracts', LONG);
    const body = (await response.json()) as Problem;
    if (response.status === 429) expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    return [name, response.status, response.status === 202 ? undefined : body.code, response.headers.get('location')] as [string, number, string | undefined, string | null];
  }));
}

async function cancelAll(answers: readonly [string, number, string | undefined, string | null][]): Promise<void> {
  for (const [name, status, , location] of answers) {
    if (status === 202) expect((await jobCall(own.service, name, location!, 'DELETE')).status).toBe(202);
  }
}

describe('export job admission under concurrent kick-offs', () => {
  it('accepts exactly the client\'s cap (2) of twenty kick-offs at once from one client; the others are 429 with Retry-After', async () => {
    const answers = await race(Array.from({ length: 20 }, () => 'contoso-full'));
    expect(answers.filter(([, status]) => status === 202)).toHaveLength(JOBS_PER_CLIENT);
    expect(answers.filter(([, status, code]) => status === 429 && code === 'TOO_MANY_EXPORT_JOBS')).toHaveLength(20 - JOBS_PER_CLIENT);
    await cancelAll(answers);
  }, 120_000);

  it('accepts exactly the tenant\'s cap (4) of twenty kick-offs at once from five clients of one tenant, none past its own', async () => {
    const answers = await race(CLIENTS.flatMap((name) => [name, name, name, name]));
    const accepted = answers.filter(([, status]) => status === 202);
    expect(accepted).toHaveLength(JOBS_PER_TENANT);
    for (const name of CLIENTS) expect(accepted.filter(([client]) => client === name).length).toBeLessThanOrEqual(JOBS_PER_CLIENT);
    expect(answers.filter(([, status, code]) => status === 429 && code === 'TOO_MANY_EXPORT_JOBS')).toHaveLength(20 - JOBS_PER_TENANT);
    // The ledger holds exactly the accepted jobs, each counting the windows it queued (all 36: every ETag was made up).
    const ledger = (await cosmosStoresOf(own.service.deps.config, own.service.deps.log).jobs.admissions.admitted(Date.now())).filter((entry) => entry.tenant === own.tenant);
    expect(ledger.map((entry) => entry.windows)).toEqual(accepted.map(() => 36));
    await cancelAll(answers);
    // Cancelled jobs leave the ledger: the next kick-off is admitted.
    const again = await race(['contoso-basic']);
    expect(again.map(([, status]) => status)).toEqual([202]);
    await cancelAll(again);
  }, 120_000);

  it('names the cap a refused kick-off would pass, and how many run', async () => {
    const answers = await race(['contoso-full', 'contoso-basic', 'contoso-financials', 'contoso-suppliers']);
    expect(answers.filter(([, status]) => status === 202)).toHaveLength(4);
    const fifth = await kickOff(own.service, 'contoso-drafts', 'contracts', LONG);
    expect(fifth.status).toBe(429);
    expect(((await fifth.json()) as Problem).detail).toMatch(/your data tenant has 4 export jobs running, and may have at most 4/);
    await cancelAll(answers);
  }, 120_000);
});
