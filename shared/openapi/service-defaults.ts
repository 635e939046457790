import { buildAllowlist } from '../access/allowlist.js';
import { DATAPOINTS } from '../access/datapoints.js';
import { loadConfig } from '../config/load-config.js';
import { parseFilters } from '../filters/parse-filters.js';
import type { Resource } from '../model/resources.js';

/** The defaults and limits the document states, as the service applies them. */
export interface ServiceDefaults {
  readonly page: number;
  readonly pageSize: number;
  readonly orderBy: string;
  readonly order: 'asc' | 'desc';
  readonly maxPageSize: number;
  readonly maxResultWindow: number;
  readonly parquetMaxBytes: number;
  /** Origin of the identity provider (the token endpoint is under it). */
  readonly authorityHost: string;
}

/** Only the settings without a default, with obviously fake values: every other setting takes its default. */
const REQUIRED_ONLY = {
  AUTH_TENANT_ID: '00000000-0000-4000-8000-000000000000',
  AUTH_APP_ID: '00000000-0000-4000-8000-000000000001',
  API_KEYS: 'placeholder-key-for-defaults',
  CLIENT_REGISTRY: '{}',
  COSMOS_ENDPOINT: 'https://cosmos.invalid',
};

/**
 * Asks the code itself for its defaults rather than restating them: the settings defaults are what
 * `loadConfig` produces when a setting is absent, the filter defaults what `parseFilters` produces
 * for an empty request. So the document cannot drift from a changed default.
 */
export function serviceDefaults(resource: Resource): ServiceDefaults {
  const config = loadConfig(REQUIRED_ONLY);
  const view = buildAllowlist(DATAPOINTS).view(resource, Object.keys(DATAPOINTS));
  const empty = parseFilters({ body: undefined, query: new URLSearchParams(), view, maxPageSize: config.maxPageSize });
  return {
    page: empty.page,
    pageSize: empty.pageSize,
    orderBy: empty.orderBy,
    order: empty.order,
    maxPageSize: config.maxPageSize,
    maxResultWindow: config.maxResultWindow,
    parquetMaxBytes: config.parquetMaxBytes,
    authorityHost: new URL(config.auth.issuer).origin,
  };
}
