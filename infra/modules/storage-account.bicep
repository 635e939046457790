metadata name = 'Storage account for the Functions runtime'
metadata description = 'The storage account the Functions host keeps its keys, leases and diagnostic events in, and the container of deployment packages the app runs from. Shared-key access is disabled: the host connects with its managed identity (AzureWebJobsStorage__accountName), so no account key exists in any setting. The slot identities own only the host containers and can read, never write, the packages; packages are immutable (a time-based retention policy and blob versioning).'

@description('Required. Name of the storage account (3-24 lower-case letters and digits).')
@minLength(3)
@maxLength(24)
param name string

@description('Optional. Location of the storage account.')
param location string = resourceGroup().location

@description('Optional. Tags of the storage account.')
param tags object = {}

@description('Required. Principal ids of the function app identities that run the Functions host against this account (its keys, leases and diagnostic events): one slot\'s, so no slot reads another\'s host keys.')
param hostPrincipalIds string[]

@description('Optional. Principal ids of the function app identities that read the deployment packages (both slots: a swap moves the package with the code).')
param packageReaderPrincipalIds string[] = []

@description('Optional. Principal ids that upload deployment packages (the uat pipeline identity).')
param packageWriterPrincipalIds string[] = []

@description('Optional. Name of the blob container that holds the deployment packages.')
param packageContainerName string = 'deployments'

@description('Optional. IP addresses or CIDR ranges allowed through the firewall; empty leaves the account reachable from anywhere (identity-only access). Restricting it needs the pipeline to upload from an allowed address (a self-hosted runner) or through a private endpoint: see docs/deploy.md.')
param allowedIpAddresses string[] = []

@description('Optional. Days a deployed package can be neither overwritten nor deleted (time-based immutability policy).')
@minValue(1)
param packageRetentionDays int = 30

@description('Required. Resource id of the Log Analytics workspace that receives this resource\'s logs.')
param logAnalyticsWorkspaceId string

// The host's own use of AzureWebJobsStorage: host keys and leases (the export sweep's timer
// takes its singleton lease here too) live in blobs of these two containers, created here so the
// host needs no right on the account's blobs; diagnostic events go to tables it creates per day
// (so the table role is on the account). No queue or file access is granted: the export jobs'
// queue trigger reads its own account (export-storage.bicep, connection EXPORTS_STORAGE).
var hostContainerNames = [
  'azure-webjobs-hosts'
  'azure-webjobs-secrets'
]

// Built-in roles: Storage Blob Data Owner (host containers), Storage Table Data Contributor
// (account), Storage Blob Data Reader (the slots, packages), Storage Blob Data Contributor (the
// uat pipeline identity, packages: it can add blobs; the retention policy stops it changing them).
var storageBlobDataOwnerRoleDefinitionId = 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
var storageTableDataContributorRoleDefinitionId = '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
var storageBlobDataReaderRoleDefinitionId = '2a2b9908-6ea1-4ae2-8e65-a410df84e7d1'
var storageBlobDataContributorRoleDefinitionId = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'

var hostContainerAssignments = flatten(map(hostPrincipalIds, principalId => map(range(0, length(hostContainerNames)), containerIndex => {
  principalId: principalId
  containerIndex: containerIndex
})))

resource storageAccount 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: 'Standard_LRS'
  }
  properties: {
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    allowBlobPublicAccess: false
    allowCrossTenantReplication: false
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      defaultAction: empty(allowedIpAddresses) ? 'Allow' : 'Deny'
      bypass: 'AzureServices'
      ipRules: map(allowedIpAddresses, address => {
        value: address
        action: 'Allow'
      })
    }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storageAccount
  name: 'default'
  properties: {
    // Every overwrite keeps the previous version: what ran can always be read back.
    isVersioningEnabled: true
  }
}

resource hostContainers 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = [for containerName in hostContainerNames: {
  parent: blobService
  name: containerName
  properties: {
    publicAccess: 'None'
  }
}]

// Packages are immutable blobs named after the commit and run; each slot points at one
// (WEBSITE_RUN_FROM_PACKAGE), so a swap moves the pointer and a rollback is a swap back. Both
// slots may therefore run a package uploaded for uat: they read it, and no runtime identity can
// write here.
resource packageContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: packageContainerName
  properties: {
    publicAccess: 'None'
  }
}

// Write once, read many: a package can be neither overwritten nor deleted for packageRetentionDays.
// Left unlocked, so the retention can still be shortened by an owner; lock it once it is settled.
resource packageImmutability 'Microsoft.Storage/storageAccounts/blobServices/containers/immutabilityPolicies@2023-05-01' = {
  parent: packageContainer
  name: 'default'
  properties: {
    immutabilityPeriodSinceCreationInDays: packageRetentionDays
    allowProtectedAppendWrites: false
  }
}

resource packageReaders 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for principalId in packageReaderPrincipalIds: {
  name: guid(packageContainer.id, principalId, storageBlobDataReaderRoleDefinitionId)
  scope: packageContainer
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataReaderRoleDefinitionId)
  }
}]

resource packageWriters 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for principalId in packageWriterPrincipalIds: {
  name: guid(packageContainer.id, principalId, storageBlobDataContributorRoleDefinitionId)
  scope: packageContainer
  properties: {
    principalId: principalId
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataContributorRoleDefinitionId)
  }
}]

resource hostBlobRoles 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for assignment in hostContainerAssignments: {
  name: guid(storageAccount.id, hostContainerNames[assignment.containerIndex], assignment.principalId, storageBlobDataOwnerRoleDefinitionId)
  scope: hostContainers[assignment.containerIndex]
  properties: {
    principalId: assignment.principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataOwnerRoleDefinitionId)
  }
}]

resource hostTableRoles 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for principalId in hostPrincipalIds: {
  name: guid(storageAccount.id, principalId, storageTableDataContributorRoleDefinitionId)
  scope: storageAccount
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageTableDataContributorRoleDefinitionId)
  }
}]


resource blobDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'logs'
  scope: blobService
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logs: [
      {
        category: 'StorageRead'
        enabled: true
      }
      {
        category: 'StorageWrite'
        enabled: true
      }
      {
        category: 'StorageDelete'
        enabled: true
      }
    ]
  }
}

@description('Resource id of the storage account.')
output resourceId string = storageAccount.id

@description('Name of the storage account: the value of AzureWebJobsStorage__accountName.')
output name string = storageAccount.name

@description('URL of the package container, without a trailing slash; the pipeline uploads packages under it.')
output packageContainerUrl string = '${storageAccount.properties.primaryEndpoints.blob}${packageContainer.name}'
