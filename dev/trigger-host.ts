/**
 * What the Azure Functions host does for our queue and timer triggers, locally: it polls each
 * trigger's queue with the real @azure/storage-queue SDK (base64 JSON messages, a lease while the
 * function runs, the message deleted when it succeeds and visible again after `visibilityTimeout`
 * when it fails, moved to `<queue>-poison` after `maxDequeueCount` deliveries), and runs each timer
 * on its NCRONTAB schedule. The queue settings are host.json's, as in Azure.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import azureFunctions from '@azure/functions';
import { ClientSecretCredential } from '@azure/identity';
import { QueueServiceClient, type QueueClient } from '@azure/storage-queue';
import type { QueueRegistration, TimerRegistration } from '../shared/app/export-functions.js';
import { projectRoot } from './project-root.js';

/** host.json's `extensions.queues`, as numbers. */
export interface QueueSettings {
  readonly maxDequeueCount: number;
  readonly visibilityTimeoutSeconds: number;
  readonly maxPollingIntervalMs: number;
  readonly batchSize: number;
}

/** Options of the local trigger host. */
export interface TriggerHostOptions {
  readonly queues: readonly QueueRegistration[];
  readonly timers: readonly TimerRegistration[];
  /**
   * The app settings a trigger's connection is read from, as the Functions host reads an
   * identity-based one: `<connection>__queueServiceUri`, and locally `__tenantId`, `__clientId`,
   * `__clientSecret` (the token comes from AUTH_AUTHORITY_HOST, the local identity provider).
   */
  readonly settings: Readonly<Record<string, string | undefined>>;
  /** Over host.json's (tests poll faster). */
  readonly queueSettings?: Partial<QueueSettings>;
  /** Where the host's own lines go (a failed invocation, a poisoned message). */
  readonly log?: (line: string) => void;
}

/** A running trigger host. */
export interface TriggerHost {
  /** Stops polling and timers; resolves once the invocations under way have ended. */
  stop(): Promise<void>;
}

/** How long a received message stays invisible while its function runs (the host renews its lease; one long lease here). */
const LEASE_SECONDS = 600;
const MIN_POLL_MS = 100;

/** host.json's queue settings, with the Functions host's defaults for those it leaves out. */
export function hostQueueSettings(hostJson = JSON.parse(readFileSync(`${projectRoot()}/host.json`, 'utf8')) as { extensions?: { queues?: Record<string, unknown> } }): QueueSettings {
  const queues = hostJson.extensions?.queues ?? {};
  return {
    maxDequeueCount: typeof queues.maxDequeueCount === 'number' ? queues.maxDequeueCount : 5,
    visibilityTimeoutSeconds: typeof queues.visibilityTimeout === 'string' ? timeSpanSeconds(queues.visibilityTimeout) : 0,
    maxPollingIntervalMs: typeof queues.maxPollingInterval === 'string' ? timeSpanSeconds(queues.maxPollingInterval) * 1000 : 60_000,
    batchSize: typeof queues.batchSize === 'number' ? queues.batchSize : 16,
  };
}

/** Starts polling every queue trigger's queue and every timer. */
export function startTriggerHost(options: TriggerHostOptions): TriggerHost {
  const settings = { ...hostQueueSettings(), ...options.queueSettings };
  const log = options.log ?? ((line: string) => console.error(line));
  const stopping = new AbortController();
  const loops = options.queues.map((registration) => pollQueue(registration, queueService(options.settings, registration.options.connection), settings, log, stopping.signal));
  const timers = options.timers.map((registration) => {
    const every = intervalOf(registration.options.schedule);
    return setInterval(() => {
      const context = new azureFunctions.InvocationContext({ functionName: registration.name, logHandler: () => {} });
      Promise.resolve(registration.options.handler({ isPastDue: false, scheduleStatus: {} } as never, context)).catch((error: unknown) => log(JSON.stringify({ level: 'error', function: registration.name, error: error instanceof Error ? error.name : 'unknown' })));
    }, every).unref();
  });
  return {
    async stop() {
      stopping.abort();
      for (const timer of timers) clearInterval(timer);
      await Promise.allSettled(loops);
    },
  };
}

function queueService(settings: Readonly<Record<string, string | undefined>>, connection: string | undefined): QueueServiceClient {
  const setting = (name: string) => settings[`${connection}__${name}`];
  const uri = setting('queueServiceUri');
  const [tenantId, clientId, clientSecret] = [setting('tenantId'), setting('clientId'), setting('clientSecret')];
  if (!uri || !tenantId || !clientId || !clientSecret || !settings.AUTH_AUTHORITY_HOST) throw new TypeError(`the local trigger host needs ${connection}__queueServiceUri, __tenantId, __clientId and __clientSecret, and AUTH_AUTHORITY_HOST`);
  return new QueueServiceClient(uri, new ClientSecretCredential(tenantId, clientId, clientSecret, { authorityHost: settings.AUTH_AUTHORITY_HOST, disableInstanceDiscovery: true }));
}

