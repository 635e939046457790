import { resolve } from 'node:path';
import { REFERENCE_PATH } from './reference-page.js';
import type { LocalStack } from './local-stack.js';
import { clientSettings } from './client-settings.js';

/** The Python loader beside the CLI: the same settings, one table (the system tests run these lines). */
const PYTHON_LOADER_INTRO = "Or in Python, in a notebook, one table for the whole range (pip install './python[pandas]': python/README.md):";
export const PYTHON_LOADER = [
  'import summary_client',
  'contracts = summary_client.load_as_pandas("contracts", "2025-01-01", "2025-12-31")',
  'print(contracts.groupby("status").size())',
] as const;

/** Step 4 of the curl walkthrough: an export job (the system tests run its lines). */
export const EXPORT_JOB_INTRO = `# 4. An export job: a whole year as Parquet files in storage (Azurite here), one window per month.
#    It answers 202 and its status URL; ask until 200: the manifest, a read-only URL per file
#    (fetched without our credentials). Here the last file of the manifest, December's.`;

/**
 * The ready-to-paste curl walkthrough printed by `npm start`. It uses the dev identities, whose
 * secrets are obviously fake fixtures; nothing here is a real credential.
 */
export function walkthrough(stack: Pick<LocalStack, 'baseUrl' | 'authUrl' | 'identities' | 'caFile'>): string {
  const { identities } = stack;
  const caFile = resolve(stack.caFile);
  const exports = Object.entries(clientSettings(stack)).map(([name, value]) => `export ${name}=${value}`).join('\n');
  const client = identities.clients.find((candidate) => candidate.name === 'contoso-full') ?? identities.clients[0];
  if (!client) throw new TypeError('dev/identities.json has no clients');
  const headers = [
    '-H "Authorization: Bearer $TOKEN"',
    `-H "Ocp-Apim-Subscription-Key: ${identities.subscriptionKeys[0]}"`,
    `-H "x-api-key: ${identities.apiKeys[0]}"`,
    '-H "Content-Type: application/json"',
  ].join(' \\\n     ');
  return `
Local stack ready.
  base_url  ${stack.baseUrl}
  auth_url  ${stack.authUrl}
  (both https, as API Management and Entra ID are: their certificates are from the local CA ${caFile})
  API docs  ${new URL(REFERENCE_PATH, stack.baseUrl).href}
  clients   ${identities.clients.map((candidate) => candidate.name).join(', ')} (dev/identities.json)

In a second terminal, from the project folder: the settings of the pull client and of docs/examples
(dev client contoso-full; SUMMARY_CA_FILE is the local CA the client trusts):
${exports}

# 1. A year of contracts, one Parquet file per calendar month, with a manifest (run it again: it asks
#    the service's delta what changed since and merges it into the months it touches; --json says which)
npx summary-client pull contracts --from 2025-01-01 --to 2025-12-31 --out pulls/contracts
# 2. The same year of invoices: one folder per table, pulls/invoices/invoices/ and pulls/invoices/invoice_tables/
npx summary-client pull invoices --from 2025-01-01 --to 2025-12-31 --out pulls/invoices
# 3. Query the folders with the DuckDB npm start installed (pyarrow, pandas, polars, Spark: docs/consuming.md)
npm run sql -- "SELECT status, count(*) AS contracts FROM 'pulls/contracts/*.parquet' GROUP BY ALL ORDER BY ALL"

${PYTHON_LOADER_INTRO}
${PYTHON_LOADER.join('\n')}

The same one level down, with curl:
# 1. Get an access token (client credentials; use access_token, never id_token)
TOKEN=$(curl -s --cacert ${caFile} -X POST "${stack.authUrl}/${identities.tenantId}/oauth2/v2.0/token" \\
     -d grant_type=client_credentials -d client_id=${client.clientId} \\
     -d client_secret=${client.clientSecret} -d "scope=api://${identities.appId}/.default" \\
     | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')

# 2. JSON: one page of contracts created in March 2025
curl -s --cacert ${caFile} -X POST "${stack.baseUrl}/v1/contracts/summary" \\
     ${headers} \\
     -H "Accept: application/json" \\
     -d '{"createdFrom":"2025-03-01","createdTo":"2025-03-31","pageSize":5}'

# Dates: From/To are UTC calendar days, both included; a range spans at most one month; no range
# means the whole history. Pull longer periods in calendar months (01–31, then 01–28, …): they
# never overlap. docs/data-model.md, "Dates", says it all once.
# 3. Parquet: the same filters as a file (invoices answer a zip of two Parquet files)
curl -s --cacert ${caFile} -X POST "${stack.baseUrl}/v1/contracts/summary" \\
     ${headers} \\
     -H "Accept: application/vnd.apache.parquet" \\
     -d '{"createdFrom":"2025-03-01","createdTo":"2025-03-31"}' --create-dirs -o pulls/contracts.parquet

${EXPORT_JOB_INTRO}
JOB_URL="${stack.baseUrl}/v1/exports/$(curl -s --cacert ${caFile} -X POST "${stack.baseUrl}/v1/contracts/exports" \\
     ${headers} \\
     -d '{"createdFrom":"2025-01-01","createdTo":"2025-12-31"}' | sed -E 's/^[{]"id":"([0-9a-f]{32})".*/\\1/')"
until [ "$(curl -s --cacert ${caFile} --create-dirs -o pulls/job.json -w '%{http_code}' "$JOB_URL" \\
     ${headers})" = 200 ]; do sleep 1; done
curl -s --cacert ${caFile} "$(sed -E 's/.*"url":"([^"]+)".*/\\1/' pulls/job.json)" -o pulls/contracts-2025-12-job.parquet

Ctrl-C stops everything. One JSON line per request follows.
`;
}
