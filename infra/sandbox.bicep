metadata name = 'Contracts and Invoices Summary Data Service: azd sandbox'
metadata description = 'The entry point azd provisions (azure.yaml: infra.module sandbox): a resource group named after the azd environment holding main.bicep, the production shape, plus what only a sandbox has: its deployer may seed the data (built-in Data Contributor on both Cosmos accounts) from the address it runs azd on. Its outputs become azd environment values the hooks read.'

targetScope = 'subscription'

import { apiManagementSkuType, clientRegistryType, elasticPremiumSkuType } from 'types.bicep'

@description('Required. Name of the azd environment (AZURE_ENV_NAME); names the resource group and every resource.')
@minLength(1)
@maxLength(12)
param environmentName string

@description('Required. Location of the resource group and every resource (AZURE_LOCATION).')
param location string

@description('Required. Object id of the signed-in user running azd (AZURE_PRINCIPAL_ID): uploads the packages and seeds the data.')
param principalId string

@description('Required. Public IPv4 address azd runs from (SUMMARY_DEPLOYER_IP_ADDRESS, found by the preprovision hook): let through the Cosmos DB firewall so the postprovision hook can seed.')
param deployerIpAddress string

@description('Required. Application (client) id of the API app registration: the audience of the access tokens.')
param apiAppId string

@description('Required. Client registry of the production slot: client application id to data tenant.')
param clientRegistry clientRegistryType

@description('Required. Client registry of the uat slot: client application id to data tenant.')
param uatClientRegistry clientRegistryType

@description('Required. Backend API keys (x-api-key) the production slot accepts, comma separated.')
@secure()
param backendApiKeys string

@description('Required. Backend API keys (x-api-key) the uat slot accepts, comma separated.')
@secure()
param uatBackendApiKeys string

@description('Required. E-mail address of the API Management publisher.')
param publisherEmail string

@description('Required. Tier of the API Management instance.')
param apiManagementSku apiManagementSkuType

@description('Required. Instance size of the Elastic Premium plan.')
param planSku elasticPremiumSkuType

var abbreviations = loadJsonContent('abbreviations.json')

resource resourceGroup 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: '${abbreviations.resourcesResourceGroups}${environmentName}'
  location: location
  tags: {
    'azd-env-name': environmentName
    environment: 'sandbox'
  }
}

module app 'main.bicep' = {
  name: 'summary-${environmentName}'
  scope: resourceGroup
  params: {
    environmentName: environmentName
    location: location
    tags: {
      environment: 'sandbox'
    }
    apiAppId: apiAppId
    clientRegistry: clientRegistry
    uatClientRegistry: uatClientRegistry
    backendApiKeys: backendApiKeys
    uatBackendApiKeys: uatBackendApiKeys
    packageUploaderPrincipalId: principalId
    dataSeederPrincipalIds: [
      principalId
    ]
    additionalAllowedIpAddresses: [
      deployerIpAddress
    ]
    apiManagementPublisher: {
      name: 'Contracts and Invoices Summary sandbox'
      email: publisherEmail
    }
    apiManagementSku: apiManagementSku
    planSku: planSku
    cosmosServerless: true
  }
}

@description('Resource group of the sandbox: azd deploys into it.')
output AZURE_RESOURCE_GROUP string = resourceGroup.name

@description('Base URL of the API on the gateway: the pull client\'s SUMMARY_BASE_URL.')
output SUMMARY_BASE_URL string = app.outputs.gatewayBaseUrl

@description('Name of the API Management instance (the walkthrough reads a subscription key from it).')
output AZURE_API_MANAGEMENT_NAME string = app.outputs.apiManagementName

@description('Name of the function app: the postprovision hook points both slots at the package.')
output AZURE_FUNCTION_APP_NAME string = app.outputs.functionAppName

@description('Name of the function app\'s deployment slot.')
output AZURE_FUNCTION_APP_SLOT_NAME string = app.outputs.functionAppSlotName

@description('URL of the blob container the postprovision hook uploads the package to.')
output AZURE_PACKAGE_CONTAINER_URL string = app.outputs.packageContainerUrl

@description('Cosmos DB endpoint of the production slot\'s data: the postprovision hook seeds it.')
output AZURE_COSMOS_ENDPOINT string = app.outputs.cosmosEndpoint

@description('Cosmos DB endpoint of the uat slot\'s data: the postprovision hook seeds it too.')
output AZURE_UAT_COSMOS_ENDPOINT string = app.outputs.uatCosmosEndpoint
