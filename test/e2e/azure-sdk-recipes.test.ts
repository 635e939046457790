import { describe, expect, it } from '@jest/globals';
import { clientSettings } from '../../dev/client-settings.js';
import { identities, stack } from '../support/stack.js';
import { leakedSecrets, runChild } from '../support/run-child.js';
import { storeRecords } from '../support/store-records.js';

// docs/recipes/azure-sdk-poller.mjs, run as written: the Azure SDK's standard pipeline
// (@azure-rest/core-client, whose bearer policy sends tokens over https only) and its
// long-running-operation poller (@azure/core-lro) drive an export job to its manifest against the
// local stack, which is https as API Management is. The Python twin (azure-core's LROPoller) runs
// in `npm run test:system` (test/system/azure-sdk-python.test.ts): it needs Debian's python3-azure.
const settings = clientSettings({ ...stack, identities });
const recipe = 'docs/recipes/azure-sdk-poller.mjs';

interface Manifest {
  readonly status: string;
  readonly windows: readonly { readonly label: string; readonly status: string; readonly records: number }[];
}

describe('the Azure SDK poller recipe (Node)', () => {
  it('drives a year\'s export job to its manifest: twelve windows holding the year\'s contracts', async () => {
    const result = await runChild(process.execPath, [recipe, 'contracts', '2025-01-01', '2025-12-31'], { ...settings, NODE_EXTRA_CA_CERTS: stack.caFile }, 120_000);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const manifest = JSON.parse(result.stdout) as Manifest;
    expect(manifest.status).toBe('completed');
    expect(manifest.windows.map((window) => window.label)).toEqual(Array.from({ length: 12 }, (_, month) => `2025-${String(month + 1).padStart(2, '0')}`));
    const stored = (await storeRecords('contracts', 'contoso')).filter((record) => String(record.createdDate).startsWith('2025-'));
    expect(manifest.windows.reduce((total, window) => total + window.records, 0)).toBe(stored.length);
    expect(leakedSecrets(result.stdout + result.stderr, settings)).toEqual([]);
  });

  it('is refused by the SDK\'s own bearer policy over plain http: the reason the local stack is https', async () => {
    const plain = stack.baseUrl.replace(/^https:/, 'http:');
    const result = await runChild(process.execPath, [recipe, 'contracts', '2025-01-01', '2025-01-31'], { ...settings, SUMMARY_BASE_URL: plain, NODE_EXTRA_CA_CERTS: stack.caFile });
    expect(result.stderr).toMatch(/^the job did not complete: Bearer token authentication is not permitted for non-TLS protected \(non-https\) URLs\.\n$/);
    expect(result.code).toBe(2);
  });

  it('says what the service answered when it refuses the kick-off', async () => {
    const result = await runChild(process.execPath, [recipe, 'contracts', '2025-02-01', '2025-01-01'], { ...settings, NODE_EXTRA_CA_CERTS: stack.caFile });
    expect(result.stderr).toMatch(/^the job did not complete: the service answered 400 [A-Z_]+: .+/);
    expect(result.code).toBe(2);
    expect(leakedSecrets(result.stdout + result.stderr, settings)).toEqual([]);
  });
});
