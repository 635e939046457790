// UAT values of main.bicep. Identifiers and secrets that differ per tenant come from the
// environment of the deployment job (GitHub environment "uat": see docs/deploy.md); a missing one
// stops `az bicep build-params` before anything is deployed.
using './main.bicep'

param environmentName = 'uat'

param apiAppId = readEnvironmentVariable('SUMMARY_API_APP_ID')

param clientRegistry = json(readEnvironmentVariable('SUMMARY_CLIENT_REGISTRY'))

param uatClientRegistry = json(readEnvironmentVariable('SUMMARY_UAT_CLIENT_REGISTRY'))

param backendApiKeys = readEnvironmentVariable('SUMMARY_BACKEND_API_KEYS')

param uatBackendApiKeys = readEnvironmentVariable('SUMMARY_UAT_BACKEND_API_KEYS')

param packageUploaderPrincipalId = readEnvironmentVariable('SUMMARY_UAT_DEPLOYER_PRINCIPAL_ID')

param apiManagementPublisher = {
  name: 'Contracts and Invoices Summary team'
  email: readEnvironmentVariable('SUMMARY_PUBLISHER_EMAIL')
}

param apiManagementSku = 'Developer'

param planSku = 'EP1'

param cosmosServerless = true

param rateLimit = {
  calls: 600
  renewalPeriodSeconds: 60
}

param tags = {
  environment: 'uat'
}
