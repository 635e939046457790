/**
 * The client's settings, from the environment: where the service is, how to get a token, the two
 * keys. Secrets stay in this object; nothing here is ever printed.
 */
import { ClientSecretCredential, DefaultAzureCredential, type TokenCredential } from '@azure/identity';

export interface ClientSettings {
  readonly baseUrl: string;
  /** Whose credentials: the client id, or `default credential` (kept in a pull's manifest). */
  readonly client: string;
  readonly scope: string;
  readonly subscriptionKey: string;
  readonly apiKey: string;
  readonly credential: TokenCredential;
}

/** A setting that is missing or wrong, with what to set. */
export class SettingsError extends Error {}

const ENTRA = 'https://login.microsoftonline.com';

/**
 * Reads SUMMARY_* settings. Token: SUMMARY_CLIENT_ID + SUMMARY_CLIENT_SECRET as client credentials
 * at SUMMARY_TOKEN_URL, or at SUMMARY_AUTHORITY_HOST (default Entra's public cloud) +
 * SUMMARY_TENANT_ID; without a secret, any DefaultAzureCredential source (managed identity,
 * workload identity, Azure CLI, AZURE_* variables).
 */
export function readSettings(env: NodeJS.ProcessEnv = process.env): ClientSettings {
  const missing: string[] = [];
  const need = (name: string): string => {
    const value = env[name]?.trim();
    if (!value) missing.push(name);
    return value ?? '';
  };
  const baseUrl = need('SUMMARY_BASE_URL').replace(/\/+$/, '');
  const scope = need('SUMMARY_SCOPE');
  const subscriptionKey = need('SUMMARY_SUBSCRIPTION_KEY');
  const apiKey = need('SUMMARY_API_KEY');
  const secret = env.SUMMARY_CLIENT_SECRET?.trim();
  let credential: TokenCredential;
  if (secret) {
    const clientId = need('SUMMARY_CLIENT_ID');
    const { authorityHost, tenantId } = authority(env, need);
    if (missing.length > 0) throw missingError(missing);
    credential = new ClientSecretCredential(tenantId, clientId, secret, {
      authorityHost,
      // Instance discovery asks Entra's public cloud about the authority: only meaningful there.
      disableInstanceDiscovery: authorityHost !== ENTRA,
    });
  } else {
    if (missing.length > 0) throw missingError(missing);
    for (const name of ['SUMMARY_TOKEN_URL', 'SUMMARY_AUTHORITY_HOST']) {
      if (env[name]?.trim()) throw new SettingsError(`${name} is used with SUMMARY_CLIENT_SECRET only: set the secret, or unset ${name} to use a DefaultAzureCredential source`);
    }
    const tenantId = env.SUMMARY_TENANT_ID?.trim();
    credential = new DefaultAzureCredential({
      ...(tenantId ? { tenantId } : {}),
      ...(env.SUMMARY_CLIENT_ID?.trim() ? { managedIdentityClientId: env.SUMMARY_CLIENT_ID.trim() } : {}),
    });
  }
  checkBaseUrl(baseUrl);
  const client = secret ? env.SUMMARY_CLIENT_ID!.trim() : env.SUMMARY_CLIENT_ID?.trim() || 'default credential';
  return { baseUrl, client, scope, subscriptionKey, apiKey, credential };
}

/** https, or http on this machine only: the token and both keys go with every request. */
function checkBaseUrl(baseUrl: string): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new SettingsError('SUMMARY_BASE_URL must be a URL, for example https://<gateway>/summary');
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new SettingsError('SUMMARY_BASE_URL must be https (http only on this machine: 127.0.0.1, localhost, [::1]), for example https://<gateway>/summary');
  }
}

/** The authority host and tenant, from SUMMARY_TOKEN_URL or SUMMARY_AUTHORITY_HOST + SUMMARY_TENANT_ID. */
function authority(env: NodeJS.ProcessEnv, need: (name: string) => string): { authorityHost: string; tenantId: string } {
  const tokenUrl = env.SUMMARY_TOKEN_URL?.trim();
  if (tokenUrl) {
    const match = /^(https:\/\/[^/]+)\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(tokenUrl);
    if (!match) throw new SettingsError('SUMMARY_TOKEN_URL must be an Entra-shaped token endpoint, https://<host>/<TENANT_ID>/oauth2/v2.0/token');
    return { authorityHost: match[1]!, tenantId: match[2]! };
  }
  const authorityHost = (env.SUMMARY_AUTHORITY_HOST?.trim() || ENTRA).replace(/\/+$/, '');
  if (!authorityHost.startsWith('https://')) throw new SettingsError('SUMMARY_AUTHORITY_HOST must be an https URL (Entra and MSAL refuse any other)');
  return { authorityHost, tenantId: need('SUMMARY_TENANT_ID') };
}

function missingError(names: string[]): SettingsError {
  return new SettingsError(`set ${names.join(', ')} (see the client's README: summary-client --help)`);
}
