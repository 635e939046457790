import azureFunctions from '@azure/functions';
import { RESOURCES } from '../shared/model/resources.js';
import { runtimeDeps } from '../shared/app/runtime-deps.js';
import { summaryFunctions } from '../shared/app/summary-function.js';

/** POST /api/v1/<resource>/summary for every resource, each function named after its operationId. */
export const registrations = summaryFunctions(RESOURCES, runtimeDeps());

for (const { name, options } of registrations) azureFunctions.app.http(name, options);
