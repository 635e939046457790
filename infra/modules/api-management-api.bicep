metadata name = 'Summary API in API Management'
metadata description = 'The summary API imported from openapi/openapi.json under a path of the gateway, its policies (policies/*.xml), the named values they use, the two function app backends (production slot and uat slot), two products that require a subscription (production callers, UAT callers), one subscription per registered client application in each, and diagnostics that log neither headers nor bodies.'

import { clientRegistryType, rateLimitType } from '../types.bicep'

@description('Required. Name of the existing API Management instance.')
param serviceName string

@description('Optional. Path of the API on the gateway: base_url is the gateway URL followed by it.')
param apiPath string = 'summary'

@description('Required. Name of the existing function app.')
param functionAppName string

@description('Required. Name of its existing deployment slot that UAT callers reach.')
param slotName string

@description('Required. Host name of the function app production slot.')
param functionAppHostName string

@description('Required. Host name of the function app uat slot.')
param slotHostName string

@description('Required. Identity provider host, without a trailing slash.')
param authorityHost string

@description('Required. Identity tenant id the access tokens must come from.')
param entraTenantId string

@description('Required. Application (client) id of this API\'s app registration: the audience of the access tokens.')
param apiAppId string

@description('Optional. Calls allowed per subscription and client application, and renewal period.')
param rateLimit rateLimitType = {
  calls: 600
  renewalPeriodSeconds: 60
}

@description('Required. Client applications of the production slot (client id to data tenant): each gets a subscription of its own to the production product.')
param clientRegistry clientRegistryType

@description('Required. Client applications of the uat slot: each gets a subscription of its own to the UAT product, whose callers are routed to the uat slot.')
param uatClientRegistry clientRegistryType

@description('Required. Resource id of Application Insights.')
param applicationInsightsResourceId string

@description('Required. Application Insights connection string for the gateway logger.')
param applicationInsightsConnectionString string

// Named values the policy files refer to as {{name}} (test/infra checks that each one exists).
var plainNamedValues = {
  'entra-authority-host': authorityHost
  'entra-tenant-id': entraTenantId
  'summary-api-app-id': apiAppId
  'uat-product-id': uatProductName
  'rate-limit-calls': string(rateLimit.calls)
  'rate-limit-renewal-period': string(rateLimit.renewalPeriodSeconds)
}

// One subscription per client, per product: a client's key can be revoked, and its limits
// counted, on their own.
var uatProductName = 'summary-uat'

// Neither headers nor bodies are logged: they carry tokens, keys and tenant data.
var nothingLogged = {
  headers: []
  body: {
    bytes: 0
  }
}

resource service 'Microsoft.ApiManagement/service@2024-05-01' existing = {
  name: serviceName
}

resource functionApp 'Microsoft.Web/sites@2023-12-01' existing = {
  name: functionAppName
}

resource uatSlot 'Microsoft.Web/sites/slots@2023-12-01' existing = {
  parent: functionApp
  name: slotName
}

resource plainValues 'Microsoft.ApiManagement/service/namedValues@2024-05-01' = [for item in items(plainNamedValues): {
  parent: service
  name: item.key
  properties: {
    displayName: item.key
    value: item.value
    secret: false
  }
}]

// The gateway authenticates to each slot with that slot's default host key (keys are per slot
// and do not move on a swap), sent as x-functions-key by the API policy.
resource functionKey 'Microsoft.ApiManagement/service/namedValues@2024-05-01' = {
  parent: service
  name: 'summary-function-key'
  properties: {
    displayName: 'summary-function-key'
    value: listKeys('${functionApp.id}/host/default', '2023-12-01').functionKeys.default
    secret: true
  }
}

resource uatFunctionKey 'Microsoft.ApiManagement/service/namedValues@2024-05-01' = {
  parent: service
  name: 'summary-function-key-uat'
  properties: {
    displayName: 'summary-function-key-uat'
    value: listKeys('${uatSlot.id}/host/default', '2023-12-01').functionKeys.default
    secret: true
  }
}

resource productionBackend 'Microsoft.ApiManagement/service/backends@2024-05-01' = {
  parent: service
  name: 'summary-function-app'
  properties: {
    description: 'The function app production slot'
    protocol: 'http'
    url: 'https://${functionAppHostName}/api'
    tls: {
      validateCertificateChain: true
      validateCertificateName: true
    }
  }
}

resource uatBackend 'Microsoft.ApiManagement/service/backends@2024-05-01' = {
  parent: service
  name: 'summary-function-app-uat'
  properties: {
    description: 'The function app uat slot'
    protocol: 'http'
    url: 'https://${slotHostName}/api'
    tls: {
      validateCertificateChain: true
      validateCertificateName: true
    }
  }
}

