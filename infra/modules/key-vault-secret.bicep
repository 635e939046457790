metadata name = 'Key Vault secret with its readers'
metadata description = 'One secret in an existing Key Vault, and the Key Vault Secrets User role on that secret alone for the identities that read it.'

@description('Required. Name of the existing Key Vault.')
param keyVaultName string

@description('Required. Name of the secret.')
param name string

@description('Required. Value of the secret.')
@secure()
param value string

@description('Required. Principal ids of the identities that may read this secret (and no other).')
param readerPrincipalIds string[]

// Built-in role "Key Vault Secrets User": read secret contents.
var keyVaultSecretsUserRoleDefinitionId = '4633458b-17de-408a-b874-0445c86b69e6'

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

resource secret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: vault
  name: name
  properties: {
    value: value
    contentType: 'text/plain'
  }
}

resource readers 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for principalId in readerPrincipalIds: {
  name: guid(secret.id, principalId, keyVaultSecretsUserRoleDefinitionId)
  scope: secret
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', keyVaultSecretsUserRoleDefinitionId)
  }
}]

@description('Name of the secret.')
output name string = secret.name

@description('URI of the secret without a version, so that a Key Vault reference follows rotation.')
output uri string = secret.properties.secretUri
