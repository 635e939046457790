/**
 * The server-side roles → datapoints configuration. A caller sees the union over its roles; a
 * request can never widen it. Validated against the resource definitions at start-up by
 * `buildAllowlist`.
 */

/** The app role every data call needs. */
export const BASE_ROLE = 'Data.Read';

/** What one role grants. */
export interface RoleDatapoints {
  /**
   * Visible fields by group: a resource's name for its record fields, its `lines.grant` for its
   * line fields (see `fieldGroups`). A group left out grants nothing.
   */
  readonly fields: Readonly<Record<string, readonly string[]>>;
  /** Whether records with a resource's drafts value (status Draft) are visible. */
  readonly drafts: boolean;
}

/** The configuration itself: role name → datapoints. */
export const DATAPOINTS: Readonly<Record<string, RoleDatapoints>> = {
  'Data.Read': {
    fields: {
      contracts: ['contractId', 'contractWorkspaceID', 'title', 'status', 'effectiveDate', 'expirationDate', 'createdDate', 'updatedDate'],
      invoices: ['invoiceId', 'invoiceNumber', 'contractId', 'contractWorkspaceID', 'status', 'invoiceDate', 'dueDate', 'createdDate', 'updatedDate'],
      invoiceLines: ['lineNumber', 'description', 'commodityCode', 'quantity', 'unitOfMeasure'],
    },
    drafts: false,
  },
  'Data.Read.Financials': {
    fields: {
      contracts: ['currency', 'contractAmount'],
      invoices: ['currency', 'netAmount', 'taxAmount', 'totalAmount'],
      invoiceLines: ['unitPrice', 'netAmount', 'taxAmount'],
    },
    drafts: false,
  },
  'Data.Read.Suppliers': {
    fields: {
      contracts: ['supplierId', 'supplierName', 'ownerEmail'],
      invoices: ['supplierId', 'supplierName', 'purchaseOrderId'],
    },
    drafts: false,
  },
  'Data.Read.Drafts': {
    fields: {},
    drafts: true,
  },
};
