import { SETTING_DEFAULTS } from '../shared/config/load-config.js';
import { PAGE_DEFAULTS } from '../shared/model/operation-contract.js';
import type { ResourceDefinition } from '../shared/model/resource-definition.js';

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

/** The settings' defaults, read where `loadConfig` has them (SETTING_DEFAULTS, from its schema). */
export function settingDefaults(): SettingDefaults {
  return {
    maxPageSize: SETTING_DEFAULTS.MAX_PAGE_SIZE as number,
    maxResultWindow: SETTING_DEFAULTS.MAX_RESULT_WINDOW as number,
    parquetMaxBytes: SETTING_DEFAULTS.PARQUET_MAX_BYTES as number,
    authorityHost: new URL(SETTING_DEFAULTS.AUTH_AUTHORITY_HOST as string).origin,
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
