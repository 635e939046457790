import type { KeyValue } from 'hyparquet-writer';
import type { View } from '../access/allowlist.js';
import { INVOICE_FIELDS, type FieldSpec } from '../model/resources.js';
import type { StoredRecord } from '../store/record-store.js';
import { OutputLimitExceeded } from './limited-byte-writer.js';
import { ParquetTableWriter } from './parquet-table-writer.js';
import { zipOverhead, zipStored } from './zip-stored.js';

/** The entries of the invoices zip. */
export const INVOICE_ZIP_ENTRIES = { invoices: 'invoices.parquet', lines: 'invoice_tables.parquet' } as const;

/** Options of one export. */
export interface ExportOptions {
  /** The most bytes the body may have (the zip for invoices); past it OutputLimitExceeded. */
  readonly maxBytes: number;
  readonly metadata: readonly KeyValue[];
  readonly generatedAt: Date;
  readonly rowGroupSize?: number;
}

/** An export's body and how many records it holds. */
export interface ExportResult {
  readonly body: Uint8Array;
  readonly records: number;
}

const INVOICE_ID: FieldSpec = INVOICE_FIELDS.find((field) => field.name === 'invoiceId')!;

/**
 * The Parquet export of a record stream through a view: one file for contracts; for invoices a
 * stored zip of `invoices.parquet` (one row per invoice, visible header fields) and
 * `invoice_tables.parquet` (one row per line: invoiceId, then the visible line fields). Reading
 * stops as soon as the size limit is certain to be exceeded.
 */
export async function exportParquet(records: AsyncIterable<StoredRecord>, view: View, options: ExportOptions): Promise<ExportResult> {
  const table = (fields: readonly FieldSpec[], name: string) => new ParquetTableWriter({
    fields,
    maxBytes: options.maxBytes,
    metadata: [...options.metadata, { key: 'summary.table', value: name }],
    ...(options.rowGroupSize ? { rowGroupSize: options.rowGroupSize } : {}),
  });
  let count = 0;
  if (view.resource === 'contracts') {
    const contracts = table(view.fields, 'contracts');
    for await (const record of records) {
      contracts.add(record);
      count++;
    }
    return { body: contracts.finish(), records: count };
  }

  const invoices = table(view.fields, 'invoices');
  const lines = table([INVOICE_ID, ...view.lineFields], 'invoice_tables');
  const overhead = zipOverhead(Object.values(INVOICE_ZIP_ENTRIES));
  const checkTotal = () => {
    if (invoices.bytesWritten + lines.bytesWritten + overhead > options.maxBytes) throw new OutputLimitExceeded('zip would pass the limit');
  };
  for await (const record of records) {
    invoices.add(record);
    const leading = [record.invoiceId];
    for (const line of (record.lines as readonly StoredRecord[] | undefined) ?? []) lines.add(line, leading);
    checkTotal();
    count++;
  }
  const entries = { [INVOICE_ZIP_ENTRIES.invoices]: invoices.finish(), [INVOICE_ZIP_ENTRIES.lines]: lines.finish() };
  checkTotal();
  const body = zipStored(entries, options.generatedAt);
  if (body.byteLength > options.maxBytes) throw new OutputLimitExceeded('zip passed the limit');
  return { body, records: count };
}
