import { z } from 'zod';
import { AZURITE_PORTS, startLocalStack, type LocalStack } from './local-stack.js';
import { walkthrough } from './walkthrough.js';

/** The local stack's own knobs (the service's settings are validated by loadConfig). */
const knobs = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(7071),
  COSMOS_PORT: z.coerce.number().int().min(1).max(65535).default(8081),
  AUTH_PORT: z.coerce.number().int().min(1).max(65535).default(7072),
  AZURITE_BLOB_PORT: z.coerce.number().int().min(1).max(65535).default(AZURITE_PORTS.blob),
  AZURITE_QUEUE_PORT: z.coerce.number().int().min(1).max(65535).default(AZURITE_PORTS.queue),
  AZURITE_TABLE_PORT: z.coerce.number().int().min(1).max(65535).default(AZURITE_PORTS.table),
  SEED_RECORDS: z.coerce.number().int().min(0).max(200_000).default(1500),
});

async function main(): Promise<void> {
  const parsed = knobs.safeParse(process.env);
  if (!parsed.success) {
    console.error(`Invalid local stack setting — ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
    process.exit(1);
  }
  const { PORT, COSMOS_PORT, AUTH_PORT, AZURITE_BLOB_PORT, AZURITE_QUEUE_PORT, AZURITE_TABLE_PORT, SEED_RECORDS } = parsed.data;
  console.log(`Starting the local stack: embedded Cosmos on ${COSMOS_PORT}, identity provider on ${AUTH_PORT}, Azurite on ${AZURITE_BLOB_PORT}–${AZURITE_TABLE_PORT}, service on ${PORT}; seeding ${SEED_RECORDS} records per tenant…`);
  let stack: LocalStack;
  try {
    stack = await startLocalStack({
      port: PORT, cosmosPort: COSMOS_PORT, authPort: AUTH_PORT, seedRecords: SEED_RECORDS,
      azuritePorts: { blob: AZURITE_BLOB_PORT, queue: AZURITE_QUEUE_PORT, table: AZURITE_TABLE_PORT },
    });
  } catch (error) {
    console.error(`The local stack did not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  console.log(walkthrough(stack));
  const stop = () => {
    stack.stop().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

await main();
