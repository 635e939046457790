// A sandbox: one developer's copy of production's shape, for trying a change in Azure with
// `azd up` (azure.yaml, docs/deploy.md "A sandbox with azd"). The same templates, so what is tried
// is what ships; it gives up only what costs without teaching anything: an SLA (API Management
// Developer) and the smallest plan. It keeps the plan with slots (EP1: the uat slot exists, as in
// production) and a gateway tier with rate-limit-by-key and a static IP (Consumption has neither:
// the function app could not admit it). Values come from the azd environment (azd passes its
// values as environment variables; `azd env set NAME value` sets one).
using './sandbox.bicep'

param environmentName = readEnvironmentVariable('AZURE_ENV_NAME', 'sandbox')

param location = readEnvironmentVariable('AZURE_LOCATION')

// The developer running azd uploads the packages and seeds the data (azd sets AZURE_PRINCIPAL_ID
// to the signed-in user; the preprovision hook finds the address it runs from).
param principalId = readEnvironmentVariable('AZURE_PRINCIPAL_ID')

param deployerIpAddress = readEnvironmentVariable('SUMMARY_DEPLOYER_IP_ADDRESS')

param apiAppId = readEnvironmentVariable('SUMMARY_API_APP_ID')

param clientRegistry = json(readEnvironmentVariable('SUMMARY_CLIENT_REGISTRY', '{}'))

param uatClientRegistry = json(readEnvironmentVariable('SUMMARY_UAT_CLIENT_REGISTRY', '{}'))

param backendApiKeys = readEnvironmentVariable('SUMMARY_BACKEND_API_KEYS')

param uatBackendApiKeys = readEnvironmentVariable('SUMMARY_UAT_BACKEND_API_KEYS')

param publisherEmail = readEnvironmentVariable('SUMMARY_PUBLISHER_EMAIL')

param apiManagementSku = 'Developer'

param planSku = 'EP1'
