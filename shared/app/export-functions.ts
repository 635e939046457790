import type { HttpRequest, HttpResponseInit, StorageQueueFunctionOptions, TimerFunctionOptions } from '@azure/functions';
import type { SummaryDeps } from '../http/summary-deps.js';
import type { SummaryEndpoint } from '../http/summary-endpoint.js';
import type { HttpResult } from '../http/output-stages/output-stage.js';
import { EXPORT_STORAGE } from '../exports/export-storage.js';
import { CANCEL_NAMES, kickOffNames, STATUS_NAMES } from '../model/export-operations.js';
import { handleCancel, handleKickOff, handleStatus } from '../http/handle-exports.js';
import { runWindow } from '../exports/run-window.js';
import { recordPoisonedWindow } from '../exports/poisoned-window.js';
import { createExportDeps, storageCredential } from './create-export-deps.js';
import { createDeltaDeps } from './create-delta-deps.js';
import { deltaEndpoint, handleDelta } from '../http/handle-delta.js';
import type { FunctionRegistration } from './summary-function.js';

/** The name of the Functions connection to the export storage account: its settings are `EXPORTS_STORAGE__*`. */
const EXPORTS_CONNECTION = 'EXPORTS_STORAGE';

/** A queue-triggered function as a host registers it. */
export interface QueueRegistration {
  readonly name: string;
  readonly options: StorageQueueFunctionOptions;
}

/** A timer-triggered function as a host registers it. */
export interface TimerRegistration {
  readonly name: string;
  readonly options: TimerFunctionOptions;
}

/** The functions that need export storage: the export jobs' three HTTP operations, each resource's delta operation, the window worker, the poison handler and the sweep. */
export interface ExportFunctions {
  readonly http: readonly FunctionRegistration[];
  readonly queues: readonly QueueRegistration[];
  readonly timers: readonly TimerRegistration[];
}

/** When the sweep of expired files runs: every fifteen minutes (NCRONTAB, seconds first). */
const SWEEP_SCHEDULE = '0 */15 * * * *';

/**
 * The export jobs' and the delta feed's functions over the summary operations' endpoints
 * (summaryEndpoints: made once per process) and collaborators, or none when the settings configure
 * no export storage (where both keep what they hand out: a deployment without it answers 404 for them).
 */
export function exportFunctions(endpoints: ReadonlyMap<string, SummaryEndpoint>, deps: SummaryDeps): ExportFunctions {
  const settings = deps.config.exports;
  if (!settings) return { http: [], queues: [], timers: [] };
  const credential = storageCredential(settings);
  const exportDeps = createExportDeps(settings, deps, endpoints, credential);
  const deltaDeps = createDeltaDeps(settings, deps, credential);
  const http = (handle: (request: HttpRequest) => Promise<HttpResult>) => async (request: HttpRequest): Promise<HttpResponseInit> => {
    const { status, headers, body } = await handle(request);
    return { status, headers, body };
  };
  return {
    http: [
      ...[...endpoints.values()].map((endpoint): FunctionRegistration => {
        const names = kickOffNames(endpoint.resource);
        return { name: names.id, options: { route: names.route, methods: [names.method], authLevel: 'function', handler: http((request) => handleKickOff(endpoint, exportDeps, request)) } };
      }),
      { name: STATUS_NAMES.id, options: { route: STATUS_NAMES.route, methods: [STATUS_NAMES.method], authLevel: 'function', handler: http((request) => handleStatus(deps, exportDeps, request)) } },
      ...[...endpoints.values()].map((endpoint): FunctionRegistration => {
        const delta = deltaEndpoint(endpoint, deltaDeps);
        return { name: delta.names.id, options: { route: delta.names.route, methods: ['POST'], authLevel: 'function', handler: http((request) => handleDelta(delta, request)) } };
      }),
      { name: CANCEL_NAMES.id, options: { route: CANCEL_NAMES.route, methods: [CANCEL_NAMES.method], authLevel: 'function', handler: http((request) => handleCancel(deps, exportDeps, request)) } },
    ],
    queues: [
      { name: 'exportWindow', options: { queueName: EXPORT_STORAGE.queue, connection: EXPORTS_CONNECTION, handler: (message) => runWindow(message, exportDeps) } },
      { name: 'exportWindowFailed', options: { queueName: EXPORT_STORAGE.poisonQueue, connection: EXPORTS_CONNECTION, handler: (message) => recordPoisonedWindow(message, exportDeps) } },
    ],
    timers: [
      {
        name: 'exportSweep',
        options: {
          schedule: SWEEP_SCHEDULE,
          handler: async () => {
            const deleted = await exportDeps.files.sweep(new Date(deps.clock()));
            if (deleted > 0) deps.log.warning('', `the sweep deleted ${deleted} files of expired export jobs`);
          },
        },
      },
    ],
  };
}
