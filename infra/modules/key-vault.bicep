metadata name = 'Key Vault'
metadata description = 'A Key Vault with Azure RBAC authorization (no access policies) that holds the backend API keys; the function app settings reference its secrets.'

@description('Required. Name of the vault (3-24 characters).')
@minLength(3)
@maxLength(24)
param name string

@description('Optional. Location of the vault.')
param location string = resourceGroup().location

@description('Optional. Tags of the vault.')
param tags object = {}

@description('Required. IP addresses or CIDR ranges allowed through the firewall (the function app\'s outbound addresses, and any the platform engineers add); everything else is denied.')
param allowedIpAddresses string[]

@description('Required. Resource id of the Log Analytics workspace that receives this resource\'s logs.')
param logAnalyticsWorkspaceId string

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    tenantId: tenant().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    enablePurgeProtection: true
    publicNetworkAccess: 'Enabled'
    // Firewalled: the function app's outbound addresses resolve the Key Vault references; Azure
    // Resource Manager writes the secrets during deployment (trusted services).
    networkAcls: {
      defaultAction: 'Deny'
      bypass: 'AzureServices'
      ipRules: map(allowedIpAddresses, address => {
        value: address
      })
    }
  }
}


resource vaultDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'logs'
  scope: vault
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logs: [
      {
        category: 'AuditEvent'
        enabled: true
      }
    ]
  }
}

@description('Resource id of the vault.')
output resourceId string = vault.id

@description('Name of the vault.')
output name string = vault.name

@description('URI of the vault, ending with a slash.')
output uri string = vault.properties.vaultUri
