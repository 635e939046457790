/**
 * `npm run record -- contracts '{"contractId":"CT-CONTOSO-000001","title":"Renamed"}'`: adds or
 * changes one record in the running local stack's store, through the real Cosmos SDK, as the
 * system that owns the data would. The store is in memory (`npm start` seeds it again on every
 * start), so this is how to try a change: write, then run a pull and watch it arrive.
 *
 * The JSON names the record by its id field (`contractId`, `invoiceId`). An existing record keeps
 * its other values and gets `updatedDate` now (unless given); a new one starts from a copy of the
 * tenant's first record, created now. `--tenant` picks the data tenant (default contoso);
 * COSMOS_ENDPOINT points at another store (default https://127.0.0.1:${COSMOS_PORT:-8081}).
 */
import { parseArgs } from 'node:util';
import { createCosmosClient } from '../shared/store/create-cosmos-client.js';
import { storeErrorText } from '../shared/store/store-fault.js';
import { TENANT_FIELD } from '../shared/model/resource-definition.js';
import { DATABASE_ID, RESOURCES } from '../shared/model/resources.js';
import { LOCAL_COSMOS_KEY } from './cosmos-server.js';

const USAGE = `usage: npm run record -- <${RESOURCES.map((resource) => resource.name).join('|')}> '<JSON>' [--tenant contoso]
  for example: npm run record -- contracts '{"contractId":"CT-CONTOSO-000001","title":"Renamed"}'`;

type Document = Record<string, unknown> & { id: string; tenantId: string };

/** The document written: `given` over the stored record of its id, or over a copy of the tenant's first. */
function recordToWrite(given: Record<string, unknown>, idField: string, tenant: string, stored: Document | undefined, template: Document | undefined, now: string): Document {
  const id = given[idField];
  if (typeof id !== 'string' || id === '') throw new Error(`the JSON must name the record by ${idField} (a string)`);
  if (stored) return { ...stored, updatedDate: now, ...given, id, [TENANT_FIELD]: tenant };
  if (!template) throw new Error(`the tenant ${tenant} has no record to start a new one from`);
  return { ...template, createdDate: now, updatedDate: now, ...given, id, [TENANT_FIELD]: tenant };
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { tenant: { type: 'string', default: 'contoso' } } });
  const [name, json] = positionals;
  const resource = RESOURCES.find((candidate) => candidate.name === name);
  if (!resource || json === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let given: unknown;
  try {
    given = JSON.parse(json);
  } catch {
    process.stderr.write(`the record is not JSON: ${json}\n${USAGE}\n`);
    return 2;
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    process.stderr.write(`the record must be a JSON object\n${USAGE}\n`);
    return 2;
  }
  const tenant = values.tenant!;
  const endpoint = process.env.COSMOS_ENDPOINT ?? `https://127.0.0.1:${process.env.COSMOS_PORT ?? '8081'}`;
  const client = createCosmosClient({ endpoint, key: LOCAL_COSMOS_KEY, allowSelfSignedTls: true });
  try {
    const container = client.database(DATABASE_ID).container(resource.containerId);
    const id = (given as Record<string, unknown>)[resource.idField];
    const query = (where: string, parameters: { name: string; value: string }[]) => container.items.query<Document>({ query: `SELECT * FROM c WHERE c.${TENANT_FIELD} = @tenant${where}`, parameters: [{ name: '@tenant', value: tenant }, ...parameters] }, { partitionKey: [tenant], maxItemCount: 1 }).fetchNext();
    const stored = typeof id === 'string' ? (await query(' AND c.id = @id', [{ name: '@id', value: id }])).resources[0] : undefined;
    const template = stored ? undefined : (await query('', [])).resources[0];
    const document = recordToWrite(given as Record<string, unknown>, resource.idField, tenant, stored, template, new Date().toISOString());
    await container.items.upsert(document);
    process.stdout.write(`${stored ? 'changed' : 'added'} ${resource.name} ${document.id} of ${tenant} (createdDate ${String(document.createdDate)}, updatedDate ${String(document.updatedDate)})\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`cannot write to the store at ${endpoint}: ${storeErrorText(error)} (is npm start running?)\n`);
    return 1;
  } finally {
    client.dispose();
  }
}

process.exitCode = await main();
