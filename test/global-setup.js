// Starts the real local stack once for the whole run — embedded Cosmos server (seeded through the
// SDK), local identity provider, Azurite, gateway and the compiled functions — and tells the test workers
// where it is through the environment. It loads the compiled output (`npm test` builds first), so
// the stack under test is the one `npm start` runs.
import { readFileSync } from 'node:fs';

export default async function globalSetup() {
  // The runtime first: every npm script runs on the project's own Node 22 (the `node` devDependency,
  // first on the scripts' PATH), the Node Azure Functions runs us on, whatever the machine's Node is.
  console.log(`test stack on Node ${process.version}`);
  if (!process.version.startsWith('v22.')) {
    throw new Error(`expected Node 22 (the project's node devDependency), found ${process.version}: run the tests through npm (npm test)`);
  }
  // The exact pin too: where the machine's own Node is also a 22 (CI's setup-node), the major alone
  // would not notice the devDependency's binary missing from the PATH.
  const pinned = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).devDependencies.node;
  if (process.version !== `v${pinned}`) {
    throw new Error(`expected Node ${pinned} (the project's node devDependency), found ${process.version} at ${process.execPath}: run npm ci, then the tests through npm (npm test)`);
  }
  // Loaded only now, so that on a wrong runtime the message above is what the run shows.
  const { startLocalStack } = await import('../dist/dev/local-stack.js');
  const stack = await startLocalStack({
    port: 0,
    cosmosPort: 0,
    authPort: 0,
    azuritePorts: { blob: 0, queue: 0, table: 0 },
    seedRecords: Number(process.env.TEST_SEED_RECORDS ?? 1500),
    // The stack's tenant is every suite's at once (four run at a time): its export job caps are
    // roomy. The caps themselves are tested on tenants of their own, with caps of their own
    // (export-admission.test.ts, export-job-faults.test.ts). These settings reach every test
    // service through the environment.
    settings: { MAX_PAGE_SIZE: '1000', MAX_RESULT_WINDOW: '10000', LOG_REQUESTS: 'false', EXPORT_JOBS_PER_CLIENT: '20', EXPORT_JOBS_PER_TENANT: '40', EXPORT_WINDOWS_PER_TENANT: '1000' },
    logRequest: () => {},
  });
  globalThis.__LOCAL_STACK__ = stack;
  process.env.STACK_BASE_URL = stack.baseUrl;
  process.env.STACK_AUTH_URL = stack.authUrl;
  process.env.STACK_CA_FILE = stack.caFile;
  process.env.STACK_COSMOS_ENDPOINT = stack.cosmos.endpoint;
  process.env.STACK_COSMOS_KEY = stack.cosmos.key;
  process.env.STACK_BLOB_URL = stack.storage.blobUrl;
  process.env.STACK_QUEUE_URL = stack.storage.queueUrl;
  process.env.STACK_SEED_RECORDS = String(Number(process.env.TEST_SEED_RECORDS ?? 1500));
}
