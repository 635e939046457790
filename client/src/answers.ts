/**
 * What the client makes of a refusal: which answers can succeed when asked again (retried), which
 * can never succeed for any window of this pull (the pull stops at once), and what to change.
 */

/**
 * 408, 429 (rate limit), 502, 503 (exports busy, store or identity provider unavailable) and 504:
 * worth another try. 500 is not: the service failed on this very request, and asking again fails
 * the same way.
 */
export function isRetried(status: number): boolean {
  return RETRIED_STATUSES.includes(status);
}

/** The statuses asked again (the Python loader's RETRIED_STATUSES, held equal by a test). */
export const RETRIED_STATUSES: readonly number[] = [408, 429, 502, 503, 504];

/**
 * Every other 4xx says the request itself is wrong (filters, credentials, roles, the base URL, the
 * media types): the next window would be refused the same. 413 RESULT_TOO_LARGE is the one that
 * depends on the window (it is halved); 413 REQUEST_TOO_LARGE is the request's own.
 */
export function isPermanent(status: number, code: string): boolean {
  if (status < 400 || status >= 500 || isRetried(status)) return false;
  return !(status === 413 && code === 'RESULT_TOO_LARGE');
}

/** TLS errors of a certificate this machine does not trust (Node's codes). */
export const UNTRUSTED_CERTIFICATE = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_UNTRUSTED', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_SIGNATURE_FAILURE',
]);

/** Certificate errors that depend on this machine's clock as much as on the certificate. */
const CLOCK_DEPENDENT = new Set(['CERT_NOT_YET_VALID', 'CERT_HAS_EXPIRED']);

/**
 * What to do about a certificate this machine refuses (`code`, one of UNTRUSTED_CERTIFICATE), said
 * of `whose` ("the service's certificate"): a certificate not yet valid or expired is as likely
 * this machine's clock (checked against its own time) as a CA to trust.
 */
export function certificateProblem(code: string, whose: string, now = new Date()): string {
  if (CLOCK_DEPENDENT.has(code)) {
    return `${whose} is ${code === 'CERT_NOT_YET_VALID' ? 'not valid yet' : 'expired'} by this machine's clock (${code}; the clock reads ${now.toISOString()}): check the clock and its time zone, then the certificate's dates`;
  }
  return `${whose} is not trusted here (${code}): set SUMMARY_CA_FILE to the CA that issued it`;
}

/**
 * Why a request that got no answer can never get one by trying again, or undefined when it might
 * (refused, reset, timed out): a redirect (never followed: the keys would go with it) or a
 * certificate this machine does not trust.
 */
export function permanentNetworkFailure(error: Error): string | undefined {
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  if (UNTRUSTED_CERTIFICATE.has(code)) return certificateProblem(code, "the service's certificate");
  if (/redirect/i.test(String(cause?.message ?? ''))) return 'the service answered with a redirect, which is never followed (the keys would go with it): set SUMMARY_BASE_URL to the URL the gateway serves';
  return undefined;
}

/** What to change for a permanent refusal, by the problem's `code` (docs/errors.md), else by status. */
export function remedy(status: number, code: string): string {
  const byCode: Record<string, string> = {
    INVALID_FILTER: 'fix the --filter value (the detail says which and why)',
    UNKNOWN_FILTER: 'fix the --filter name (names are case-sensitive)',
    INVALID_BODY: 'fix the --filter values',
    INVALID_JSON: 'update summary-client: it sent a body the service cannot read',
    INVALID_DATE: 'fix --from/--to',
    INVALID_ORDER_BY: 'update summary-client',
    INVALID_TOKEN: 'check SUMMARY_SCOPE (api://<APP_ID>/.default of this service) and SUMMARY_TENANT_ID',
    INVALID_API_KEY: 'check SUMMARY_API_KEY (the backend key issued to you)',
    INVALID_SUBSCRIPTION_KEY: 'check SUMMARY_SUBSCRIPTION_KEY (your API Management subscription key)',
    MISSING_ROLE: 'your client application needs the Data.Read app role: ask your Entra administrator to grant it',
    CLIENT_NOT_REGISTERED: 'your client application is not registered with the service: ask the service owners to register SUMMARY_CLIENT_ID',
    NOT_FOUND: 'check SUMMARY_BASE_URL: the gateway base URL including the API path, without /v1',
    NOT_ACCEPTABLE: 'update summary-client: the service does not produce the format it asked for',
    UNSUPPORTED_MEDIA_TYPE: 'update summary-client: the service does not take the body it sent',
    REQUEST_TOO_LARGE: 'use fewer or shorter --filter values',
  };
  const byStatus: Record<number, string> = {
    400: 'fix the request the detail names',
    401: 'check SUMMARY_API_KEY, SUMMARY_SUBSCRIPTION_KEY and the token settings',
    403: 'ask the service owners for access',
    404: 'check SUMMARY_BASE_URL: the gateway base URL including the API path, without /v1',
    405: 'check SUMMARY_BASE_URL',
    406: 'update summary-client',
    415: 'update summary-client',
  };
  return byCode[code] ?? byStatus[status] ?? 'the service refuses this request whatever the window';
}
