// A token from the identity provider through @azure/identity, then one page of contracts.
// Against the local stack (npm start), trust its CA and read the dev settings `npm start` prints:
//   NODE_EXTRA_CA_CERTS=.local/ca.pem node docs/examples/azure-identity.mjs
// Against Azure, leave SUMMARY_AUTHORITY_HOST unset (Entra's public cloud) and NODE_EXTRA_CA_CERTS too.
import { ClientSecretCredential } from '@azure/identity';

const env = (name) => process.env[name] || fail(`set ${name} (npm start prints the dev values)`);
function fail(message) {
  console.error(message);
  process.exit(2);
}

const credential = new ClientSecretCredential(env('SUMMARY_TENANT_ID'), env('SUMMARY_CLIENT_ID'), env('SUMMARY_CLIENT_SECRET'), {
  authorityHost: process.env.SUMMARY_AUTHORITY_HOST || 'https://login.microsoftonline.com',
  // Instance discovery asks login.microsoftonline.com about the authority: off for any other host.
  disableInstanceDiscovery: Boolean(process.env.SUMMARY_AUTHORITY_HOST),
});
const { token } = await credential.getToken(env('SUMMARY_SCOPE')).catch((error) => fail(`no token: ${error.message}`));

const response = await fetch(`${env('SUMMARY_BASE_URL')}/v1/contracts/summary`, {
  method: 'POST',
  headers: {
    authorization: `Bearer ${token}`,
    'ocp-apim-subscription-key': env('SUMMARY_SUBSCRIPTION_KEY'),
    'x-api-key': env('SUMMARY_API_KEY'),
    'content-type': 'application/json',
    accept: 'application/json',
  },
  body: JSON.stringify({ pageSize: 1 }),
});
if (!response.ok) fail(`the service answered ${response.status}: ${await response.text()}`);
const page = await response.json();
console.log(`${page.pagination.totalRecords} contracts in the tenant; the first is ${page.data[0]?.contractId ?? 'none'}`);
