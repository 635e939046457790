metadata name = 'Contracts and Invoices Summary Data Service'
metadata description = 'Everything one environment of the service needs in one resource group: monitoring, storage for the Functions runtime, Key Vault with the backend API keys, Cosmos DB, the function app with its uat slot, and API Management in front of it.'

import { apiManagementPublisherType, apiManagementSkuType, clientRegistryType, elasticPremiumSkuType, rateLimitType, serviceLimitsType } from 'types.bicep'

@description('Required. Short name of the environment (for example prod); part of every resource name.')
@minLength(1)
@maxLength(12)
param environmentName string

@description('Optional. Location of every resource.')
param location string = resourceGroup().location

@description('Optional. Tags added to every resource (azd-env-name and workload are always set).')
param tags object = {}

@description('Required. Application (client) id of the API app registration in Entra ID: the audience of the access tokens (AUTH_APP_ID).')
param apiAppId string

@description('Optional. Entra ID tenant that issues the access tokens (AUTH_TENANT_ID). Defaults to the tenant of the deployment.')
param entraTenantId string = tenant().tenantId

@description('Required. Client registry of the production slot: client application id to data tenant.')
param clientRegistry clientRegistryType

@description('Required. Client registry of the uat slot: client application id to data tenant.')
param uatClientRegistry clientRegistryType

@description('Required. Backend API keys (x-api-key) the production slot accepts, comma separated; stored in Key Vault.')
@secure()
param backendApiKeys string

@description('Required. Backend API keys (x-api-key) the uat slot accepts, comma separated; stored in Key Vault.')
@secure()
param uatBackendApiKeys string

@description('Optional. Service limits; an omitted one keeps the service default.')
param serviceLimits serviceLimitsType = {}

@description('Optional. IP addresses or CIDR ranges allowed to Cosmos DB and Key Vault besides the function app\'s own outbound addresses (for example an operator network); the storage account is firewalled only when storageAllowedIpAddresses is given.')
param additionalAllowedIpAddresses string[] = []

@description('Optional. IP addresses or CIDR ranges allowed to the storage account; empty leaves it reachable from anywhere with identity-only access (the pipeline uploads packages from GitHub\'s runners). See docs/deploy.md.')
param storageAllowedIpAddresses string[] = []

@description('Optional. Principal ids given the built-in Data Contributor on the database of both Cosmos accounts, to load data: the azd sandbox\'s deployer (its postprovision hook seeds the dev data set). Leave empty for production: nothing but the service reads production or UAT data.')
param dataSeederPrincipalIds string[] = []

@description('Required. Object id of the uat environment\'s deployment identity: the only principal that uploads deployment packages.')
param packageUploaderPrincipalId string

@description('Required. Publisher of the API Management instance.')
param apiManagementPublisher apiManagementPublisherType

@description('Optional. Tier of the API Management instance.')
param apiManagementSku apiManagementSkuType = 'Developer'

@description('Optional. Calls allowed per subscription and renewal period at the gateway.')
param rateLimit rateLimitType = {
  calls: 600
  renewalPeriodSeconds: 60
}

@description('Optional. Instance size of the Elastic Premium plan.')
param planSku elasticPremiumSkuType = 'EP1'

@description('Optional. Cosmos DB serverless capacity (true) or provisioned throughput (false).')
param cosmosServerless bool = true

var abbreviations = loadJsonContent('abbreviations.json')
var workload = 'summary'
// Deterministic per subscription, resource group, environment and location: a redeployment
// updates the same resources, another environment gets its own.
var resourceToken = toLower(uniqueString(subscription().id, resourceGroup().id, environmentName, location))
var allTags = union(tags, {
  'azd-env-name': environmentName
  workload: workload
})
var loginEndpoint = environment().authentication.loginEndpoint
var authorityHost = endsWith(loginEndpoint, '/') ? substring(loginEndpoint, 0, length(loginEndpoint) - 1) : loginEndpoint
var slotName = 'uat'

