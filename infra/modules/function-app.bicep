metadata name = 'Function app with a uat slot'
metadata description = 'A Linux function app (Node 22, Functions v4) on an Elastic Premium plan, with a system-assigned identity, HTTPS only, TLS 1.2 at least, reachable only from the API Management gateway, and a uat deployment slot with its own system-assigned identity. App settings are applied afterwards by function-app-settings.bicep, once the identities hold their role assignments.'

@description('Required. Name of the function app. Keep it at most 28 characters, so that the Functions host id of the slot (the slot host name cut to 32 characters) still differs from the production one.')
@maxLength(28)
param name string

@description('Optional. Location of the function app.')
param location string = resourceGroup().location

@description('Optional. Tags of the function app and its slot.')
param tags object = {}

@description('Required. Resource id of the Elastic Premium plan.')
param appServicePlanId string

@description('Required. Public IP addresses of the API Management gateway: the only callers the app and its slot admit.')
@minLength(1)
param gatewayIpAddresses string[]

@description('Optional. Name of the deployment slot new packages are deployed to and tested in before the swap.')
param slotName string = 'uat'

@description('Required. Resource id of the Log Analytics workspace that receives this resource\'s logs.')
param logAnalyticsWorkspaceId string

// Only the gateway may call the functions (it also sends the function key). The ApiManagement
// service tag would not do: it covers the management plane, not the gateway's outbound address.
var gatewayAccessRules = [for (ipAddress, index) in gatewayIpAddresses: {
  name: 'api-management-gateway-${index}'
  description: 'The API Management gateway'
  action: 'Allow'
  priority: 100 + index
  ipAddress: '${ipAddress}/32'
}]

var siteConfig = {
  linuxFxVersion: 'Node|22'
  minTlsVersion: '1.2'
  scmMinTlsVersion: '1.2'
  ftpsState: 'Disabled'
  http20Enabled: true
  preWarmedInstanceCount: 1
  ipSecurityRestrictions: gatewayAccessRules
  ipSecurityRestrictionsDefaultAction: 'Deny'
  // The deployment endpoint (Kudu) is closed to everyone: the pipeline deploys through the
  // management plane (a package URL in an app setting), never through Kudu, and basic
  // (publishing-profile) credentials are disabled below.
  scmIpSecurityRestrictionsUseMain: false
  scmIpSecurityRestrictionsDefaultAction: 'Deny'
}

resource functionApp 'Microsoft.Web/sites@2023-12-01' = {
  name: name
  location: location
  tags: tags
  kind: 'functionapp,linux'
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    serverFarmId: appServicePlanId
    reserved: true
    httpsOnly: true
    clientAffinityEnabled: false
    publicNetworkAccess: 'Enabled'
    siteConfig: siteConfig
  }
}

resource uatSlot 'Microsoft.Web/sites/slots@2023-12-01' = {
  parent: functionApp
  name: slotName
  location: location
  tags: tags
  kind: 'functionapp,linux'
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    serverFarmId: appServicePlanId
    reserved: true
    httpsOnly: true
    clientAffinityEnabled: false
    publicNetworkAccess: 'Enabled'
    siteConfig: siteConfig
  }
}

resource basicAuthDisabled 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2023-12-01' = [for policy in ['scm', 'ftp']: {
  parent: functionApp
  name: policy
  properties: {
    allow: false
  }
}]

resource slotBasicAuthDisabled 'Microsoft.Web/sites/slots/basicPublishingCredentialsPolicies@2023-12-01' = [for policy in ['scm', 'ftp']: {
  parent: uatSlot
  name: policy
  properties: {
    allow: false
  }
}]


resource functionAppDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'logs'
  scope: functionApp
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logs: [
      {
        category: 'FunctionAppLogs'
        enabled: true
      }
    ]
  }
}

resource slotDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'logs'
  scope: uatSlot
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logs: [
      {
        category: 'FunctionAppLogs'
        enabled: true
      }
    ]
  }
}

@description('Resource id of the function app.')
output resourceId string = functionApp.id

@description('Name of the function app.')
output name string = functionApp.name

@description('Name of the deployment slot.')
output slotName string = uatSlot.name

@description('Principal id of the production slot identity.')
output principalId string = functionApp.identity.principalId

@description('Principal id of the uat slot identity.')
output slotPrincipalId string = uatSlot.identity.principalId

@description('Host name of the production slot.')
output defaultHostName string = functionApp.properties.defaultHostName

@description('Host name of the uat slot.')
output slotDefaultHostName string = uatSlot.properties.defaultHostName

@description('Outbound IP addresses the app may use (comma separated): the data stores admit these.')
output possibleOutboundIpAddresses string = functionApp.properties.possibleOutboundIpAddresses
