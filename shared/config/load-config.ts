import * as z from 'zod';
import { isLoopbackUrl } from '../util/is-loopback-url.js';
import { deepFreeze } from '../util/deep-freeze.js';

const DATA_TENANT = /^[a-z0-9][a-z0-9-]{0,62}$/;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const flag = z.enum(['true', 'false']).transform((value) => value === 'true');
const positiveInt = (fallback: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback);

/** A URL that is https, or http only on a loopback host (the local stack). */
const serviceUrl = z.url().refine((value) => value.startsWith('https://') || isLoopbackUrl(value), {
  message: 'must be an https URL (plain http is allowed only on loopback)',
});

const settingsSchema = z.object({
  AUTH_AUTHORITY_HOST: serviceUrl.default('https://login.microsoftonline.com'),
  AUTH_TENANT_ID: z.string().regex(GUID, 'must be the identity tenant GUID'),
  AUTH_APP_ID: z.string().regex(GUID, 'must be the application (client) id GUID of this API'),
  AUTH_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  API_KEYS: z
    .string()
    .transform((value) => value.split(',').map((key) => key.trim()).filter((key) => key.length > 0))
    .pipe(z.array(z.string().min(16, 'every key must be at least 16 characters')).min(1, 'needs at least one key')),
  CLIENT_REGISTRY: z
    .string()
    .transform((value, ctx) => {
      try {
        return JSON.parse(value) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object of client id → data tenant' });
        return z.NEVER;
      }
    })
    .pipe(z.record(z.string().min(1), z.string().regex(DATA_TENANT, 'data tenants are lower-case names'))),
  COSMOS_ENDPOINT: serviceUrl,
  COSMOS_KEY: z.string().min(1).optional(),
  COSMOS_ALLOW_SELF_SIGNED_TLS: flag.default(false),
  STORE_TIMEOUT_MS: positiveInt(10_000, 120_000),
  MAX_PAGE_SIZE: positiveInt(1000, 10_000),
  MAX_RESULT_WINDOW: positiveInt(10_000, 1_000_000),
  PARQUET_MAX_BYTES: positiveInt(100 * 1024 * 1024, 2 * 1024 * 1024 * 1024),
  LOG_REQUESTS: flag.default(true),
  // Where callers reach this service (the gateway's base_url): next links are absolute on it.
  PUBLIC_BASE_URL: serviceUrl
    .refine((value) => {
      if (!URL.canParse(value) || /[?#]/.test(value)) return false;
      const url = new URL(value);
      return url.username === '' && url.password === '';
    }, { message: 'must be a base URL without query, fragment or credentials, e.g. https://gateway.example.com/summary' })
    // As the URL parser writes it (encoded where it must be), without a trailing slash.
    .transform((value) => new URL(value).href.replace(/\/+$/, ''))
    .optional(),
  // Export jobs (docs/api.md): the export storage account, as the Functions host's identity-based
  // connection EXPORTS_STORAGE reads it for the queue trigger. Absent: the service has no export operations.
  EXPORTS_STORAGE__blobServiceUri: serviceUrl.optional(),
  EXPORTS_STORAGE__queueServiceUri: serviceUrl.optional(),
  // Local only: who the service is to storage, from the local identity provider (Azure: the managed identity).
  EXPORTS_STORAGE__tenantId: z.string().regex(GUID, 'must be the identity tenant GUID').optional(),
  EXPORTS_STORAGE__clientId: z.string().regex(GUID, 'must be a client id GUID').optional(),
  EXPORTS_STORAGE__clientSecret: z.string().min(1).optional(),
  EXPORT_MAX_MONTHS: positiveInt(36, 120),
  // How long a delta token is answered (docs/api.md, "Deltas"); its state is kept a day longer (Bicep's lifecycle rule).
  DELTA_TOKEN_DAYS: positiveInt(30, 365),
  EXPORT_JOB_TTL_SECONDS: z.coerce.number().int().min(300).max(7 * 24 * 3600).default(24 * 3600),
  EXPORT_JOBS_PER_CLIENT: positiveInt(2, 20),
  EXPORT_JOBS_PER_TENANT: positiveInt(4, 100),
  EXPORT_WINDOWS_PER_TENANT: positiveInt(100, 10_000),
  EXPORT_JOBS_PER_SERVICE: positiveInt(100, 10_000),
  EXPORT_WINDOWS_PER_SERVICE: positiveInt(2000, 100_000),
  // Set by the platform in Azure: traces and metrics go to Application Insights when present.
  APPLICATIONINSIGHTS_CONNECTION_STRING: z.string().min(1).optional(),
}).superRefine((settings, ctx) => {
  if (settings.COSMOS_ALLOW_SELF_SIGNED_TLS && !isLoopbackUrl(settings.COSMOS_ENDPOINT)) {
    ctx.addIssue({ code: 'custom', path: ['COSMOS_ALLOW_SELF_SIGNED_TLS'], message: 'may be true only for a loopback COSMOS_ENDPOINT' });
  }
  const storage = [settings.EXPORTS_STORAGE__blobServiceUri, settings.EXPORTS_STORAGE__queueServiceUri];
  if (storage.some((value) => value === undefined) && storage.some((value) => value !== undefined)) {
    ctx.addIssue({ code: 'custom', path: ['EXPORTS_STORAGE__blobServiceUri'], message: 'EXPORTS_STORAGE__blobServiceUri and EXPORTS_STORAGE__queueServiceUri go together (the export storage account\'s blob and queue endpoints)' });
  }
  const identity = [settings.EXPORTS_STORAGE__tenantId, settings.EXPORTS_STORAGE__clientId, settings.EXPORTS_STORAGE__clientSecret];
  if (identity.some((value) => value === undefined) && identity.some((value) => value !== undefined)) {
    ctx.addIssue({ code: 'custom', path: ['EXPORTS_STORAGE__clientSecret'], message: 'EXPORTS_STORAGE__tenantId, __clientId and __clientSecret go together (a local identity; leave all three out in Azure)' });
  }
  // Each cap holds at least what the one below it lets in, and a tenant's windows one whole job: else a job could never start.
  const nested: [keyof typeof settings, number, string][] = [
    ['EXPORT_JOBS_PER_TENANT', settings.EXPORT_JOBS_PER_CLIENT, 'EXPORT_JOBS_PER_CLIENT'],
    ['EXPORT_JOBS_PER_SERVICE', settings.EXPORT_JOBS_PER_TENANT, 'EXPORT_JOBS_PER_TENANT'],
    ['EXPORT_WINDOWS_PER_TENANT', settings.EXPORT_MAX_MONTHS, 'EXPORT_MAX_MONTHS'],
    ['EXPORT_WINDOWS_PER_SERVICE', settings.EXPORT_WINDOWS_PER_TENANT, 'EXPORT_WINDOWS_PER_TENANT'],
  ];
  for (const [name, floor, below] of nested) {
    if ((settings[name] as number) < floor) ctx.addIssue({ code: 'custom', path: [name], message: `must be at least ${below} (${floor})` });
  }
  if (settings.MAX_PAGE_SIZE > settings.MAX_RESULT_WINDOW) {
    ctx.addIssue({ code: 'custom', path: ['MAX_PAGE_SIZE'], message: 'must not exceed MAX_RESULT_WINDOW' });
  }
});

/** The service's settings, validated and frozen. */
export interface Config {
  readonly auth: {
    readonly issuer: string;
    readonly jwksUri: string;
    readonly tenantId: string;
    readonly audiences: readonly string[];
    readonly clockToleranceSeconds: number;
  };
  readonly apiKeys: readonly string[];
  /** Client id (`azp`/`appid`) → data tenant. */
  readonly clientRegistry: Readonly<Record<string, string>>;
  readonly cosmos: {
    readonly endpoint: string;
    /** Absent in Azure: the managed identity is used. */
    readonly key: string | undefined;
    readonly allowSelfSignedTls: boolean;
  };
  readonly storeTimeoutMs: number;
  readonly maxPageSize: number;
  readonly maxResultWindow: number;
  /** Largest Parquet (or zip) body an export may send; past it the answer is 413 RESULT_TOO_LARGE. */
  readonly parquetMaxBytes: number;
  /**
   * The base URL callers reach the service at (the spec's base_url, without a trailing slash):
   * JSON pages link to their next page on it. Undefined: pages carry no links.
   */
  readonly publicBaseUrl: string | undefined;
  /** Whether the one-line-per-request log is written (faults are always logged). */
  readonly logRequests: boolean;
  /** Where traces and metrics go: Application Insights, or nowhere (undefined, the local default). */
  readonly telemetryConnectionString: string | undefined;
  /** Export jobs, where export storage is configured (else the service has no export operations). */
  readonly exports: ExportSettings | undefined;
}

/** The settings of export jobs. */
export interface ExportSettings {
  readonly blobServiceUri: string;
  readonly queueServiceUri: string;
  /** A client secret identity from the local identity provider; absent in Azure (the managed identity). */
  readonly identity: { readonly authorityHost: string; readonly tenantId: string; readonly clientId: string; readonly clientSecret: string } | undefined;
  /** The most calendar months one job's range may touch. */
  readonly maxMonths: number;
  /** How long a job, its files and their URLs last. */
  readonly jobTtlSeconds: number;
  /** How long a delta token is answered, in days (its state lives in the same storage). */
  readonly deltaTokenDays: number;
  /** Jobs running and windows queued per client, per tenant and for the service (past one, 429). */
  readonly caps: JobCaps;
}

/** A setting is missing or invalid; the message names it. Start-up stops on it. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The caps on export jobs (EXPORT_JOBS_PER_CLIENT, …): jobs running and windows queued per client, tenant and service (job-admission.ts). */
export interface JobCaps {
  readonly jobsPerClient: number;
  readonly jobsPerTenant: number;
  readonly windowsPerTenant: number;
  readonly jobsPerService: number;
  readonly windowsPerService: number;
}

/** Names of every setting `loadConfig` reads (kept in step with local.settings.example.json by a test). */
export const SETTING_NAMES: readonly string[] = Object.keys(settingsSchema.shape);

/**
 * What an absent setting means, for every setting that has a default, as `loadConfig` reads it
 * (numbers as numbers, flags as booleans). The templates and the OpenAPI document are checked
 * against these instead of restating them.
 */
export function settingDefaults(): Readonly<Record<string, unknown>> {
  // Worked out when asked (tools and tests ask), not when the function file loads: a parse per setting.
  defaults ??= Object.freeze(Object.fromEntries(
    Object.entries(settingsSchema.shape).flatMap(([name, schema]) => {
      const absent = (schema as z.ZodType).safeParse(undefined);
      return absent.success && absent.data !== undefined ? [[name, absent.data]] : [];
    }),
  ));
  return defaults;
}
let defaults: Readonly<Record<string, unknown>> | undefined;

/**
 * Reads every setting once, validates it and freezes the result. The only reader of the
 * environment: everything else receives the returned `Config`.
 *
 * @example
 * const config = loadConfig({ ...process.env, MAX_PAGE_SIZE: '500' });
 * config.maxPageSize; // 500; a wrong value throws, naming the setting and what it takes
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const raw = Object.fromEntries(SETTING_NAMES.map((name) => [name, emptyToUndefined(env[name])]));
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'settings'}: ${issue.message}`);
    throw new ConfigError(`Invalid settings — ${problems.join('; ')}`);
  }
  const s = parsed.data;
  const authority = `${s.AUTH_AUTHORITY_HOST.replace(/\/+$/, '')}/${s.AUTH_TENANT_ID}`;
  return deepFreeze({
    auth: {
      issuer: `${authority}/v2.0`,
      jwksUri: `${authority}/discovery/v2.0/keys`,
      tenantId: s.AUTH_TENANT_ID,
      audiences: [s.AUTH_APP_ID, `api://${s.AUTH_APP_ID}`],
      clockToleranceSeconds: s.AUTH_CLOCK_TOLERANCE_SECONDS,
    },
    apiKeys: s.API_KEYS,
    clientRegistry: s.CLIENT_REGISTRY,
    cosmos: { endpoint: s.COSMOS_ENDPOINT, key: s.COSMOS_KEY, allowSelfSignedTls: s.COSMOS_ALLOW_SELF_SIGNED_TLS },
    storeTimeoutMs: s.STORE_TIMEOUT_MS,
    maxPageSize: s.MAX_PAGE_SIZE,
    maxResultWindow: s.MAX_RESULT_WINDOW,
    parquetMaxBytes: s.PARQUET_MAX_BYTES,
    publicBaseUrl: s.PUBLIC_BASE_URL,
    logRequests: s.LOG_REQUESTS,
    telemetryConnectionString: s.APPLICATIONINSIGHTS_CONNECTION_STRING,
    exports: s.EXPORTS_STORAGE__blobServiceUri && s.EXPORTS_STORAGE__queueServiceUri ? {
      blobServiceUri: s.EXPORTS_STORAGE__blobServiceUri.replace(/\/+$/, ''),
      queueServiceUri: s.EXPORTS_STORAGE__queueServiceUri.replace(/\/+$/, ''),
      identity: s.EXPORTS_STORAGE__tenantId && s.EXPORTS_STORAGE__clientId && s.EXPORTS_STORAGE__clientSecret
        ? { authorityHost: s.AUTH_AUTHORITY_HOST.replace(/\/+$/, ''), tenantId: s.EXPORTS_STORAGE__tenantId, clientId: s.EXPORTS_STORAGE__clientId, clientSecret: s.EXPORTS_STORAGE__clientSecret }
        : undefined,
      maxMonths: s.EXPORT_MAX_MONTHS,
      jobTtlSeconds: s.EXPORT_JOB_TTL_SECONDS,
      deltaTokenDays: s.DELTA_TOKEN_DAYS,
      caps: {
        jobsPerClient: s.EXPORT_JOBS_PER_CLIENT,
        jobsPerTenant: s.EXPORT_JOBS_PER_TENANT,
        windowsPerTenant: s.EXPORT_WINDOWS_PER_TENANT,
        jobsPerService: s.EXPORT_JOBS_PER_SERVICE,
        windowsPerService: s.EXPORT_WINDOWS_PER_SERVICE,
      },
    } : undefined,
  });
}

function emptyToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
