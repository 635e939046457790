metadata name = 'Log Analytics workspace'
metadata description = 'The workspace Application Insights stores its telemetry in.'

@description('Required. Name of the workspace.')
param name string

@description('Optional. Location of the workspace.')
param location string = resourceGroup().location

@description('Optional. Tags of the workspace.')
param tags object = {}

@description('Optional. Days the telemetry is kept.')
@minValue(30)
@maxValue(730)
param retentionInDays int = 30

resource workspace 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: retentionInDays
    features: {
      enableLogAccessUsingOnlyResourcePermissions: true
    }
  }
}

@description('Resource id of the workspace.')
output resourceId string = workspace.id

@description('Name of the workspace.')
output name string = workspace.name
