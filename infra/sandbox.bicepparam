// A sandbox: one developer's copy of production's shape, for trying a change in Azure (azd, see
// docs/deploy.md). The same templates, so what is tried is what ships; it gives up only what costs
// without teaching anything: an SLA (API Management Developer) and the smallest plan. It keeps the
// plan with slots (EP1: the uat slot exists, as in production) and a gateway tier with
// rate-limit-by-key and a static IP (Consumption has neither: the function app could not admit it).
// Values come from the azd environment (azd passes its values as environment variables).
using './main.bicep'

param environmentName = readEnvironmentVariable('AZURE_ENV_NAME', 'sandbox')

param apiAppId = readEnvironmentVariable('SUMMARY_API_APP_ID')

param clientRegistry = json(readEnvironmentVariable('SUMMARY_CLIENT_REGISTRY', '{}'))

param uatClientRegistry = json(readEnvironmentVariable('SUMMARY_UAT_CLIENT_REGISTRY', '{}'))

param backendApiKeys = readEnvironmentVariable('SUMMARY_BACKEND_API_KEYS')

param uatBackendApiKeys = readEnvironmentVariable('SUMMARY_UAT_BACKEND_API_KEYS')

// The developer running azd uploads the packages (azd sets AZURE_PRINCIPAL_ID to the signed-in user).
param packageUploaderPrincipalId = readEnvironmentVariable('AZURE_PRINCIPAL_ID')

param apiManagementPublisher = {
  name: 'Contracts and Invoices Summary sandbox'
  email: readEnvironmentVariable('SUMMARY_PUBLISHER_EMAIL')
}

param apiManagementSku = 'Developer'

param planSku = 'EP1'

param cosmosServerless = true

param tags = {
  environment: 'sandbox'
}
