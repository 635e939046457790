metadata name = 'Shared types'
metadata description = 'User-defined types shared by main.bicep and its modules, so that a parameter has one shape everywhere.'

@export()
@description('Client application id (the token\'s azp or appid) to data tenant: the service\'s CLIENT_REGISTRY setting.')
type clientRegistryType = {
  @description('Required. The data tenant (lower-case name, for example contoso) the client application may read.')
  *: string
}

@export()
@description('Limits of the service; each maps to one app setting and defaults to the service\'s own default.')
type serviceLimitsType = {
  @description('Optional. AUTH_CLOCK_TOLERANCE_SECONDS: clock skew allowed on exp and nbf.')
  clockToleranceSeconds: int?

  @description('Optional. STORE_TIMEOUT_MS: deadline of one store call, in milliseconds.')
  storeTimeoutMs: int?

  @description('Optional. MAX_PAGE_SIZE: the largest pageSize a caller may ask for.')
  maxPageSize: int?

  @description('Optional. MAX_RESULT_WINDOW: the deepest record a JSON page may reach.')
  maxResultWindow: int?

  @description('Optional. PARQUET_MAX_BYTES: the largest Parquet or zip body one export may send.')
  parquetMaxBytes: int?

  @description('Optional. EXPORT_MAX_MONTHS: the most calendar months one export job\'s range may touch.')
  exportMaxMonths: int?

  @description('Optional. DELTA_TOKEN_DAYS: how long a delta token is answered (its state is kept a day longer).')
  deltaTokenDays: int?

  @description('Optional. EXPORT_JOB_TTL_SECONDS: how long an export job, its files and their URLs last.')
  exportJobTtlSeconds: int?

  @description('Optional. EXPORT_JOBS_PER_CLIENT: export jobs one client application may have running.')
  exportJobsPerClient: int?

  @description('Optional. EXPORT_JOBS_PER_TENANT: export jobs the clients of one data tenant may have running together.')
  exportJobsPerTenant: int?

  @description('Optional. EXPORT_WINDOWS_PER_TENANT: windows (months) the running export jobs of one data tenant may have queued; at least EXPORT_MAX_MONTHS.')
  exportWindowsPerTenant: int?

  @description('Optional. EXPORT_JOBS_PER_SERVICE: export jobs running in the whole service.')
  exportJobsPerService: int?

  @description('Optional. EXPORT_WINDOWS_PER_SERVICE: windows queued by the export jobs of the whole service.')
  exportWindowsPerService: int?
}

@export()
@description('Calls allowed per subscription within a renewal period, enforced by the gateway.')
type rateLimitType = {
  @description('Required. Calls allowed per subscription in one renewal period.')
  @minValue(1)
  calls: int

  @description('Required. Length of the renewal period in seconds.')
  @minValue(1)
  renewalPeriodSeconds: int
}

@export()
@description('The publisher shown by API Management and notified by it.')
type apiManagementPublisherType = {
  @description('Required. Publisher (organisation) name.')
  name: string

  @description('Required. Publisher e-mail address.')
  email: string
}

@export()
@description('API Management tiers with a static public IP address: the function app admits only that address. Consumption and the v2 tiers have no static outbound address and are therefore not offered.')
type apiManagementSkuType = 'Developer' | 'Basic' | 'Standard' | 'Premium'

@export()
@description('Elastic Premium plan sizes (the Functions plan that supports deployment slots).')
type elasticPremiumSkuType = 'EP1' | 'EP2' | 'EP3'
