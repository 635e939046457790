metadata name = 'Function app settings'
metadata description = 'The app settings of the function app and of its uat slot, and which of them stick to their slot on a swap. Applied after the identities received their roles, so that Key Vault references and the identity-based storage connection resolve on first start.'

import { serviceLimitsType } from '../types.bicep'

@description('Required. Name of the existing function app.')
param functionAppName string

@description('Required. Name of its existing deployment slot.')
param slotName string

@description('Required. Name of the storage account the production slot\'s Functions host uses (AzureWebJobsStorage__accountName).')
param storageAccountName string

@description('Required. Name of the storage account the uat slot\'s Functions host uses, its own.')
param uatStorageAccountName string

@description('Required. Application Insights connection string.')
param applicationInsightsConnectionString string

@description('Required. Cosmos DB endpoint of the production data (COSMOS_ENDPOINT of the production slot).')
param cosmosEndpoint string

@description('Required. Cosmos DB endpoint of the UAT data, an account of its own (COSMOS_ENDPOINT of the uat slot).')
param uatCosmosEndpoint string

@description('Required. Blob and queue endpoints of the production slot\'s export storage account (EXPORTS_STORAGE__blobServiceUri, EXPORTS_STORAGE__queueServiceUri).')
param exportStorage { blobServiceUri: string, queueServiceUri: string }

@description('Required. Blob and queue endpoints of the uat slot\'s own export storage account.')
param uatExportStorage { blobServiceUri: string, queueServiceUri: string }

@description('Required. Identity provider host, without a trailing slash (AUTH_AUTHORITY_HOST).')
param authorityHost string

@description('Required. Identity tenant id (AUTH_TENANT_ID).')
param entraTenantId string

@description('Required. Application (client) id of this API\'s app registration (AUTH_APP_ID).')
param apiAppId string

@description('Required. URI (without version) of the secret holding the production slot\'s backend API keys.')
param apiKeysSecretUri string

@description('Required. URI (without version) of the secret holding the uat slot\'s backend API keys.')
param uatApiKeysSecretUri string

@description('Required. URI (without version) of the secret holding the production slot\'s client registry (CLIENT_REGISTRY).')
param clientRegistrySecretUri string

@description('Required. URI (without version) of the secret holding the uat slot\'s client registry (CLIENT_REGISTRY).')
param uatClientRegistrySecretUri string

@description('Required. Base URL callers reach the production slot at (the gateway\'s base_url): PUBLIC_BASE_URL, on which JSON pages link to their next page.')
param publicBaseUrl string

@description('Required. Base URL callers reach the uat slot at (PUBLIC_BASE_URL of the uat slot).')
param uatPublicBaseUrl string

@description('Optional. Service limits; an omitted one keeps the service default.')
param serviceLimits serviceLimitsType = {}

// The keys of local.settings.example.json's Values, with their Azure values (test/infra holds the
// two lists together). A limit the parameters leave out falls back to the service's own default,
// which test/infra/function-app.test.ts holds equal to loadConfig's; LOG_REQUESTS is not set, so
// its default (true) applies. Left out on purpose, because they only serve the local stack:
//   COSMOS_KEY                    Cosmos key auth is disabled (disableLocalAuth); the managed identity reads.
//   COSMOS_ALLOW_SELF_SIGNED_TLS  only for the embedded server's self-signed certificate on loopback.
//   LOG_REQUESTS                  its default (true) is what Azure wants.
//   EXPORTS_STORAGE__tenantId, __clientId, __clientSecret
//                                 a client secret identity of the local identity provider; in Azure
//                                 the connection is the slot's managed identity.
// Renamed: AzureWebJobsStorage is AzureWebJobsStorage__accountName (identity-based, no account key).
var serviceSettings = {
  FUNCTIONS_WORKER_RUNTIME: 'node'
  AUTH_AUTHORITY_HOST: authorityHost
  AUTH_TENANT_ID: entraTenantId
  AUTH_APP_ID: apiAppId
  AUTH_CLOCK_TOLERANCE_SECONDS: string(serviceLimits.?clockToleranceSeconds ?? 30)
  STORE_TIMEOUT_MS: string(serviceLimits.?storeTimeoutMs ?? 10000)
  MAX_PAGE_SIZE: string(serviceLimits.?maxPageSize ?? 1000)
  MAX_RESULT_WINDOW: string(serviceLimits.?maxResultWindow ?? 10000)
  PARQUET_MAX_BYTES: string(serviceLimits.?parquetMaxBytes ?? 104857600)
  EXPORT_MAX_MONTHS: string(serviceLimits.?exportMaxMonths ?? 36)
  EXPORT_JOB_TTL_SECONDS: string(serviceLimits.?exportJobTtlSeconds ?? 86400)
  DELTA_TOKEN_DAYS: string(serviceLimits.?deltaTokenDays ?? 30)
  EXPORT_JOBS_PER_CLIENT: string(serviceLimits.?exportJobsPerClient ?? 2)
  EXPORT_JOBS_PER_TENANT: string(serviceLimits.?exportJobsPerTenant ?? 4)
  EXPORT_WINDOWS_PER_TENANT: string(serviceLimits.?exportWindowsPerTenant ?? 100)
  EXPORT_JOBS_PER_SERVICE: string(serviceLimits.?exportJobsPerService ?? 100)
  EXPORT_WINDOWS_PER_SERVICE: string(serviceLimits.?exportWindowsPerService ?? 2000)
}

