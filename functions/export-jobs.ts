import azureFunctions from '@azure/functions';
import { runtimeDeps, runtimeEndpoints } from '../shared/app/runtime-deps.js';
import { exportFunctions } from '../shared/app/export-functions.js';

/**
 * The export jobs (none where no export storage is configured): POST /api/v1/<resource>/exports,
 * GET and DELETE /api/v1/exports/{id}, the queue-triggered window worker, its poison handler and
 * the timer that sweeps expired files.
 */
export const functions = exportFunctions(runtimeEndpoints(), runtimeDeps());

for (const { name, options } of functions.http) azureFunctions.app.http(name, options);
for (const { name, options } of functions.queues) azureFunctions.app.storageQueue(name, options);
for (const { name, options } of functions.timers) azureFunctions.app.timer(name, options);
