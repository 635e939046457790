metadata name = 'Application Insights publishers'
metadata description = 'Grants the built-in Monitoring Metrics Publisher role on Application Insights to the identities that send telemetry, since the component accepts only Entra ID-authenticated ingestion.'

@description('Required. Name of the existing Application Insights component.')
param applicationInsightsName string

@description('Required. Principal ids that send telemetry (the function app slots, the gateway).')
param publisherPrincipalIds string[]

// Built-in "Monitoring Metrics Publisher": lets an identity ingest telemetry; it grants no read.
var monitoringMetricsPublisherRoleDefinitionId = '3913510d-42f4-4e42-8a64-420c390055eb'

resource component 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource publishers 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for principalId in publisherPrincipalIds: {
  name: guid(component.id, principalId, monitoringMetricsPublisherRoleDefinitionId)
  scope: component
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', monitoringMetricsPublisherRoleDefinitionId)
  }
}]

@description('Number of identities granted the role.')
output publisherCount int = length(publisherPrincipalIds)
