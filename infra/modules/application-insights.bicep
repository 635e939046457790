metadata name = 'Application Insights'
metadata description = 'Workspace-based Application Insights for the function app and the gateway. What is sent to it is decided by host.json (no request headers or bodies) and by the gateway diagnostics (no bodies, no headers).'

@description('Required. Name of the Application Insights component.')
param name string

@description('Optional. Location of the component.')
param location string = resourceGroup().location

@description('Optional. Tags of the component.')
param tags object = {}

@description('Required. Resource id of the Log Analytics workspace that stores the telemetry.')
param workspaceResourceId string

resource component 'Microsoft.Insights/components@2020-02-02' = {
  name: name
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: workspaceResourceId
    IngestionMode: 'LogAnalytics'
    DisableIpMasking: false
    // No ingestion with the instrumentation key alone: senders authenticate with Entra ID (the
    // function app slots and the gateway, each with its managed identity), so the connection
    // string in the app settings is no secret.
    DisableLocalAuth: true
  }
}

@description('Resource id of the component.')
output resourceId string = component.id

@description('Name of the component.')
output name string = component.name

@description('Connection string the function app and the gateway logger send telemetry with (an ingestion address, not a secret).')
output connectionString string = component.properties.ConnectionString
