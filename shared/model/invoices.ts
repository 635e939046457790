import { CONTRACT_STATUSES, CREATED_UPDATED_FILTERS, DRAFT_STATUS, WORKSPACE_FILTER } from './contracts.js';
import { day, decimal, int32, money, oneOf, text, timestamp } from './fields.js';
import { textRule, valuesRule } from './member-rules.js';
import { defineResource } from './resource-definition.js';

const STATUSES = [DRAFT_STATUS, 'Submitted', 'Approved', 'Rejected', 'Paid', 'Cancelled'];

/** Invoice summaries with their lines: a zip of the invoices table and the lines table. */
export const INVOICES = defineResource({
  name: 'invoices',
  containerId: 'invoices',
  idField: 'invoiceId',
  fields: [
    text('invoiceId'),
    text('invoiceNumber'),
    text('contractId', true),
    text('contractWorkspaceID', true),
    text('purchaseOrderId'),
    text('supplierId'),
    text('supplierName'),
    oneOf('status', STATUSES),
    day('invoiceDate'),
    day('dueDate'),
    text('currency'),
    money('netAmount'),
    money('taxAmount'),
    money('totalAmount'),
    timestamp('createdDate'),
    timestamp('updatedDate'),
  ],
  lines: {
    member: 'lines',
    fields: [
      int32('lineNumber'),
      text('description'),
      text('commodityCode'),
      decimal('quantity', 18, 4),
      text('unitOfMeasure'),
      decimal('unitPrice', 18, 4),
      money('netAmount'),
      money('taxAmount'),
    ],
    grant: 'invoiceLines',
    orderBy: 'lineNumber',
    schemaName: 'InvoiceLine',
    description: 'One line of an invoice.',
  },
  sortable: [
    'invoiceId', 'invoiceNumber', 'status', 'invoiceDate', 'dueDate',
    'createdDate', 'updatedDate', 'totalAmount', 'supplierName',
  ],
  defaultOrder: { orderBy: 'createdDate', order: 'asc' },
  drafts: { field: 'status', value: DRAFT_STATUS },
  // The contract an invoice belongs to may be a Draft: its status is kept on the invoice
  // (contractStatus, the writer's contract in docs/data-model.md) so one single-partition query can
  // hide the reference. It shows only for a contract status known not to be Draft.
  draftReferences: { fields: ['contractId', 'contractWorkspaceID'], statusProperty: 'contractStatus', shownFor: CONTRACT_STATUSES.filter((status) => status !== DRAFT_STATUS) },
  filters: [
    WORKSPACE_FILTER,
    ...CREATED_UPDATED_FILTERS,
    { kind: 'dayRange', from: 'invoiceDateFrom', to: 'invoiceDateTo', field: 'invoiceDate' },
    { kind: 'equals', member: 'contractId', field: 'contractId', rule: textRule() },
    { kind: 'equals', member: 'supplierId', field: 'supplierId', rule: textRule() },
    { kind: 'equals', member: 'status', field: 'status', rule: valuesRule(STATUSES) },
  ],
  export: { kind: 'zip', records: 'invoices.parquet', lines: 'invoice_tables.parquet' },
  openapi: {
    summary: 'Invoice summaries (with lines) of your tenant',
    recordNoun: 'invoice',
    recordSchema: 'InvoiceRecord',
    recordDescription: 'An invoice summary record with its lines.',
    envelopeSchema: 'InvoicesEnvelope',
    filtersSchema: 'InvoicesFilters',
  },
});
