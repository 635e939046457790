/**
 * Why no access token came, in words that say what to change. MSAL reports an untrusted
 * certificate, an unreachable authority and an unknown tenant alike (`endpoints_resolution_error`),
 * so the authority's OpenID metadata is asked once more, directly, and the failure told apart.
 */
import { certificateProblem, UNTRUSTED_CERTIFICATE } from './answers.js';
import type { ClientSettings } from './settings.js';
import { networkCause } from './retry.js';

/**
 * The authority's own answer in a credential's message, as the Python loader prints it: Entra's
 * error code and description, without MSAL's frame of empty fields ("Error(s): Not Available -
 * Timestamp: Not Available - ... Correlation ID: Not Available") and without the trace lines
 * Entra appends to a description. Other messages are returned as they are.
 */
export function authorityAnswer(message: string): string {
  const framed = /([a-z_]+): Error\(s\): [\s\S]*? - Description: ([\s\S]*?) - Correlation ID: /.exec(message);
  if (!framed) return message;
  const [, code, description] = framed;
  const first = description!.split(/\r?\n|\s+Trace ID:/)[0]!.trim();
  return first === '' || first === 'Not Available' ? code! : `${code}: ${first}`;
}

/** One sentence: what went wrong getting a token, and what to check. */
export async function explainTokenFailure(settings: Pick<ClientSettings, 'authority'>, said: string, fetchImpl: typeof fetch = fetch): Promise<string> {
  const message = authorityAnswer(said);
  const authority = settings.authority;
  if (!authority) return `no access token from the default Azure credential (${message})`;
  const metadata = `${authority.host}/${authority.tenantId}/v2.0/.well-known/openid-configuration`;
  let response: Response;
  try {
    response = await fetchImpl(metadata, { redirect: 'error', signal: AbortSignal.timeout(10_000) });
    await response.body?.cancel();
  } catch (error) {
    const code = String((error as { cause?: { code?: unknown } }).cause?.code ?? '');
    if (UNTRUSTED_CERTIFICATE.has(code)) {
      const problem = certificateProblem(code, `the certificate of the authority ${authority.host}`);
      return problem.includes('SUMMARY_CA_FILE') ? `${problem} (the local stack's is .local/ca.pem)` : problem;
    }
    const cause = error instanceof Error ? networkCause(error) : String(error);
    return `the authority ${authority.host} cannot be reached (${cause}): check SUMMARY_AUTHORITY_HOST or SUMMARY_TOKEN_URL and the network`;
  }
  if (response.status === 400 || response.status === 404) {
    return `the authority ${authority.host} does not know the tenant ${authority.tenantId}: check SUMMARY_TENANT_ID (or SUMMARY_TOKEN_URL)`;
  }
  if (!response.ok) return `the authority ${authority.host} answers ${response.status} (${message})`;
  return `the authority refused the client (${message}): check SUMMARY_CLIENT_ID, SUMMARY_CLIENT_SECRET and SUMMARY_SCOPE`;
}
