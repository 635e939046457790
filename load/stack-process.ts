import { startLocalStack } from '../dev/local-stack.js';
import { requestTokens } from '../dev/request-tokens.js';

/** What the load driver gets from the stack process. */
export interface LoadTarget {
  readonly baseUrl: string;
  readonly tokens: Readonly<Record<string, string>>;
  readonly subscriptionKey: string;
  readonly apiKey: string;
}

const CLIENTS = ['contoso-full', 'contoso-basic', 'fabrikam-full', 'contoso-norole'];

/**
 * The local stack in a process of its own (run with --expose-gc), so its memory can be read
 * apart from the load generator's: it answers 'rss' with its RSS after a full collection.
 */
async function main(): Promise<void> {
  // A smaller seed than npm start's: the embedded store's query engine, not the service, bounds throughput.
  const stack = await startLocalStack({ port: 0, cosmosPort: 0, authPort: 0, seedRecords: Number(process.env.LOAD_SEED_RECORDS ?? 500), settings: { LOG_REQUESTS: 'false' }, logRequest: () => {} });
  const tokens: Record<string, string> = {};
  for (const name of CLIENTS) tokens[name] = (await requestTokens(stack.authUrl, stack.identities, name)).access_token;
  process.on('message', (message) => {
    if (message === 'rss') {
      (globalThis as { gc?: () => void }).gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      process.send!({ rss, heapUsed });
    } else if (message === 'stop') {
      void stack.stop().then(() => process.exit(0));
    }
  });
  process.on('disconnect', () => void stack.stop().then(() => process.exit(0)));
  const target: LoadTarget = { baseUrl: stack.baseUrl, tokens, subscriptionKey: stack.identities.subscriptionKeys[0]!, apiKey: stack.identities.apiKeys[0]! };
  process.send!({ ready: target });
}

main().catch((error: unknown) => {
  process.send?.({ failed: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
