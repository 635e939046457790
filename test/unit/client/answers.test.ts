import { describe, expect, it } from '@jest/globals';
import { certificateProblem, isPermanent, isRetried, remedy } from '../../../client/src/answers.js';
import { authorityAnswer } from '../../../client/src/token-failure.js';

describe('what the client makes of an answer', () => {
  it('retries rate limits, time-outs and the faults of what stands behind the service, not its own failure (500)', () => {
    expect([408, 429, 502, 503, 504].map(isRetried)).toEqual([true, true, true, true, true]);
    expect([200, 400, 401, 403, 404, 413, 500].map(isRetried)).toEqual([false, false, false, false, false, false, false]);
  });

  it('stops the pull on a refusal no other window could change, but not on a result too large for one window', () => {
    for (const [status, code] of [[400, 'INVALID_FILTER'], [401, 'INVALID_API_KEY'], [403, 'MISSING_ROLE'], [404, 'NOT_FOUND'], [405, 'METHOD_NOT_ALLOWED'], [406, 'NOT_ACCEPTABLE'], [413, 'REQUEST_TOO_LARGE'], [415, 'UNSUPPORTED_MEDIA_TYPE'], [401, 'no problem document']] as const) {
      expect({ status, code, permanent: isPermanent(status, code) }).toEqual({ status, code, permanent: true });
    }
    for (const [status, code] of [[413, 'RESULT_TOO_LARGE'], [429, 'RATE_LIMITED'], [503, 'EXPORTS_BUSY'], [500, 'INTERNAL'], [200, '']] as const) {
      expect({ status, code, permanent: isPermanent(status, code) }).toEqual({ status, code, permanent: false });
    }
  });

  it('names the setting to change for each credential the service refuses', () => {
    expect(remedy(401, 'INVALID_API_KEY')).toMatch(/SUMMARY_API_KEY/);
    expect(remedy(401, 'INVALID_SUBSCRIPTION_KEY')).toMatch(/SUMMARY_SUBSCRIPTION_KEY/);
    expect(remedy(404, 'no problem document')).toMatch(/SUMMARY_BASE_URL/);
    expect(remedy(418, 'SOMETHING_NEW')).toMatch(/whatever the window/);
  });
});

describe('certificate problems', () => {
  it('name the clock for a certificate not yet valid or expired, and the CA file otherwise', () => {
    const now = new Date('2026-11-27T01:00:00Z');
    expect(certificateProblem('CERT_NOT_YET_VALID', "the service's certificate", now)).toBe("the service's certificate is not valid yet by this machine's clock (CERT_NOT_YET_VALID; the clock reads 2026-11-27T01:00:00.000Z): check the clock and its time zone, then the certificate's dates");
    expect(certificateProblem('CERT_HAS_EXPIRED', 'x', now)).toMatch(/expired by this machine's clock/);
    expect(certificateProblem('CERT_NOT_YET_VALID', 'x', now)).not.toMatch(/SUMMARY_CA_FILE/);
    expect(certificateProblem('SELF_SIGNED_CERT_IN_CHAIN', 'x', now)).toMatch(/not trusted here \(SELF_SIGNED_CERT_IN_CHAIN\): set SUMMARY_CA_FILE/);
  });
});

describe("the authority's answer in a credential's message", () => {
  it('keeps the code and description, not MSAL\'s frame of empty fields or the trace lines', () => {
    const framed = 'ClientSecretCredential authentication failed: invalid_client: Error(s): Not Available - Timestamp: Not Available - Description: AADSTS7000215: Invalid client secret provided.\r\nTrace ID: 1\r\nCorrelation ID: 2 - Correlation ID: Not Available - Trace ID: Not Available';
    expect(authorityAnswer(framed)).toBe('invalid_client: AADSTS7000215: Invalid client secret provided.');
    expect(authorityAnswer('invalid_client: Error(s): Not Available - Timestamp: Not Available - Description: Not Available - Correlation ID: Not Available - Trace ID: Not Available')).toBe('invalid_client');
    expect(authorityAnswer('something else entirely')).toBe('something else entirely');
  });
});
