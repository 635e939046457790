import { DATABASE_ID, resourceNamed } from '../../shared/model/resources.js';
import { directStore } from './stack.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;
const cache = new Map<string, Promise<Doc[]>>();

/** Every stored document of a tenant, read straight from the embedded server (cached per file). */
export function storeRecords(resource: string, tenant: string): Promise<Doc[]> {
  const key = `${resource}/${tenant}`;
  let pending = cache.get(key);
  if (!pending) {
    const client = directStore();
    pending = client.database(DATABASE_ID).container(resourceNamed(resource).containerId).items
      .query<Doc>({ query: 'SELECT * FROM c WHERE c.tenantId = @t', parameters: [{ name: '@t', value: tenant }] }, { partitionKey: [tenant] })
      .fetchAll()
      .then((result) => result.resources)
      .finally(() => client.dispose());
    cache.set(key, pending);
  }
  return pending;
}
