metadata name = 'Storage account for the Functions runtime'
metadata description = 'The storage account the Functions host keeps its keys, leases and diagnostic events in, and the container of deployment packages the app runs from. Shared-key access is disabled: the host connects with its managed identity (AzureWebJobsStorage__accountName), so no account key exists in any setting.'

@description('Required. Name of the storage account (3-24 lower-case letters and digits).')
@minLength(3)
@maxLength(24)
param name string

@description('Optional. Location of the storage account.')
param location string = resourceGroup().location

@description('Optional. Tags of the storage account.')
param tags object = {}

@description('Required. Principal ids of the function app identities (production and uat slot) that run the Functions host against this account and read their packages from it.')
param hostPrincipalIds string[]

@description('Optional. Principal ids that upload deployment packages (the pipeline identity).')
param packageWriterPrincipalIds string[] = []

@description('Optional. Name of the blob container that holds the deployment packages.')
param packageContainerName string = 'deployments'

// The host's own use of AzureWebJobsStorage for an app with only HTTP triggers: host keys and
// leases live in blobs, diagnostic events in a table; the package is read from a blob too.
// No queue or file access is granted.
var hostRoleDefinitionIds = {
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
  storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
}

var hostRoleAssignments = flatten(map(hostPrincipalIds, principalId => map(items(hostRoleDefinitionIds), role => {
  principalId: principalId
  roleDefinitionId: role.value
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
      defaultAction: 'Allow'
      bypass: 'AzureServices'
    }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storageAccount
  name: 'default'
}

// Packages are immutable blobs named after the commit and run; each slot points at one
// (WEBSITE_RUN_FROM_PACKAGE), so a swap moves the pointer and a rollback is a swap back.
resource packageContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: packageContainerName
  properties: {
    publicAccess: 'None'
  }
}

// Built-in role "Storage Blob Data Contributor", on the package container only.
var storageBlobDataContributorRoleDefinitionId = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'

resource packageWriters 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for principalId in packageWriterPrincipalIds: {
  name: guid(packageContainer.id, principalId, storageBlobDataContributorRoleDefinitionId)
  scope: packageContainer
  properties: {
    principalId: principalId
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataContributorRoleDefinitionId)
  }
}]

resource hostRoles 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for assignment in hostRoleAssignments: {
  name: guid(storageAccount.id, assignment.principalId, assignment.roleDefinitionId)
  scope: storageAccount
  properties: {
    principalId: assignment.principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', assignment.roleDefinitionId)
  }
}]

@description('Resource id of the storage account.')
output resourceId string = storageAccount.id

@description('Name of the storage account: the value of AzureWebJobsStorage__accountName.')
output name string = storageAccount.name

@description('URL of the package container, without a trailing slash; the pipeline uploads packages under it.')
output packageContainerUrl string = '${storageAccount.properties.primaryEndpoints.blob}${packageContainer.name}'
