import azureFunctions from '@azure/functions';
import { summaryFunction } from '../shared/http/summary-function.js';
import { runtimeDeps } from '../shared/http/runtime-deps.js';

/** POST /api/v1/invoices/summary */
export const invoicesSummary = summaryFunction('invoices', runtimeDeps());

azureFunctions.app.http('invoicesSummary', invoicesSummary);
