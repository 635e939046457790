/**
 * What the client pulls: per dataset its operation, the media type of its export and the files in
 * it, and the date pairs it can be split on. Read off openapi/openapi.json (a test holds the two
 * equal); everything else about the operations comes from the generated types in api.ts.
 */
export const DATASETS = {
  contracts: {
    path: '/v1/contracts/summary',
    exportType: 'application/vnd.apache.parquet',
    /** The export is one Parquet file (null) or a zip of these Parquet entries. */
    zipEntries: null,
    dateBy: ['created', 'updated'],
    /** The filters besides the date pairs (`--filter name=value`). */
    filters: ['contractWorkspaceID'],
  },
  invoices: {
    path: '/v1/invoices/summary',
    exportType: 'application/zip',
    zipEntries: ['invoices.parquet', 'invoice_tables.parquet'],
    dateBy: ['created', 'updated', 'invoiceDate'],
    filters: ['contractWorkspaceID', 'contractId', 'supplierId', 'status'],
  },
} as const;

/** The largest `pageSize` the service takes (its default MAX_PAGE_SIZE, the document's maximum). */
export const MAX_PAGE_SIZE = 1000;

export type DatasetName = keyof typeof DATASETS;
export type DateBy = 'created' | 'updated' | 'invoiceDate';
export type Format = 'parquet' | 'jsonl';

export function isDatasetName(value: string): value is DatasetName {
  return Object.hasOwn(DATASETS, value);
}

/** The body members of a date pair: `created` → createdFrom/createdTo. */
export function dateMembers(by: DateBy): { from: string; to: string } {
  return { from: `${by}From`, to: `${by}To` };
}