resource api 'Microsoft.ApiManagement/service/apis@2024-05-01' = {
  parent: service
  name: 'summary'
  properties: {
    displayName: 'Contracts and Invoices Summary'
    path: apiPath
    protocols: [
      'https'
    ]
    subscriptionRequired: true
    subscriptionKeyParameterNames: {
      header: 'Ocp-Apim-Subscription-Key'
      query: 'subscription-key'
    }
    format: 'openapi+json'
    // loadJsonContent: the document is past the 131,072 characters loadTextContent takes.
    value: string(loadJsonContent('../../openapi/openapi.json'))
    serviceUrl: 'https://${functionAppHostName}/api'
  }
}

resource apiPolicy 'Microsoft.ApiManagement/service/apis/policies@2024-05-01' = {
  parent: api
  name: 'policy'
  properties: {
    format: 'xml'
    value: loadTextContent('../policies/summary-api.xml')
  }
  dependsOn: [
    plainValues
    functionKey
    uatFunctionKey
    productionBackend
    uatBackend
  ]
}

resource product 'Microsoft.ApiManagement/service/products@2024-05-01' = {
  parent: service
  name: 'summary'
  properties: {
    displayName: 'Contracts and Invoices Summary'
    description: 'Allowlisted summaries of contracts and invoices. Every call needs a subscription key, an Entra ID access token with the Data.Read app role, and a backend API key.'
    subscriptionRequired: true
    approvalRequired: true
    state: 'published'
  }
}

resource uatProduct 'Microsoft.ApiManagement/service/products@2024-05-01' = {
  parent: service
  name: uatProductName
  properties: {
    displayName: 'Contracts and Invoices Summary (UAT)'
    description: 'The UAT deployment of the summary API. Every call needs a subscription key, an Entra ID access token with the Data.Read app role, and a backend API key.'
    subscriptionRequired: true
    approvalRequired: true
    state: 'published'
  }
}

resource productApi 'Microsoft.ApiManagement/service/products/apis@2024-05-01' = {
  parent: product
  name: api.name
}

resource uatProductApi 'Microsoft.ApiManagement/service/products/apis@2024-05-01' = {
  parent: uatProduct
  name: api.name
}

resource clientSubscriptions 'Microsoft.ApiManagement/service/subscriptions@2024-05-01' = [for client in items(clientRegistry): {
  parent: service
  name: 'client-${client.key}'
  properties: {
    displayName: 'Client ${client.key} (${client.value})'
    scope: '/products/${product.name}'
    state: 'active'
    allowTracing: false
  }
}]

resource uatClientSubscriptions 'Microsoft.ApiManagement/service/subscriptions@2024-05-01' = [for client in items(uatClientRegistry): {
  parent: service
  name: 'uat-${client.key}'
  properties: {
    displayName: 'UAT client ${client.key} (${client.value})'
    scope: '/products/${uatProduct.name}'
    state: 'active'
    allowTracing: false
  }
}]

resource logger 'Microsoft.ApiManagement/service/loggers@2024-05-01' = {
  parent: service
  name: 'application-insights'
  properties: {
    loggerType: 'applicationInsights'
    resourceId: applicationInsightsResourceId
    // The gateway's managed identity authenticates the ingestion (local auth is disabled).
    credentials: {
      connectionString: applicationInsightsConnectionString
      identityClientId: 'SystemAssigned'
    }
  }
}

resource apiDiagnostics 'Microsoft.ApiManagement/service/apis/diagnostics@2024-05-01' = {
  parent: api
  name: 'applicationinsights'
  properties: {
    loggerId: logger.id
    alwaysLog: 'allErrors'
    httpCorrelationProtocol: 'W3C'
    verbosity: 'information'
    logClientIp: false
    sampling: {
      samplingType: 'fixed'
      percentage: 100
    }
    frontend: {
      request: nothingLogged
      response: nothingLogged
    }
    backend: {
      request: nothingLogged
      response: nothingLogged
    }
  }
}

@description('Base URL of the API on the gateway: the spec\'s base_url.')
output baseUrl string = '${service.properties.gatewayUrl}/${api.properties.path}'

@description('Name of the API.')
output apiName string = api.name

@description('Name of the product.')
output productName string = product.name

@description('Name of the UAT subscription of each UAT client application, by client id (keys are read with the listSecrets action).')
output uatSubscriptionNames object = toObject(items(uatClientRegistry), client => client.key, client => 'uat-${client.key}')
