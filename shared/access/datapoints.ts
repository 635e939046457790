/**
 * The server-side roles → datapoints configuration. A caller sees the union over its roles; a
 * request can never widen it. Validated against the model at start-up by `buildAllowlist`.
 */

/** The app role every data call needs. */
export const BASE_ROLE = 'Data.Read';
/** The role that makes Draft records visible. */
export const DRAFTS_ROLE = 'Data.Read.Drafts';

/** What one role grants. */
export interface RoleDatapoints {
  readonly contracts: readonly string[];
  readonly invoices: readonly string[];
  readonly invoiceLines: readonly string[];
  readonly drafts: boolean;
}

/** The configuration itself: role name → datapoints. */
export const DATAPOINTS: Readonly<Record<string, RoleDatapoints>> = {
  'Data.Read': {
    contracts: ['contractId', 'contractWorkspaceID', 'title', 'status', 'effectiveDate', 'expirationDate', 'createdDate', 'updatedDate'],
    invoices: ['invoiceId', 'invoiceNumber', 'contractId', 'contractWorkspaceID', 'status', 'invoiceDate', 'dueDate', 'createdDate', 'updatedDate'],
    invoiceLines: ['lineNumber', 'description', 'commodityCode', 'quantity', 'unitOfMeasure'],
    drafts: false,
  },
  'Data.Read.Financials': {
    contracts: ['currency', 'contractAmount'],
    invoices: ['currency', 'netAmount', 'taxAmount', 'totalAmount'],
    invoiceLines: ['unitPrice', 'netAmount', 'taxAmount'],
    drafts: false,
  },
  'Data.Read.Suppliers': {
    contracts: ['supplierId', 'supplierName', 'ownerEmail'],
    invoices: ['supplierId', 'supplierName', 'purchaseOrderId'],
    invoiceLines: [],
    drafts: false,
  },
  'Data.Read.Drafts': {
    contracts: [],
    invoices: [],
    invoiceLines: [],
    drafts: true,
  },
};
