/**
 * The client's settings, from the environment: where the service is, how to get a token, the two
 * keys. Secrets stay in this object; nothing here is ever printed.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import tls from 'node:tls';
import { DEFAULT_DEADLINE_MS } from './retry.js';
import type * as Identity from '@azure/identity';
import type { TokenCredential } from '@azure/identity';
import { SummaryClientError } from './client-error.js';

// @azure/identity's CommonJS build (the package ships both, from the same source): Node loads it
// in about half the time of the ES module build (0.29 s against 0.53 s of CPU, measured), and
// every run of the CLI loads it once.
const { ClientSecretCredential, DefaultAzureCredential } = createRequire(import.meta.url)('@azure/identity') as typeof Identity;

export interface ClientSettings {
  readonly baseUrl: string;
  /** Whose credentials: the client id, or `default credential` (kept in a pull's manifest). */
  readonly client: string;
  readonly scope: string;
  readonly subscriptionKey: string;
  readonly apiKey: string;
  readonly credential: TokenCredential;
  /** With a client secret: where tokens come from (to say why none came). */
  readonly authority?: { readonly host: string; readonly tenantId: string };
  /** The largest export body taken (SUMMARY_MAX_EXPORT_BYTES); a window past it is halved. */
  readonly maxExportBytes: number;
  /** The most one call may take, its retries and waits included (SUMMARY_DEADLINE_SECONDS). */
  readonly deadlineMs: number;
  /** A CA to trust besides the system's (SUMMARY_CA_FILE): see trustCaFile. */
  readonly caFile?: string;
}

/**
 * The default: the largest export the service can be configured for (PARQUET_MAX_BYTES up to
 * 2 GiB). A zip's entries are capped by it too.
 */
export const DEFAULT_MAX_EXPORT_BYTES = 2 * 1024 ** 3;

/** A setting that is missing or wrong, with what to set. */
export class SettingsError extends SummaryClientError {
  readonly code = 'SETTINGS_INVALID';
  override readonly name = 'SettingsError';
}

/** Entra's public cloud: the default authority host. */
export const ENTRA = 'https://login.microsoftonline.com';

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
  need('SUMMARY_BASE_URL');
  const baseUrl = pullSource(env).service;
  const scope = need('SUMMARY_SCOPE');
  const subscriptionKey = need('SUMMARY_SUBSCRIPTION_KEY');
  const apiKey = need('SUMMARY_API_KEY');
  const secret = env.SUMMARY_CLIENT_SECRET?.trim();
  let credential: TokenCredential;
  let tokenAuthority: ClientSettings['authority'];
  if (secret) {
    const clientId = need('SUMMARY_CLIENT_ID');
    const { authorityHost, tenantId } = authority(env, need);
    if (missing.length > 0) throw missingError(missing);
    tokenAuthority = { host: authorityHost, tenantId };
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
  const client = pullSource(env).client;
  const caFile = env.SUMMARY_CA_FILE?.trim() || undefined;
  return {
    baseUrl, client, scope, subscriptionKey, apiKey, credential, maxExportBytes: maxExportBytes(env.SUMMARY_MAX_EXPORT_BYTES),
    deadlineMs: deadlineMs(env.SUMMARY_DEADLINE_SECONDS),
    ...(tokenAuthority ? { authority: tokenAuthority } : {}), ...(caFile ? { caFile } : {}),
  };
}

function maxExportBytes(value: string | undefined): number {
  if (!value?.trim()) return DEFAULT_MAX_EXPORT_BYTES;
  const bytes = Number(value);
  if (!Number.isSafeInteger(bytes) || bytes < 1024) throw new SettingsError('SUMMARY_MAX_EXPORT_BYTES must be a whole number of bytes, at least 1024 (default 2147483648, 2 GiB)');
  return bytes;
}

function deadlineMs(value: string | undefined): number {
  if (!value?.trim()) return DEFAULT_DEADLINE_MS;
  const seconds = Number(value);
  if (!(seconds > 0 && seconds <= 86_400)) throw new SettingsError('SUMMARY_DEADLINE_SECONDS must be a number of seconds, more than 0 and at most 86400 (default 900: one call, its retries included)');
  return Math.round(seconds * 1000);
}

/**
 * Trusts the CA certificates in `file` (PEM) for every TLS connection of this process, besides the
 * ones it trusts already: the token request and the service calls alike. For a local identity
 * provider or a gateway with a private CA, instead of NODE_EXTRA_CA_CERTS for a whole shell.
 */
export function trustCaFile(file: string): void {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SettingsError(`SUMMARY_CA_FILE ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const certificates = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!certificates) throw new SettingsError(`SUMMARY_CA_FILE ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  if (typeof tls.setDefaultCACertificates !== 'function') throw new SettingsError(`SUMMARY_CA_FILE needs Node 22.19 or newer (this is ${process.version}); set NODE_EXTRA_CA_CERTS=${file} instead`);
  try {
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), ...certificates]);
  } catch (error) {
    throw new SettingsError(`SUMMARY_CA_FILE ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Whom a pull's files come from, as its manifest keeps it: the service's base URL and the client
 * id (`default credential` without a secret or a managed identity's id).
 */
export function pullSource(env: NodeJS.ProcessEnv): { service: string; client: string } {
  return { service: (env.SUMMARY_BASE_URL?.trim() ?? '').replace(/\/+$/, ''), client: env.SUMMARY_CLIENT_ID?.trim() || 'default credential' };
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
