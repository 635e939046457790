import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Same rule as the service's CLIENT_REGISTRY, so a dev registry always passes loadConfig.
const DATA_TENANT = /^[a-z0-9][a-z0-9-]{0,62}$/;
// Free-form app role names (Entra allows any); unknown roles are legal so tests can send them.
const ROLE = /^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z0-9]+)*$/;

/**
 * Every secret in the committed file must look fake at a glance. Requiring the `dev-` prefix
 * stops a real secret from being pasted in by mistake and then committed.
 */
const fakeSecret = z
  .string()
  .min(16, 'must be at least 16 characters (the service rejects shorter keys)')
  .regex(/^dev-/, 'must start with "dev-" so it is obviously not a real secret');

const clientSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'names are kebab-case'),
  clientId: z.string().regex(GUID, 'must be a GUID'),
  clientSecret: fakeSecret,
  /** `null` marks a client the identity provider knows but the service must not register. */
  dataTenant: z.string().regex(DATA_TENANT, 'data tenants are lower-case names').nullable(),
  roles: z.array(z.string().regex(ROLE, 'must be an app role name such as Data.Read')),
});

const identitiesSchema = z
  .object({
    tenantId: z.string().regex(GUID, 'must be the identity tenant GUID'),
    appId: z.string().regex(GUID, 'must be the API application id GUID'),
    subscriptionKeys: z.array(fakeSecret).min(1),
    apiKeys: z.array(fakeSecret).min(1),
    clients: z.array(clientSchema).min(1),
  })
  .strict()
  .superRefine((ids, ctx) => {
    // Duplicates would make lookups by name or id ambiguous in tests.
    for (const key of ['name', 'clientId'] as const) {
      const seen = new Set<string>();
      ids.clients.forEach((client, index) => {
        const value = client[key].toLowerCase();
        if (seen.has(value)) ctx.addIssue({ code: 'custom', path: ['clients', index, key], message: 'must be unique' });
        seen.add(value);
      });
    }
    ids.clients.forEach((client, index) => {
      if (new Set(client.roles).size !== client.roles.length) {
        ctx.addIssue({ code: 'custom', path: ['clients', index, 'roles'], message: 'must not repeat a role' });
      }
    });
  });

/** One OAuth client known to the dev identity provider. */
export type DevClient = Readonly<Omit<z.infer<typeof clientSchema>, 'roles'>> & { readonly roles: readonly string[] };

/** The dev identities: identity tenant, API app id, gateway/backend keys and OAuth clients (all fake). */
export interface DevIdentities {
  readonly tenantId: string;
  readonly appId: string;
  readonly subscriptionKeys: readonly string[];
  readonly apiKeys: readonly string[];
  readonly clients: readonly DevClient[];
}

/**
 * Reads and validates `dev/identities.json`, returning a frozen copy.
 *
 * @param path - File to read; defaults to the `identities.json` next to this module's source.
 * @throws Error naming the file and every invalid field when the file is missing or malformed.
 */
export function loadDevIdentities(path: string = defaultPath()): DevIdentities {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read dev identities from ${path}: ${(error as Error).message}`);
  }
  const parsed = identitiesSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'file'}: ${issue.message}`);
    throw new Error(`Invalid dev identities in ${path} — ${problems.join('; ')}`);
  }
  return deepFreeze(parsed.data);
}

/**
 * The dev client that is the service's own identity locally: the only one the local identity
 * provider gives storage tokens, as in Azure only the service's managed identity holds a role on
 * the export storage.
 */
export const SERVICE_IDENTITY = 'summary-service';

/**
 * The service's client registry (client id → data tenant) for these identities. Clients whose
 * `dataTenant` is `null` are left out on purpose: `unregistered-app` proves unregistered apps are
 * refused, and `summary-service` is the service's own identity (its storage tokens), never a caller.
 */
export function clientRegistry(ids: DevIdentities): Readonly<Record<string, string>> {
  const entries = ids.clients.flatMap((client) => (client.dataTenant === null ? [] : [[client.clientId, client.dataTenant] as const]));
  return Object.freeze(Object.fromEntries(entries));
}

function defaultPath(): string {
  const beside = fileURLToPath(new URL('./identities.json', import.meta.url));
  // tsc does not copy the JSON into dist/dev/, so the compiled module reads the source copy.
  return existsSync(beside) ? beside : fileURLToPath(new URL('../../dev/identities.json', import.meta.url));
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
