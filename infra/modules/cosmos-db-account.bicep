metadata name = 'Cosmos DB account'
metadata description = 'A Cosmos DB for NoSQL account with key (local) auth disabled, the summary database and its containers exactly as the service defines them (generated/cosmos-containers.json, written from shared/store/container-definitions.ts), the built-in Data Reader role on that database for the function app identities, and the built-in Data Contributor role on the page-cursor and export-job containers only.'

@description('Required. Name of the account (3-44 lower-case letters, digits and hyphens).')
@minLength(3)
@maxLength(44)
param name string

@description('Optional. Location of the account (its only region).')
param location string = resourceGroup().location

@description('Optional. Tags of the account.')
param tags object = {}

@description('Optional. Serverless capacity (pay per request; suits UAT). False provisions throughput per container instead.')
param serverless bool = true

@description('Required. Principal ids of the function app identities that read the data.')
param readerPrincipalIds string[]

@description('Optional. Principal ids that may write the data: the azd sandbox\'s deployer, whose hook seeds it. Never set for production or UAT data, which nothing but the service reads.')
param writerPrincipalIds string[] = []

@description('Required. IP addresses or CIDR ranges allowed through the firewall (the function app\'s outbound addresses, and any the platform engineers add); everything else is denied.')
param allowedIpAddresses string[]

@description('Required. Resource id of the Log Analytics workspace that receives this resource\'s logs.')
param logAnalyticsWorkspaceId string

// The one definition of the containers (resources: hierarchical partition key /tenantId then /id,
// a composite index per sortable field in both directions; page cursors and export jobs: /tenantId with a TTL),
// generated from the code by `npm run infra:containers`.
var definition = loadJsonContent('../generated/cosmos-containers.json')

// Built-in "Cosmos DB Built-in Data Reader" (data plane): read items, query, read metadata. No write.
var dataReaderRoleDefinitionId = '00000000-0000-0000-0000-000000000001'

// Built-in "Cosmos DB Built-in Data Contributor": the service writes its page cursors and its export jobs, and nothing else; a sandbox's deployer seeds the data.
var dataContributorRoleDefinitionId = '00000000-0000-0000-0000-000000000002'

resource account 'Microsoft.DocumentDB/databaseAccounts@2024-05-15' = {
  name: name
  location: location
  tags: tags
  kind: 'GlobalDocumentDB'
  properties: {
    databaseAccountOfferType: 'Standard'
    consistencyPolicy: {
      defaultConsistencyLevel: 'Session'
    }
    locations: [
      {
        locationName: location
        failoverPriority: 0
        isZoneRedundant: false
      }
    ]
    capabilities: serverless ? [
      {
        name: 'EnableServerless'
      }
    ] : []
    disableLocalAuth: true
    disableKeyBasedMetadataWriteAccess: true
    minimalTlsVersion: 'Tls12'
    // Public endpoint, firewalled: only the allowed addresses reach the data plane (a private
    // endpoint is the stronger option; see docs/deploy.md).
    publicNetworkAccess: 'Enabled'
    ipRules: map(allowedIpAddresses, address => {
      ipAddressOrRange: address
    })
    isVirtualNetworkFilterEnabled: false
  }
}

resource database 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2024-05-15' = {
  parent: account
  name: definition.databaseId
  properties: {
    resource: {
      id: definition.databaseId
    }
  }
}

resource containers 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-05-15' = [for container in definition.containers: {
  parent: database
  name: container.id
  properties: {
    resource: union({
      id: container.id
      partitionKey: container.partitionKey
      indexingPolicy: container.indexingPolicy
    }, contains(container, 'defaultTtl') ? { defaultTtl: container.defaultTtl } : {})
  }
}]

resource dataReaders 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-05-15' = [for principalId in readerPrincipalIds: {
  parent: account
  name: guid(account.id, definition.databaseId, principalId, dataReaderRoleDefinitionId)
  properties: {
    principalId: principalId
    roleDefinitionId: '${account.id}/sqlRoleDefinitions/${dataReaderRoleDefinitionId}'
    scope: '${account.id}/dbs/${definition.databaseId}'
  }
}]

resource cursorWriters 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-05-15' = [for principalId in readerPrincipalIds: {
  parent: account
  name: guid(account.id, definition.databaseId, definition.pageCursorsContainerId, principalId, dataContributorRoleDefinitionId)
  properties: {
    principalId: principalId
    roleDefinitionId: '${account.id}/sqlRoleDefinitions/${dataContributorRoleDefinitionId}'
    scope: '${account.id}/dbs/${definition.databaseId}/colls/${definition.pageCursorsContainerId}'
  }
  dependsOn: [
    containers
  ]
}]

// The export jobs (shared/exports/cosmos-export-jobs.ts): jobs, window outcomes, done markers.
resource jobWriters 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-05-15' = [for principalId in readerPrincipalIds: {
  parent: account
  name: guid(account.id, definition.databaseId, definition.exportJobsContainerId, principalId, dataContributorRoleDefinitionId)
  properties: {
    principalId: principalId
    roleDefinitionId: '${account.id}/sqlRoleDefinitions/${dataContributorRoleDefinitionId}'
    scope: '${account.id}/dbs/${definition.databaseId}/colls/${definition.exportJobsContainerId}'
  }
  dependsOn: [
    containers
  ]
}]

// Writers of the whole database (the sandbox's seeding hook): the built-in Data Contributor.
resource dataWriters 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-05-15' = [for principalId in writerPrincipalIds: {
  parent: account
  name: guid(account.id, definition.databaseId, principalId, dataContributorRoleDefinitionId)
  properties: {
    principalId: principalId
    roleDefinitionId: '${account.id}/sqlRoleDefinitions/${dataContributorRoleDefinitionId}'
    scope: '${account.id}/dbs/${definition.databaseId}'
  }
}]

resource accountDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'logs'
  scope: account
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logs: [
      {
        category: 'DataPlaneRequests'
        enabled: true
      }
      {
        category: 'QueryRuntimeStatistics'
        enabled: true
      }
      {
        category: 'ControlPlaneRequests'
        enabled: true
      }
    ]
  }
}

@description('Resource id of the account.')
output resourceId string = account.id

@description('Name of the account.')
output name string = account.name

@description('Endpoint of the account: the value of COSMOS_ENDPOINT.')
output endpoint string = account.properties.documentEndpoint

@description('Name of the database.')
output databaseName string = database.name
