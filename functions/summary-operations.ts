import azureFunctions from '@azure/functions';
import { runtimeEndpoints } from '../shared/app/runtime-deps.js';
import { summaryFunctions } from '../shared/app/summary-function.js';

/** POST /api/v1/<resource>/summary for every resource, each function named after its operationId. */
export const registrations = summaryFunctions(runtimeEndpoints());

for (const { name, options } of registrations) azureFunctions.app.http(name, options);
