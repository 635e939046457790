metadata name = 'Elastic Premium plan'
metadata description = 'A Linux Elastic Premium plan for the function app: the Functions plan that supports deployment slots (Flex Consumption has none).'

import { elasticPremiumSkuType } from '../types.bicep'

@description('Required. Name of the plan.')
param name string

@description('Optional. Location of the plan.')
param location string = resourceGroup().location

@description('Optional. Tags of the plan.')
param tags object = {}

@description('Optional. Instance size of the plan.')
param sku elasticPremiumSkuType = 'EP1'

@description('Optional. Largest number of instances the plan scales out to.')
@minValue(1)
@maxValue(100)
param maximumElasticWorkerCount int = 20

resource plan 'Microsoft.Web/serverfarms@2023-12-01' = {
  name: name
  location: location
  tags: tags
  kind: 'elastic'
  sku: {
    name: sku
    tier: 'ElasticPremium'
  }
  properties: {
    reserved: true
    maximumElasticWorkerCount: maximumElasticWorkerCount
  }
}

@description('Resource id of the plan.')
output resourceId string = plan.id

@description('Name of the plan.')
output name string = plan.name
