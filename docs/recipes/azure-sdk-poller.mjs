// An export job driven to its manifest by the Azure SDK's own parts, used as their docs show:
// - @azure-rest/core-client's getClient: the SDKs' standard pipeline (bearer token policy over a
//   TokenCredential, retries with Retry-After, request ids). Its bearer policy sends a token over
//   https only, which is why the local stack is https;
// - @azure/identity's ClientSecretCredential for the token (client credentials);
// - @azure/core-lro's createHttpPoller: the long-running-operation poller of every Azure SDK,
//   which follows the kick-off's Location and its Retry-After until the status answers 200.
// The two keys are plain request headers: no custom policy.
//
//   node docs/recipes/azure-sdk-poller.mjs contracts 2025-01-01 2025-12-31     (prints the manifest)
//
// With the settings `npm start` prints (SUMMARY_*); against the local stack also
// NODE_EXTRA_CA_CERTS=.local/ca.pem for this one command. Against Azure leave
// SUMMARY_AUTHORITY_HOST and NODE_EXTRA_CA_CERTS unset. Run by `npm test`
// (test/e2e/azure-sdk-recipes.test.ts).
import { getClient } from '@azure-rest/core-client';
import { createHttpPoller } from '@azure/core-lro';
import { ClientSecretCredential } from '@azure/identity';

const env = (name) => process.env[name] || fail(`set ${name} (npm start prints the dev values)`);
function fail(message) {
  console.error(message);
  process.exit(2);
}

const [dataset, createdFrom, createdTo] = process.argv.slice(2);
if (!['contracts', 'invoices'].includes(dataset) || !createdFrom || !createdTo) fail('usage: azure-sdk-poller.mjs contracts|invoices FROM TO (YYYY-MM-DD)');

const credential = new ClientSecretCredential(env('SUMMARY_TENANT_ID'), env('SUMMARY_CLIENT_ID'), env('SUMMARY_CLIENT_SECRET'), {
  authorityHost: process.env.SUMMARY_AUTHORITY_HOST || 'https://login.microsoftonline.com',
  disableInstanceDiscovery: Boolean(process.env.SUMMARY_AUTHORITY_HOST),
});
const client = getClient(env('SUMMARY_BASE_URL'), credential, { credentials: { scopes: [env('SUMMARY_SCOPE')] } });
const headers = { 'Ocp-Apim-Subscription-Key': env('SUMMARY_SUBSCRIPTION_KEY'), 'x-api-key': env('SUMMARY_API_KEY') };

/** A REST client's answer as core-lro reads it; a problem (4xx, 5xx) stops the poller with its code and detail. */
function forPoller(response) {
  if (!/^2/.test(response.status)) {
    const problem = response.body ?? {};
    throw new Error(`the service answered ${response.status} ${problem.code ?? ''}: ${problem.detail ?? ''}`);
  }
  return { flatResponse: response.body, rawResponse: { statusCode: Number(response.status), headers: response.headers, body: response.body } };
}

const path = `/v1/${dataset}/exports`;
const stop = (error) => fail(`the job did not complete: ${error.message}`);
const poller = await createHttpPoller({
  requestMethod: 'POST',
  requestPath: path,
  sendInitialRequest: async () => forPoller(await client.path(path).post({ headers, body: { createdFrom, createdTo } })),
  // The status URL is the kick-off's Location, absolute: the client sends it as it is.
  sendPollRequest: async (statusUrl) => forPoller(await client.pathUnchecked(statusUrl).get({ headers })),
}, { resourceLocationConfig: 'location' }).catch(stop);
const manifest = await poller.pollUntilDone().catch(stop);
console.log(JSON.stringify(manifest));
