metadata name = 'Storage account for export jobs'
metadata description = 'The storage account one slot\'s export jobs write their files to and queue their windows on, apart from the host storage: customers fetch the files from their own networks with a user delegation SAS per file, so it is reachable from anywhere, and every access is authorized by Entra ID (shared-key access disabled: no account key signs anything). One container of files (deleted by a lifecycle rule after the longest a job lives), one of the delta feed\'s token states and later pages (each deleted by its own rule after its life), the queue of windows and its poison queue, and for the slot\'s identity exactly what it needs: blob data on the two containers, queue data on the two queues, and the delegator role that hands out user delegation keys.'

@description('Required. Name of the storage account (3-24 lower-case letters and digits).')
@minLength(3)
@maxLength(24)
param name string

@description('Optional. Location of the storage account.')
param location string = resourceGroup().location

@description('Optional. Tags of the storage account.')
param tags object = {}

@description('Required. Principal id of the slot identity whose export jobs use this account.')
param principalId string

@description('Optional. Days after which a file is deleted whatever its job: one more than the longest a job may live (EXPORT_JOB_TTL_SECONDS is at most 7 days); the service\'s sweep deletes files when their job expires.')
@minValue(1)
param fileRetentionDays int = 8

@description('Optional. DELTA_TOKEN_DAYS: how long the service answers a delta token. A token\'s kept state is deleted a day after that, a delta\'s kept later pages after a day (they are answered for 24 hours).')
@minValue(1)
@maxValue(365)
param deltaTokenDays int = 30

@description('Required. Resource id of the Log Analytics workspace that receives this resource\'s logs.')
param logAnalyticsWorkspaceId string

// The container and queues, as the service names them (EXPORT_STORAGE in
// shared/exports/export-storage.ts; test/infra/export-storage.test.ts holds the two equal).
var storage = {
  container: 'exports'
  queue: 'export-windows'
  poisonQueue: 'export-windows-poison'
}

// The delta feed's container and the prefixes of its two kinds of blob (shared/delta/delta-blobs.ts;
// test/infra/export-storage.test.ts holds them equal).
var delta = {
  container: 'delta-states'
  states: 'states/'
  pages: 'pages/'
}

// Built-in roles: Storage Blob Data Contributor (the container), Storage Queue Data Contributor
// (the two queues), Storage Blob Delegator (the account: user delegation keys are account-wide).
var storageBlobDataContributorRoleDefinitionId = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'
var storageQueueDataContributorRoleDefinitionId = '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
var storageBlobDelegatorRoleDefinitionId = 'db58b8e5-c6ad-4a2a-8342-4190687cbf4a'

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
    // Customers fetch the files from their networks (Data Factory, Fabric, their runners): a SAS
    // for one blob, read only, https only, signed by a user delegation key.
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

resource container 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: storage.container
  properties: {
    publicAccess: 'None'
  }
}

resource deltaContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: delta.container
  properties: {
    publicAccess: 'None'
  }
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' = {
  parent: storageAccount
  name: 'default'
}

resource queues 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = [for queueName in [storage.queue, storage.poisonQueue]: {
  parent: queueService
  name: queueName
}]

resource lifecycle 'Microsoft.Storage/storageAccounts/managementPolicies@2023-05-01' = {
  parent: storageAccount
  name: 'default'
  properties: {
    policy: {
      rules: [
        {
          name: 'expired-export-files'
          enabled: true
          type: 'Lifecycle'
          definition: {
            filters: {
              blobTypes: [
                'blockBlob'
              ]
              prefixMatch: [
                '${storage.container}/'
              ]
            }
            actions: {
              baseBlob: {
                delete: {
                  daysAfterModificationGreaterThan: fileRetentionDays
                }
              }
            }
          }
        }
        {
          name: 'expired-delta-states'
          enabled: true
          type: 'Lifecycle'
          definition: {
            filters: {
              blobTypes: [
                'blockBlob'
              ]
              prefixMatch: [
                '${delta.container}/${delta.states}'
              ]
            }
            actions: {
              baseBlob: {
                delete: {
                  daysAfterModificationGreaterThan: deltaTokenDays + 1
                }
              }
            }
          }
        }
        {
          name: 'expired-delta-pages'
          enabled: true
          type: 'Lifecycle'
          definition: {
            filters: {
              blobTypes: [
                'blockBlob'
              ]
              prefixMatch: [
                '${delta.container}/${delta.pages}'
              ]
            }
            actions: {
              baseBlob: {
                delete: {
                  daysAfterModificationGreaterThan: 1
                }
              }
            }
          }
        }
      ]
    }
  }
}

resource fileWriter 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(container.id, principalId, storageBlobDataContributorRoleDefinitionId)
  scope: container
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataContributorRoleDefinitionId)
  }
}

resource deltaWriter 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(deltaContainer.id, principalId, storageBlobDataContributorRoleDefinitionId)
  scope: deltaContainer
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataContributorRoleDefinitionId)
  }
}

resource queueWorkers 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for (queueName, index) in [storage.queue, storage.poisonQueue]: {
  name: guid(storageAccount.id, queueName, principalId, storageQueueDataContributorRoleDefinitionId)
  scope: queues[index]
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageQueueDataContributorRoleDefinitionId)
  }
}]

resource delegator 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storageAccount.id, principalId, storageBlobDelegatorRoleDefinitionId)
  scope: storageAccount
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDelegatorRoleDefinitionId)
  }
}

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

@description('Blob endpoint of the account, without a trailing slash: EXPORTS_STORAGE__blobServiceUri.')
output blobServiceUri string = endsWith(storageAccount.properties.primaryEndpoints.blob, '/') ? substring(storageAccount.properties.primaryEndpoints.blob, 0, length(storageAccount.properties.primaryEndpoints.blob) - 1) : storageAccount.properties.primaryEndpoints.blob

@description('Queue endpoint of the account, without a trailing slash: EXPORTS_STORAGE__queueServiceUri.')
output queueServiceUri string = endsWith(storageAccount.properties.primaryEndpoints.queue, '/') ? substring(storageAccount.properties.primaryEndpoints.queue, 0, length(storageAccount.properties.primaryEndpoints.queue) - 1) : storageAccount.properties.primaryEndpoints.queue
