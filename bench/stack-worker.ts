import { startLocalStack } from '../dev/local-stack.js';
import { requestTokens } from '../dev/request-tokens.js';
import { BENCH_CLIENT } from './full-view.js';

/** What the load generator needs to call the stack with all three credentials. */
export interface StackTarget {
  readonly baseUrl: string;
  readonly token: string;
  readonly subscriptionKey: string;
  readonly apiKey: string;
}

/**
 * Runs the local stack (free loopback ports, default seed, no per-request logging) in its own
 * process, so the load generator does not share its event loop; stops on the parent's 'stop'.
 */
async function main(): Promise<void> {
  const stack = await startLocalStack({ port: 0, cosmosPort: 0, authPort: 0, settings: { LOG_REQUESTS: 'false' }, logRequest: () => {} });
  const stop = async () => {
    await stack.stop();
    process.exit(0);
  };
  process.on('message', (message) => {
    if (message === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
  const target: StackTarget = {
    baseUrl: stack.baseUrl,
    token: (await requestTokens(stack.authUrl, stack.identities, BENCH_CLIENT)).access_token,
    subscriptionKey: stack.identities.subscriptionKeys[0]!,
    apiKey: stack.identities.apiKeys[0]!,
  };
  process.send!({ ok: true, result: target });
}

main().catch((error: unknown) => {
  process.send?.({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
