import { settingDefaults as configDefaults } from '../shared/config/load-config.js';
import { PAGE_DEFAULTS } from '../shared/model/operation-contract.js';
import type { ResourceDefinition } from '../shared/model/resource-definition.js';

/** The settings defaults the document states, as `loadConfig` applies them. */
export interface SettingDefaults {
  readonly maxPageSize: number;
  readonly maxResultWindow: number;
  readonly parquetMaxBytes: number;
  /** Origin of the identity provider (the token endpoint is under it). */
  readonly authorityHost: string;
  readonly exportMaxMonths: number;
  readonly exportJobsPerClient: number;
  readonly deltaTokenDays: number;
}

/** The defaults and limits of one operation, as the service applies them. */
export interface ServiceDefaults extends SettingDefaults {
  readonly page: number;
  readonly pageSize: number;
  readonly orderBy: string;
  readonly order: 'asc' | 'desc';
}

/** The settings' defaults, read where `loadConfig` has them (load-config's settingDefaults(), from its schema). */
export function settingDefaults(): SettingDefaults {
  const defaults = configDefaults();
  return {
    maxPageSize: defaults.MAX_PAGE_SIZE as number,
    maxResultWindow: defaults.MAX_RESULT_WINDOW as number,
    parquetMaxBytes: defaults.PARQUET_MAX_BYTES as number,
    authorityHost: new URL(defaults.AUTH_AUTHORITY_HOST as string).origin,
    exportMaxMonths: defaults.EXPORT_MAX_MONTHS as number,
    exportJobsPerClient: defaults.EXPORT_JOBS_PER_CLIENT as number,
    deltaTokenDays: defaults.DELTA_TOKEN_DAYS as number,
  };
}

/**
 * An operation's defaults, read where the service reads them: the settings' defaults, the page
 * defaults `parseFilters` applies (PAGE_DEFAULTS) and the resource's default order. So the
 * document cannot drift from a changed default.
 */
export function serviceDefaults(resource: ResourceDefinition): ServiceDefaults {
  return { ...PAGE_DEFAULTS, ...resource.defaultOrder, ...settingDefaults() };
}
