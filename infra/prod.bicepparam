// Production: the production app with its uat slot, and UAT data of its own behind that slot
// (UAT is a slot of this app, not an environment apart). Identifiers and secrets that differ per
// tenant come from the environment of the deployment job (GitHub environment "production": see
// docs/deploy.md); a missing one stops `az bicep build-params` before anything is deployed.
using './main.bicep'

param environmentName = 'prod'

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

// A tier with an SLA in front of production (Developer has none), with the static IP the app admits.
param apiManagementSku = 'Standard'

param planSku = 'EP1'

param cosmosServerless = true

param rateLimit = {
  calls: 600
  renewalPeriodSeconds: 60
}

param tags = {
  environment: 'production'
}