var names = {
  logAnalyticsWorkspace: '${abbreviations.operationalInsightsWorkspaces}${workload}-${resourceToken}'
  applicationInsights: '${abbreviations.insightsComponents}${workload}-${resourceToken}'
  storageAccount: '${abbreviations.storageStorageAccounts}${resourceToken}'
  uatStorageAccount: '${abbreviations.storageStorageAccounts}uat${resourceToken}'
  exportStorageAccount: '${abbreviations.storageStorageAccounts}exp${resourceToken}'
  uatExportStorageAccount: '${abbreviations.storageStorageAccounts}expuat${resourceToken}'
  keyVault: '${abbreviations.keyVaultVaults}${resourceToken}'
  cosmosDbAccount: '${abbreviations.documentDBDatabaseAccounts}${workload}-${resourceToken}'
  uatCosmosDbAccount: '${abbreviations.documentDBDatabaseAccounts}${workload}-uat-${resourceToken}'
  appServicePlan: '${abbreviations.webServerFarms}${workload}-${resourceToken}'
  functionApp: '${abbreviations.webSitesFunctions}${workload}-${resourceToken}'
  apiManagement: '${abbreviations.apiManagementService}${workload}-${resourceToken}'
}

module logAnalyticsWorkspace 'modules/log-analytics-workspace.bicep' = {
  name: 'log-analytics-workspace'
  params: {
    name: names.logAnalyticsWorkspace
    location: location
    tags: allTags
  }
}

module applicationInsights 'modules/application-insights.bicep' = {
  name: 'application-insights'
  params: {
    name: names.applicationInsights
    location: location
    tags: allTags
    workspaceResourceId: logAnalyticsWorkspace.outputs.resourceId
  }
}

module apiManagementService 'modules/api-management-service.bicep' = {
  name: 'api-management-service'
  params: {
    name: names.apiManagement
    location: location
    tags: allTags
    sku: apiManagementSku
    publisher: apiManagementPublisher
    logAnalyticsWorkspaceId: logAnalyticsWorkspace.outputs.resourceId
  }
}

module appServicePlan 'modules/app-service-plan.bicep' = {
  name: 'app-service-plan'
  params: {
    name: names.appServicePlan
    location: location
    tags: allTags
    sku: planSku
  }
}

module functionApp 'modules/function-app.bicep' = {
  name: 'function-app'
  params: {
    name: names.functionApp
    location: location
    tags: allTags
    appServicePlanId: appServicePlan.outputs.resourceId
    gatewayIpAddresses: apiManagementService.outputs.publicIpAddresses
    slotName: slotName
    logAnalyticsWorkspaceId: logAnalyticsWorkspace.outputs.resourceId
  }
}

// The addresses the function app (both slots) reaches its data stores from.
var dataStoreAllowedIpAddresses = union(split(functionApp.outputs.possibleOutboundIpAddresses, ','), additionalAllowedIpAddresses)

module storageAccount 'modules/storage-account.bicep' = {
  name: 'storage-account'
  params: {
    name: names.storageAccount
    location: location
    tags: allTags
    // The production slot's host storage (its keys): the uat slot has its own (uatStorageAccount).
    hostPrincipalIds: [
      functionApp.outputs.principalId
    ]
    // Both slots read the packages: a swap moves the package with the code.
    packageReaderPrincipalIds: [
      functionApp.outputs.principalId
      functionApp.outputs.slotPrincipalId
    ]
    // The uat environment's pipeline identity uploads the packages (not the identity deploying
    // this template, which the production environment holds).
    packageWriterPrincipalIds: [
      packageUploaderPrincipalId
    ]
    allowedIpAddresses: storageAllowedIpAddresses
    logAnalyticsWorkspaceId: logAnalyticsWorkspace.outputs.resourceId
  }
}

// The uat slot's own host storage: its keys, leases and diagnostic events, apart from
// production's (the uat slot could otherwise read production's host keys). No packages here.
module uatStorageAccount 'modules/storage-account.bicep' = {
  name: 'storage-account-uat'
  params: {
    name: names.uatStorageAccount
    location: location
    tags: allTags
    hostPrincipalIds: [
      functionApp.outputs.slotPrincipalId
    ]
    allowedIpAddresses: storageAllowedIpAddresses
    logAnalyticsWorkspaceId: logAnalyticsWorkspace.outputs.resourceId
  }
}

