import { describe, expect, it } from '@jest/globals';
import { clientSettings } from '../../dev/client-settings.js';
import { call, identities, stack, type Envelope } from '../support/stack.js';
import { leakedSecrets, runChild } from '../support/run-child.js';

// The README's "Your own tools" section, run as it is written: docs/examples/azure-identity.mjs
// (@azure/identity's ClientSecretCredential with the local authority host, instance discovery off)
// gets a token from the https identity provider and calls the service. Python's msal runs the same
// way in `npm run test:system` (test/system), because it needs Debian's python3-msal.
const settings = clientSettings({ ...stack, identities });
const example = 'docs/examples/azure-identity.mjs';

async function tenantCount(): Promise<number> {
  return ((await (await call('contracts', { body: { pageSize: 1 } })).json()) as Envelope).pagination.totalRecords;
}

describe('@azure/identity against the local identity provider', () => {
  it('gets a token the service accepts when the local CA is trusted (NODE_EXTRA_CA_CERTS)', async () => {
    const result = await runChild(process.execPath, [example], { ...settings, NODE_EXTRA_CA_CERTS: stack.caFile });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(new RegExp(`^${await tenantCount()} contracts in the tenant; the first is CT-CONTOSO-\\d+\\n$`));
    expect(result.code).toBe(0);
    expect(leakedSecrets(result.stdout + result.stderr, settings)).toEqual([]);
  });

  it('refuses the identity provider when its CA is not trusted: the TLS is real', async () => {
    const result = await runChild(process.execPath, [example], settings);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    // MSAL reports a TLS failure while reading the metadata as an unresolved authority.
    expect(result.stderr).toMatch(/^no token: .*(endpoints_resolution_error|certificate)/);
    expect(leakedSecrets(result.stdout + result.stderr, settings)).toEqual([]);
  });

  it('gets no token for a wrong secret, and says so without printing it', async () => {
    const wrong = { ...settings, SUMMARY_CLIENT_SECRET: 'dev-only-wrong-secret' };
    const result = await runChild(process.execPath, [example], { ...wrong, NODE_EXTRA_CA_CERTS: stack.caFile });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/^no token: .*invalid_client/);
    expect(result.stderr).not.toContain('dev-only-wrong-secret');
  });
});
