import { day, money, oneOf, text, timestamp } from './fields.js';
import { patternRule } from './member-rules.js';
import { defineResource, type FilterDefinition } from './resource-definition.js';

/** The status hidden from callers without a drafts grant (contracts and invoices alike). */
export const DRAFT_STATUS = 'Draft';

/** A contract's statuses; every one but Draft shows to callers without a drafts grant. */
export const CONTRACT_STATUSES = [DRAFT_STATUS, 'Pending', 'Published', 'OnHold', 'Expired', 'Closed'] as const;

/** Workspaces are "CW" and digits; contracts and invoices are filtered by them alike. */
export const WORKSPACE_FILTER: FilterDefinition = {
  kind: 'equals',
  member: 'contractWorkspaceID',
  field: 'contractWorkspaceID',
  rule: patternRule(/^CW[0-9]{4,10}$/, '"CW" followed by 4 to 10 digits, for example CW000123'),
};

/** The creation and update day ranges both resources have. */
export const CREATED_UPDATED_FILTERS: readonly FilterDefinition[] = [
  { kind: 'dayRange', from: 'createdFrom', to: 'createdTo', field: 'createdDate' },
  { kind: 'dayRange', from: 'updatedFrom', to: 'updatedTo', field: 'updatedDate' },
];

/** Contract summaries: one Parquet file. */
export const CONTRACTS = defineResource({
  name: 'contracts',
  containerId: 'contracts',
  idField: 'contractId',
  fields: [
    text('contractId'),
    text('contractWorkspaceID'),
    text('title'),
    oneOf('status', CONTRACT_STATUSES),
    text('supplierId'),
    text('supplierName'),
    text('ownerEmail'),
    text('currency'),
    money('contractAmount'),
    day('effectiveDate'),
    day('expirationDate', true),
    timestamp('createdDate'),
    timestamp('updatedDate'),
  ],
  sortable: [
    'contractId', 'title', 'status', 'effectiveDate', 'expirationDate',
    'createdDate', 'updatedDate', 'contractAmount', 'supplierName',
  ],
  defaultOrder: { orderBy: 'createdDate', order: 'asc' },
  drafts: { field: 'status', value: DRAFT_STATUS },
  filters: [WORKSPACE_FILTER, ...CREATED_UPDATED_FILTERS],
  export: { kind: 'file' },
  openapi: {
    summary: 'Contract summaries of your tenant',
    recordNoun: 'contract',
    recordSchema: 'ContractRecord',
    recordDescription: 'A contract summary record.',
    envelopeSchema: 'ContractsEnvelope',
    filtersSchema: 'ContractsFilters',
  },
});