// Each slot's export jobs: files customers fetch by SAS, and the queue of windows; the uat slot
// has its own account, so no slot reads or signs for another's files.
module exportStorage 'modules/export-storage.bicep' = {
  name: 'export-storage'
  params: {
    name: names.exportStorageAccount
    location: location
    tags: allTags
    principalId: functionApp.outputs.principalId
    deltaTokenDays: serviceLimits.?deltaTokenDays ?? 30
    logAnalyticsWorkspaceId: logAnalyticsWorkspace.outputs.resourceId
  }
}

module uatExportStorage 'modules/export-storage.bicep' = {
  name: 'export-storage-uat'
  params: {
    name: names.uatExportStorageAccount
    location: location
    tags: allTags
    principalId: functionApp.outputs.slotPrincipalId
    deltaTokenDays: serviceLimits.?deltaTokenDays ?? 30
    logAnalyticsWorkspaceId: logAnalyticsWorkspace.outputs.resourceId
  }
}

module keyVault 'modules/key-vault.bicep' = {
  name: 'key-vault'
  params: {
    name: names.keyVault
    location: location
    tags: allTags
    allowedIpAddresses: dataStoreAllowedIpAddresses
    logAnalyticsWorkspaceId: logAnalyticsWorkspace.outputs.resourceId
  }
}

module apiKeysSecret 'modules/key-vault-secret.bicep' = {
  name: 'key-vault-secret-backend-api-keys'
  params: {
    keyVaultName: keyVault.outputs.name
    name: 'backend-api-keys'
    value: backendApiKeys
    readerPrincipalIds: [
      functionApp.outputs.principalId
    ]
  }
}

module uatApiKeysSecret 'modules/key-vault-secret.bicep' = {
  name: 'key-vault-secret-backend-api-keys-uat'
  params: {
    keyVaultName: keyVault.outputs.name
    name: 'backend-api-keys-uat'
    value: uatBackendApiKeys
    readerPrincipalIds: [
      functionApp.outputs.slotPrincipalId
    ]
  }
}

// Who may read what (CLIENT_REGISTRY) is a Key Vault secret per slot, as the API keys are: only
// the identity deploying this template (the production pipeline's) writes it, and a slot's
// settings only reference it, so nobody who can change a slot's settings changes who reads.
module clientRegistrySecret 'modules/key-vault-secret.bicep' = {
  name: 'key-vault-secret-client-registry'
  params: {
    keyVaultName: keyVault.outputs.name
    name: 'client-registry'
    value: string(clientRegistry)
    readerPrincipalIds: [
      functionApp.outputs.principalId
    ]
  }
}

module uatClientRegistrySecret 'modules/key-vault-secret.bicep' = {
  name: 'key-vault-secret-client-registry-uat'
  params: {
    keyVaultName: keyVault.outputs.name
    name: 'client-registry-uat'
    value: string(uatClientRegistry)
    readerPrincipalIds: [
      functionApp.outputs.slotPrincipalId
    ]
  }
}

// The production data: only the production slot's identity may read it.
module cosmosDbAccount 'modules/cosmos-db-account.bicep' = {
  name: 'cosmos-db-account'
  params: {
    name: names.cosmosDbAccount
    location: location
    tags: allTags
    serverless: cosmosServerless
    readerPrincipalIds: [
      functionApp.outputs.principalId
    ]
    writerPrincipalIds: dataSeederPrincipalIds
    allowedIpAddresses: dataStoreAllowedIpAddresses
    logAnalyticsWorkspaceId: logAnalyticsWorkspace.outputs.resourceId
  }
}

// The UAT data, an account of its own (serverless: UAT traffic is light): only the uat slot's
// identity may read it, and its page cursors are its own. A swap moves code, never data access.
module uatCosmosDbAccount 'modules/cosmos-db-account.bicep' = {
  name: 'cosmos-db-account-uat'
  params: {
    name: names.uatCosmosDbAccount
    location: location
    tags: allTags
    serverless: true
    readerPrincipalIds: [
      functionApp.outputs.slotPrincipalId
    ]
    writerPrincipalIds: dataSeederPrincipalIds
    allowedIpAddresses: dataStoreAllowedIpAddresses
    logAnalyticsWorkspaceId: logAnalyticsWorkspace.outputs.resourceId
  }
}

// The spec's base_url, as apiManagementApi.outputs.baseUrl says it (that module waits for the settings).
var publicBaseUrl = '${apiManagementService.outputs.gatewayUrl}/${workload}'

