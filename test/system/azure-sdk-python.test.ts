import { describe, expect, it } from '@jest/globals';
import { clientSettings } from '../../dev/client-settings.js';
import { identities, stack } from '../support/stack.js';
import { leakedSecrets, runChild } from '../support/run-child.js';
import { storeRecords } from '../support/store-records.js';

// docs/recipes/azure_sdk_poller.py, run as written with Debian's python3-azure (azure-core's
// PipelineClient with BearerTokenCredentialPolicy, azure-identity's ClientSecretCredential and
// azure-core's LROPoller), which .ci/run installs. SYSTEM_PYTHON names another interpreter.
const python = process.env.SYSTEM_PYTHON ?? '/usr/bin/python3';
const settings = clientSettings({ ...stack, identities });
const recipe = 'docs/recipes/azure_sdk_poller.py';

describe('the Azure SDK poller recipe (Python)', () => {
  it('has azure-core and azure-identity to test with (apt-get install python3-azure), rather than skipping', async () => {
    const probe = await runChild(python, ['-c', 'import azure.core, azure.identity; print(azure.core.__version__)'], {});
    expect({ code: probe.code, stderr: probe.stderr.split('\n').at(-2) ?? '' }).toEqual({ code: 0, stderr: '' });
  });

  it('drives an invoices export job to its manifest with LROPoller: every window, both tables', async () => {
    const result = await runChild(python, [recipe, 'invoices', '2025-01-01', '2025-06-30'], { ...settings, REQUESTS_CA_BUNDLE: stack.caFile }, 120_000);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const manifest = JSON.parse(result.stdout) as { status: string; windows: { label: string; records: number; files: { table: string }[] }[] };
    expect(manifest.status).toBe('completed');
    expect(manifest.windows.map((window) => window.label)).toEqual(['2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06']);
    const stored = (await storeRecords('invoices', 'contoso')).filter((record) => String(record.createdDate) >= '2025-01' && String(record.createdDate) < '2025-07');
    expect(manifest.windows.reduce((total, window) => total + window.records, 0)).toBe(stored.length);
    expect(new Set(manifest.windows.flatMap((window) => window.files.map((file) => file.table)))).toEqual(new Set(['invoices', 'invoice_tables']));
    expect(leakedSecrets(result.stdout + result.stderr, settings)).toEqual([]);
  });

  it('is refused by azure-core\'s own bearer policy over plain http', async () => {
    const result = await runChild(python, [recipe, 'contracts', '2025-01-01', '2025-01-31'], { ...settings, SUMMARY_BASE_URL: stack.baseUrl.replace(/^https:/, 'http:'), REQUESTS_CA_BUNDLE: stack.caFile });
    expect(result.stderr).toMatch(/the job did not complete: Bearer token authentication is not permitted for non-TLS protected \(non-https\) URLs\./);
    expect(result.code).not.toBe(0);
  });
});