// Per slot, and sticky (slotConfigNames below): a swap moves the code, never data access. Each
// slot keeps the data it reads (its own Cosmos account, which only its identity may read) and the
// callers it admits. UAT callers reach the uat slot (see policies/summary-api.xml).
var productionSlotSettings = {
  API_KEYS: '@Microsoft.KeyVault(SecretUri=${apiKeysSecretUri})'
  CLIENT_REGISTRY: '@Microsoft.KeyVault(SecretUri=${clientRegistrySecretUri})'
  COSMOS_ENDPOINT: cosmosEndpoint
  AzureWebJobsStorage__accountName: storageAccountName
  PUBLIC_BASE_URL: publicBaseUrl
  EXPORTS_STORAGE__blobServiceUri: exportStorage.blobServiceUri
  EXPORTS_STORAGE__queueServiceUri: exportStorage.queueServiceUri
}

var uatSlotSettings = {
  API_KEYS: '@Microsoft.KeyVault(SecretUri=${uatApiKeysSecretUri})'
  CLIENT_REGISTRY: '@Microsoft.KeyVault(SecretUri=${uatClientRegistrySecretUri})'
  COSMOS_ENDPOINT: uatCosmosEndpoint
  AzureWebJobsStorage__accountName: uatStorageAccountName
  PUBLIC_BASE_URL: uatPublicBaseUrl
  EXPORTS_STORAGE__blobServiceUri: uatExportStorage.blobServiceUri
  EXPORTS_STORAGE__queueServiceUri: uatExportStorage.queueServiceUri
}

// Platform settings with no local counterpart. No WEBSITE_CONTENTAZUREFILECONNECTIONSTRING or
// WEBSITE_CONTENTSHARE: Azure Files needs an account key. Without it, Functions requires the app to
// run from an external package URL, read here with the slot's own identity.
var platformSettings = {
  FUNCTIONS_EXTENSION_VERSION: '~4'
  APPLICATIONINSIGHTS_CONNECTION_STRING: applicationInsightsConnectionString
  // Ingestion with the slot's managed identity: Application Insights has local auth disabled.
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'Authorization=AAD'
  WEBSITE_RUN_FROM_PACKAGE_BLOB_MI_RESOURCE_ID: 'SystemAssigned'
}

// The package each slot runs: set by the pipeline (deploy to uat, then swap), so an
// infrastructure deployment keeps the current value. Not sticky: a swap moves it with the code.
var productionPackage = {
  WEBSITE_RUN_FROM_PACKAGE: list('${functionApp.id}/config/appsettings', '2023-12-01').properties.?WEBSITE_RUN_FROM_PACKAGE ?? ''
}

var uatPackage = {
  WEBSITE_RUN_FROM_PACKAGE: list('${uatSlot.id}/config/appsettings', '2023-12-01').properties.?WEBSITE_RUN_FROM_PACKAGE ?? ''
}

resource functionApp 'Microsoft.Web/sites@2023-12-01' existing = {
  name: functionAppName
}

resource uatSlot 'Microsoft.Web/sites/slots@2023-12-01' existing = {
  parent: functionApp
  name: slotName
}

resource appSettings 'Microsoft.Web/sites/config@2023-12-01' = {
  parent: functionApp
  name: 'appsettings'
  properties: union(platformSettings, productionPackage, serviceSettings, productionSlotSettings)
}

resource uatAppSettings 'Microsoft.Web/sites/slots/config@2023-12-01' = {
  parent: uatSlot
  name: 'appsettings'
  properties: union(platformSettings, uatPackage, serviceSettings, uatSlotSettings)
}

resource stickySettings 'Microsoft.Web/sites/config@2023-12-01' = {
  parent: functionApp
  name: 'slotConfigNames'
  properties: {
    appSettingNames: [
      'API_KEYS'
      'CLIENT_REGISTRY'
      'COSMOS_ENDPOINT'
      'AzureWebJobsStorage__accountName'
      'PUBLIC_BASE_URL'
      'EXPORTS_STORAGE__blobServiceUri'
      'EXPORTS_STORAGE__queueServiceUri'
    ]
  }
}

@description('Names of the app settings that stay with their slot on a swap.')
output stickySettingNames array = stickySettings.properties.appSettingNames
