#!/usr/bin/env node
// Smoke test of a deployed environment through its gateway, as a client sees it:
//   1. an access token by OAuth 2.0 client credentials (only access_token is used);
//   2. a call without a subscription key is refused by the gateway, with X-Request-ID;
//   3. one JSON call: 200, the envelope, X-Request-ID (the gateway's own id) equal to meta.requestId,
//      and our own id echoed in X-Client-Request-ID;
//   4. one Parquet call: 200, application/vnd.apache.parquet, a PAR1 file.
// Never prints a secret: not the client secret, the keys, the token, nor any request header.
// In GitHub Actions it also masks the token it obtains (the workflow masks the other values).
// test/infra/smoke-test-script.test.ts runs it against the local stack.
//
// Settings (environment):
//   SMOKE_BASE_URL          the gateway base URL (main.bicep output gatewayBaseUrl)
//   SMOKE_AUTHORITY_HOST    identity provider host (default https://login.microsoftonline.com)
//   SMOKE_TENANT_ID         identity tenant id
//   SMOKE_API_APP_ID        the API's application id (scope api://<id>/.default)
//   SMOKE_CLIENT_ID         a client application with the Data.Read role, registered for a data tenant
//   SMOKE_CLIENT_SECRET     its secret
//   SMOKE_SUBSCRIPTION_KEY  a gateway subscription key (the UAT subscription)
//   SMOKE_API_KEY           a backend x-api-key of the slot under test
//   SMOKE_FILTERS           optional JSON body; default: contracts created in the previous calendar month
//   SMOKE_ATTEMPTS          optional; how often to run the checks while they fail (default 1), for a
//                           slot that is still restarting on its new package
//   SMOKE_RETRY_SECONDS     optional; pause between attempts (default 20)

const REQUIRED = ['SMOKE_BASE_URL', 'SMOKE_TENANT_ID', 'SMOKE_API_APP_ID', 'SMOKE_CLIENT_ID', 'SMOKE_CLIENT_SECRET', 'SMOKE_SUBSCRIPTION_KEY', 'SMOKE_API_KEY'];
const env = process.env;
const missing = REQUIRED.filter((name) => !env[name]);
if (missing.length > 0) {
  console.error(`smoke test: missing settings ${missing.join(', ')}`);
  process.exit(2);
}

const baseUrl = env.SMOKE_BASE_URL.replace(/\/+$/, '');
const authorityHost = (env.SMOKE_AUTHORITY_HOST || 'https://login.microsoftonline.com').replace(/\/+$/, '');
const timeoutMs = Number(env.SMOKE_TIMEOUT_MS || 60000);
const attempts = Math.max(1, Number(env.SMOKE_ATTEMPTS || 1));
const retrySeconds = Number(env.SMOKE_RETRY_SECONDS || 20);
let failures = [];

function check(name, ok, details = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${details ? ` (${details})` : ''}`);
  if (!ok) failures.push(name);
}

function previousMonth(now = new Date()) {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0));
  const day = (date) => date.toISOString().slice(0, 10);
  return { createdFrom: day(first), createdTo: day(last) };
}

/** What a response says about itself without echoing anything sent: status, type, id, problem code. */
async function describe(response) {
  const type = response.headers.get('content-type') ?? '';
  let code = '';
  if (type.includes('json')) {
    const body = await response.clone().json().catch(() => ({}));
    code = typeof body.code === 'string' ? ` code ${body.code}` : '';
  }
  return `status ${response.status}, ${type || 'no content type'}, X-Request-ID ${response.headers.get('x-request-id') ?? 'missing'}${code}`;
}

async function token() {
  const response = await fetch(`${authorityHost}/${encodeURIComponent(env.SMOKE_TENANT_ID)}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: env.SMOKE_CLIENT_ID,
      client_secret: env.SMOKE_CLIENT_SECRET,
      scope: `api://${env.SMOKE_API_APP_ID}/.default`,
    }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok || typeof body.access_token !== 'string') {
    // The identity provider's error code only: its description can quote the request.
    check('access token by client credentials', false, `status ${response.status}${typeof body.error === 'string' ? `, ${body.error}` : ''}`);
    return undefined;
  }
  if (env.GITHUB_ACTIONS === 'true') console.log(`::add-mask::${body.access_token}`);
  check('access token by client credentials', true);
  return body.access_token;
}

function call(path, { accessToken, accept, subscriptionKey = env.SMOKE_SUBSCRIPTION_KEY, requestId, body }) {
  const headers = {
    authorization: `Bearer ${accessToken}`,
    'x-api-key': env.SMOKE_API_KEY,
    'content-type': 'application/json',
    accept,
  };
  if (subscriptionKey) headers['ocp-apim-subscription-key'] = subscriptionKey;
  if (requestId) headers['x-request-id'] = requestId;
  return fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
}

async function main() {
  const filters = env.SMOKE_FILTERS ? JSON.parse(env.SMOKE_FILTERS) : previousMonth();
  const accessToken = await token();
  if (accessToken === undefined) return;

  const refused = await call('/v1/contracts/summary', { accessToken, accept: 'application/json', subscriptionKey: '', body: filters });
  check('the gateway refuses a call without a subscription key', refused.status === 401 && refused.headers.has('x-request-id'), await describe(refused));

  const requestId = `smoke-${Date.now()}`;
  const json = await call('/v1/contracts/summary', { accessToken, accept: 'application/json', requestId, body: { ...filters, pageSize: 5 } });
  const envelope = json.ok ? await json.clone().json().catch(() => undefined) : undefined;
  check(
    'JSON: 200 with data, pagination, meta.requestId equal to X-Request-ID, our id in X-Client-Request-ID',
    json.status === 200
      && (json.headers.get('content-type') ?? '').startsWith('application/json')
      && Array.isArray(envelope?.data)
      && typeof envelope?.pagination?.totalRecords === 'number'
      && envelope?.meta?.requestId === json.headers.get('x-request-id')
      && json.headers.get('x-client-request-id') === requestId
      && json.headers.get('x-request-id') !== requestId,
    `${await describe(json)}${Array.isArray(envelope?.data) ? `, ${envelope.data.length} records of ${envelope.pagination?.totalRecords}` : ''}`,
  );

  const parquet = await call('/v1/contracts/summary', { accessToken, accept: 'application/vnd.apache.parquet', body: filters });
  const bytes = parquet.ok ? Buffer.from(await parquet.arrayBuffer()) : Buffer.alloc(0);
  const isParquet = bytes.length >= 8 && bytes.subarray(0, 4).toString('latin1') === 'PAR1' && bytes.subarray(-4).toString('latin1') === 'PAR1';
  check(
    'Parquet: 200, application/vnd.apache.parquet, a PAR1 file',
    parquet.status === 200 && (parquet.headers.get('content-type') ?? '').startsWith('application/vnd.apache.parquet') && isParquet && parquet.headers.has('x-request-id'),
    `${await describe(parquet)}, ${bytes.length} bytes`,
  );
}

for (let attempt = 1; attempt <= attempts; attempt += 1) {
  if (attempt > 1) {
    console.log(`attempt ${attempt} of ${attempts} in ${retrySeconds} s`);
    await new Promise((resolve) => setTimeout(resolve, retrySeconds * 1000));
  }
  failures = [];
  try {
    await main();
  } catch (error) {
    // A network or timeout error: its name and message, never the request.
    check('the gateway answers', false, error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error');
  }
  if (failures.length === 0) break;
}
if (failures.length > 0) {
  console.error(`smoke test failed: ${failures.length} check(s)`);
  process.exit(1);
}
console.log('smoke test passed');
