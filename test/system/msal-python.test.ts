import { describe, expect, it } from '@jest/globals';
import { clientSettings } from '../../dev/client-settings.js';
import { call, identities, stack, type Envelope } from '../support/stack.js';
import { leakedSecrets, runChild } from '../support/run-child.js';

// The README's Python example (docs/examples/msal_token.py), run as written with Debian's
// python3-msal: `npm run test:system` (which .ci/run calls after apt-get install python3-msal).
// Debian installs msal for the system interpreter; SYSTEM_PYTHON names another one.
const python = process.env.SYSTEM_PYTHON ?? '/usr/bin/python3';
const settings = clientSettings({ ...stack, identities });
const example = 'docs/examples/msal_token.py';

describe('Python msal against the local identity provider', () => {
  it('has msal to test with (apt-get install python3-msal), rather than skipping', async () => {
    const probe = await runChild(python, ['-c', 'import msal, requests; print(msal.__version__)'], {});
    expect({ code: probe.code, stderr: probe.stderr.split('\n').at(-2) ?? '' }).toEqual({ code: 0, stderr: '' });
  });

  it('gets a token the service accepts when the local CA is trusted (REQUESTS_CA_BUNDLE)', async () => {
    const expected = ((await (await call('contracts', { body: { pageSize: 1 } })).json()) as Envelope).pagination.totalRecords;
    const result = await runChild(python, [example], { ...settings, REQUESTS_CA_BUNDLE: stack.caFile });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(new RegExp(`^${expected} contracts in the tenant; the first is CT-CONTOSO-\\d+\\n$`));
    expect(result.code).toBe(0);
    expect(leakedSecrets(result.stdout + result.stderr, settings)).toEqual([]);
  });

  it('refuses the identity provider when its CA is not trusted: the TLS is real', async () => {
    const result = await runChild(python, [example], settings);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/CERTIFICATE_VERIFY_FAILED/);
    expect(leakedSecrets(result.stdout + result.stderr, settings)).toEqual([]);
  });
});