async function pollQueue(registration: QueueRegistration, service: QueueServiceClient, settings: QueueSettings, log: (line: string) => void, signal: AbortSignal): Promise<void> {
  const { queueName, handler } = registration.options;
  const queue = service.getQueueClient(queueName);
  const poison = service.getQueueClient(`${queueName}-poison`);
  let wait = MIN_POLL_MS;
  const running = new Set<Promise<void>>();
  while (!signal.aborted) {
    let received: ReceivedMessage[];
    try {
      received = (await queue.receiveMessages({ numberOfMessages: Math.max(1, settings.batchSize - running.size), visibilityTimeout: LEASE_SECONDS })).receivedMessageItems;
    } catch (error) {
      // Storage away (a test stopped it): poll again later, as the host does.
      log(JSON.stringify({ level: 'warn', function: registration.name, warning: `polling ${queueName} failed (${error instanceof Error ? error.name : 'unknown'})` }));
      received = [];
    }
    for (const message of received) {
      const invocation = invoke(registration, handler, queue, poison, message, settings, log).finally(() => running.delete(invocation));
      running.add(invocation);
    }
    if (received.length > 0 && running.size < settings.batchSize) {
      wait = MIN_POLL_MS;
      continue;
    }
    await sleep(received.length > 0 ? MIN_POLL_MS : wait, undefined, { signal }).catch(() => {});
    if (received.length === 0) wait = Math.min(wait * 2, settings.maxPollingIntervalMs);
  }
  await Promise.allSettled(running);
}

type ReceivedMessage = Awaited<ReturnType<QueueClient['receiveMessages']>>['receivedMessageItems'][number];

async function invoke(registration: QueueRegistration, handler: QueueRegistration['options']['handler'], queue: QueueClient, poison: QueueClient, message: ReceivedMessage, settings: QueueSettings, log: (line: string) => void): Promise<void> {
  const toPoison = async () => {
    await poison.createIfNotExists();
    await poison.sendMessage(message.messageText);
    await queue.deleteMessage(message.messageId, message.popReceipt);
    log(JSON.stringify({ level: 'warn', function: registration.name, warning: `message ${message.messageId} moved to ${poison.name} after ${message.dequeueCount} deliveries` }));
  };
  try {
    if (message.dequeueCount > settings.maxDequeueCount) return await toPoison();
    const context = new azureFunctions.InvocationContext({
      functionName: registration.name,
      logHandler: () => {},
      triggerMetadata: { id: message.messageId, dequeueCount: message.dequeueCount, insertionTime: message.insertedOn, popReceipt: message.popReceipt },
    });
    try {
      await handler(decode(message.messageText), context);
    } catch (error) {
      log(JSON.stringify({ level: 'error', function: registration.name, error: error instanceof Error ? error.name : 'unknown', dequeueCount: message.dequeueCount }));
      if (message.dequeueCount >= settings.maxDequeueCount) return await toPoison();
      await queue.updateMessage(message.messageId, message.popReceipt, undefined, settings.visibilityTimeoutSeconds);
      return;
    }
    await queue.deleteMessage(message.messageId, message.popReceipt);
  } catch (error) {
    // Storage failed under the host itself: the message comes back when its lease ends.
    log(JSON.stringify({ level: 'warn', function: registration.name, warning: `settling message ${message.messageId} failed (${error instanceof Error ? error.name : 'unknown'})` }));
  }
}

/** As the Functions host hands a queue message to a Node function: base64 decoded, JSON parsed where it parses. */
function decode(text: string): unknown {
  const decoded = Buffer.from(text, 'base64').toString('utf8');
  try {
    return JSON.parse(decoded);
  } catch {
    return decoded;
  }
}

/** `hh:mm:ss` as seconds. */
function timeSpanSeconds(value: string): number {
  const match = /^(\d{1,2}):([0-5]\d):([0-5]\d(?:\.\d{1,7})?)$/.exec(value);
  if (!match || Number(match[1]) > 23) throw new TypeError(`host.json: ${value} is not a time span hh:mm:ss[.fff]`);
  return Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]);
}

/** The interval of a schedule of the two NCRONTAB forms the service uses: every N minutes ("0 *\/N ...") or every N seconds ("*\/N ..."). */
function intervalOf(schedule: string): number {
  const minutes = /^0 \*\/(\d+) \* \* \* \*$/.exec(schedule);
  if (minutes) return Number(minutes[1]) * 60_000;
  const seconds = /^\*\/(\d+) \* \* \* \* \*$/.exec(schedule);
  if (seconds) return Number(seconds[1]) * 1000;
  throw new TypeError(`the local trigger host runs schedules "0 */N * * * *" and "*/N * * * * *" only, not "${schedule}"`);
}
