metadata name = 'API Management service'
metadata description = 'The API Management instance that is the only way in: callers use its gateway, and the function app admits only its public IP address.'

import { apiManagementPublisherType, apiManagementSkuType } from '../types.bicep'

@description('Required. Name of the API Management instance.')
param name string

@description('Optional. Location of the instance.')
param location string = resourceGroup().location

@description('Optional. Tags of the instance.')
param tags object = {}

@description('Optional. Tier of the instance (one with a static public IP address).')
param sku apiManagementSkuType = 'Developer'

@description('Optional. Scale units of the instance (Developer allows 1).')
@minValue(1)
param capacity int = 1

@description('Required. Publisher shown by the instance.')
param publisher apiManagementPublisherType

@description('Required. Resource id of the Log Analytics workspace that receives this resource\'s logs.')
param logAnalyticsWorkspaceId string

resource service 'Microsoft.ApiManagement/service@2024-05-01' = {
  name: name
  location: location
  tags: tags
  sku: {
    name: sku
    capacity: capacity
  }
  // Its identity sends the gateway's telemetry to Application Insights (local auth is disabled there).
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    publisherName: publisher.name
    publisherEmail: publisher.email
  }
}


resource serviceDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'logs'
  scope: service
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logs: [
      {
        category: 'GatewayLogs'
        enabled: true
      }
    ]
  }
}

@description('Resource id of the instance.')
output resourceId string = service.id

@description('Name of the instance.')
output name string = service.name

@description('Gateway URL of the instance, without a trailing slash.')
output gatewayUrl string = service.properties.gatewayUrl

@description('Public IP addresses the gateway calls backends from.')
output publicIpAddresses string[] = service.properties.publicIPAddresses

@description('Principal id of the instance\'s system-assigned identity.')
output principalId string = service.identity.principalId
