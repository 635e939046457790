import { buildAllowlist } from '../shared/access/allowlist.js';
import { loadConfig } from '../shared/config/load-config.js';
import { parseFilters } from '../shared/filters/parse-filters.js';
import type { ResourceDefinition } from '../shared/model/resource-definition.js';
import type { ApiModel } from './api-model.js';

/** The settings defaults the document states, as `loadConfig` applies them. */
export interface SettingDefaults {
  readonly maxPageSize: number;
  readonly maxResultWindow: number;
  readonly parquetMaxBytes: number;
  /** Origin of the identity provider (the token endpoint is under it). */
  readonly authorityHost: string;
}

/** The defaults and limits of one operation, as the service applies them. */
export interface ServiceDefaults extends SettingDefaults {
  readonly page: number;
  readonly pageSize: number;
  readonly orderBy: string;
  readonly order: 'asc' | 'desc';
}

/** Only the settings without a default, with obviously fake values: every other setting takes its default. */
const REQUIRED_ONLY = {
  AUTH_TENANT_ID: '00000000-0000-4000-8000-000000000000',
  AUTH_APP_ID: '00000000-0000-4000-8000-000000000001',
  API_KEYS: 'placeholder-key-for-defaults',
  CLIENT_REGISTRY: '{}',
  COSMOS_ENDPOINT: 'https://cosmos.invalid',
};

/** What `loadConfig` produces when only the required settings are given. */
export function settingDefaults(): SettingDefaults {
  const config = loadConfig(REQUIRED_ONLY);
  return {
    maxPageSize: config.maxPageSize,
    maxResultWindow: config.maxResultWindow,
    parquetMaxBytes: config.parquetMaxBytes,
    authorityHost: new URL(config.auth.issuer).origin,
  };
}

/**
 * Asks the code itself for its defaults rather than restating them: the settings defaults are what
 * `loadConfig` produces when a setting is absent, the filter defaults what `parseFilters` produces
 * for an empty request. So the document cannot drift from a changed default.
 */
export function serviceDefaults(model: ApiModel, resource: ResourceDefinition): ServiceDefaults {
  const settings = settingDefaults();
  const view = buildAllowlist(model.datapoints, model.resources).view(resource, Object.keys(model.datapoints));
  const empty = parseFilters({ body: undefined, query: new URLSearchParams(), view, maxPageSize: settings.maxPageSize });
  return { page: empty.page, pageSize: empty.pageSize, orderBy: empty.orderBy, order: empty.order, ...settings };
}
