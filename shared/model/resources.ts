/**
 * The data model of the two resources: every field a stored document may carry, in the one stable
 * order responses use, with its type. This is data about the model, not about visibility: which of
 * these fields a caller sees is decided by `shared/access`.
 */

/** The two resources the service exposes. */
export type Resource = 'contracts' | 'invoices';

/** All resources, in a stable order. */
export const RESOURCES: readonly Resource[] = ['contracts', 'invoices'];

/** How a field's values are typed (JSON keeps them as strings/numbers; Parquet maps them exactly). */
export type FieldKind = 'string' | 'date' | 'timestamp' | 'decimal' | 'int32';

/** One field of a resource. */
export interface FieldSpec {
  readonly name: string;
  readonly kind: FieldKind;
  /** Whether a stored value may be null. */
  readonly nullable: boolean;
  /** For `decimal`: declared precision and scale. */
  readonly precision?: number;
  readonly scale?: number;
}

const str = (name: string, nullable = false): FieldSpec => ({ name, kind: 'string', nullable });
const date = (name: string, nullable = false): FieldSpec => ({ name, kind: 'date', nullable });
const timestamp = (name: string): FieldSpec => ({ name, kind: 'timestamp', nullable: false });
const money = (name: string): FieldSpec => ({ name, kind: 'decimal', nullable: false, precision: 18, scale: 2 });

/** Contract fields, in response order. `tenantId` and `id` are storage keys and never returned. */
export const CONTRACT_FIELDS: readonly FieldSpec[] = [
  str('contractId'),
  str('contractWorkspaceID'),
  str('title'),
  str('status'),
  str('supplierId'),
  str('supplierName'),
  str('ownerEmail'),
  str('currency'),
  money('contractAmount'),
  date('effectiveDate'),
  date('expirationDate', true),
  timestamp('createdDate'),
  timestamp('updatedDate'),
];

/** Invoice header fields, in response order (`lines` follows them in JSON). */
export const INVOICE_FIELDS: readonly FieldSpec[] = [
  str('invoiceId'),
  str('invoiceNumber'),
  str('contractId', true),
  str('contractWorkspaceID', true),
  str('purchaseOrderId'),
  str('supplierId'),
  str('supplierName'),
  str('status'),
  date('invoiceDate'),
  date('dueDate'),
  str('currency'),
  money('netAmount'),
  money('taxAmount'),
  money('totalAmount'),
  timestamp('createdDate'),
  timestamp('updatedDate'),
];

/** Invoice line fields, in response order. */
export const INVOICE_LINE_FIELDS: readonly FieldSpec[] = [
  { name: 'lineNumber', kind: 'int32', nullable: false },
  str('description'),
  str('commodityCode'),
  { name: 'quantity', kind: 'decimal', nullable: false, precision: 18, scale: 4 },
  str('unitOfMeasure'),
  { name: 'unitPrice', kind: 'decimal', nullable: false, precision: 18, scale: 4 },
  money('netAmount'),
  money('taxAmount'),
];

/** Record fields of each resource, in response order. */
export const RECORD_FIELDS: Readonly<Record<Resource, readonly FieldSpec[]>> = {
  contracts: CONTRACT_FIELDS,
  invoices: INVOICE_FIELDS,
};

/** The field that identifies a record of each resource (also the document `id`). */
export const ID_FIELD: Readonly<Record<Resource, string>> = {
  contracts: 'contractId',
  invoices: 'invoiceId',
};

/** Fields a caller may order by (only those it can also see), per resource. */
export const SORTABLE_FIELDS: Readonly<Record<Resource, readonly string[]>> = {
  contracts: [
    'contractId', 'title', 'status', 'effectiveDate', 'expirationDate',
    'createdDate', 'updatedDate', 'contractAmount', 'supplierName',
  ],
  invoices: [
    'invoiceId', 'invoiceNumber', 'status', 'invoiceDate', 'dueDate',
    'createdDate', 'updatedDate', 'totalAmount', 'supplierName',
  ],
};

/** Status values per resource. */
export const STATUSES: Readonly<Record<Resource, readonly string[]>> = {
  contracts: ['Draft', 'Pending', 'Published', 'OnHold', 'Expired', 'Closed'],
  invoices: ['Draft', 'Submitted', 'Approved', 'Rejected', 'Paid', 'Cancelled'],
};

/** The status hidden from callers without `Data.Read.Drafts`. */
export const DRAFT_STATUS = 'Draft';

/** Cosmos database and container names. */
export const DATABASE_ID = 'summary';
export const CONTAINER_IDS: Readonly<Record<Resource, string>> = { contracts: 'contracts', invoices: 'invoices' };
/** Every container is partitioned by the data tenant. */
export const PARTITION_KEY_PATH = '/tenantId';