module functionAppSettings 'modules/function-app-settings.bicep' = {
  name: 'function-app-settings'
  params: {
    functionAppName: functionApp.outputs.name
    slotName: functionApp.outputs.slotName
    storageAccountName: storageAccount.outputs.name
    uatStorageAccountName: uatStorageAccount.outputs.name
    applicationInsightsConnectionString: applicationInsights.outputs.connectionString
    cosmosEndpoint: cosmosDbAccount.outputs.endpoint
    uatCosmosEndpoint: uatCosmosDbAccount.outputs.endpoint
    exportStorage: {
      blobServiceUri: exportStorage.outputs.blobServiceUri
      queueServiceUri: exportStorage.outputs.queueServiceUri
    }
    uatExportStorage: {
      blobServiceUri: uatExportStorage.outputs.blobServiceUri
      queueServiceUri: uatExportStorage.outputs.queueServiceUri
    }
    authorityHost: authorityHost
    entraTenantId: entraTenantId
    apiAppId: apiAppId
    apiKeysSecretUri: apiKeysSecret.outputs.uri
    uatApiKeysSecretUri: uatApiKeysSecret.outputs.uri
    clientRegistrySecretUri: clientRegistrySecret.outputs.uri
    uatClientRegistrySecretUri: uatClientRegistrySecret.outputs.uri
    // Both slots are reached through the gateway's one base URL (the subscription decides the
    // slot: policies/summary-api.xml); never from a request's Host or X-Forwarded-* headers.
    publicBaseUrl: publicBaseUrl
    uatPublicBaseUrl: publicBaseUrl
    serviceLimits: serviceLimits
  }
}

module applicationInsightsPublishers 'modules/application-insights-publishers.bicep' = {
  name: 'application-insights-publishers'
  params: {
    applicationInsightsName: applicationInsights.outputs.name
    publisherPrincipalIds: [
      functionApp.outputs.principalId
      functionApp.outputs.slotPrincipalId
      apiManagementService.outputs.principalId
    ]
  }
}

module apiManagementApi 'modules/api-management-api.bicep' = {
  name: 'api-management-api'
  params: {
    serviceName: apiManagementService.outputs.name
    apiPath: workload
    functionAppName: functionApp.outputs.name
    slotName: functionApp.outputs.slotName
    functionAppHostName: functionApp.outputs.defaultHostName
    slotHostName: functionApp.outputs.slotDefaultHostName
    authorityHost: authorityHost
    entraTenantId: entraTenantId
    apiAppId: apiAppId
    rateLimit: rateLimit
    clientRegistry: clientRegistry
    uatClientRegistry: uatClientRegistry
    applicationInsightsResourceId: applicationInsights.outputs.resourceId
    applicationInsightsConnectionString: applicationInsights.outputs.connectionString
  }
  // The function keys are read from the running host, which needs its settings and storage roles.
  dependsOn: [
    functionAppSettings
  ]
}

@description('Base URL of the API on the gateway (the spec\'s base_url): the gateway URL followed by the API path.')
output gatewayBaseUrl string = apiManagementApi.outputs.baseUrl

@description('Name of the API Management instance.')
output apiManagementName string = apiManagementService.outputs.name

@description('UAT subscription name of each UAT client application, by client id; the smoke test reads its client\'s key with listSecrets.')
output uatSubscriptionNames object = apiManagementApi.outputs.uatSubscriptionNames

@description('Name of the function app (its production slot).')
output functionAppName string = functionApp.outputs.name

@description('Name of the deployment slot packages are deployed to before the swap.')
output functionAppSlotName string = functionApp.outputs.slotName

@description('URL of the blob container the pipeline uploads packages to (each slot runs one of them).')
output packageContainerUrl string = storageAccount.outputs.packageContainerUrl

@description('Cosmos DB account endpoint of the production data (COSMOS_ENDPOINT of the production slot).')
output cosmosEndpoint string = cosmosDbAccount.outputs.endpoint

@description('Cosmos DB account endpoint of the UAT data (COSMOS_ENDPOINT of the uat slot).')
output uatCosmosEndpoint string = uatCosmosDbAccount.outputs.endpoint

@description('Name of the Key Vault holding the backend API keys.')
output keyVaultName string = keyVault.outputs.name
