import azureFunctions from '@azure/functions';
import { summaryFunction } from '../shared/http/summary-function.js';
import { runtimeDeps } from '../shared/http/runtime-deps.js';

/** POST /api/v1/contracts/summary */
export const contractsSummary = summaryFunction('contracts', runtimeDeps());

azureFunctions.app.http('contractsSummary', contractsSummary);
