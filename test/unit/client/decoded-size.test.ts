import { describe, expect, it } from '@jest/globals';
import { parquetMetadata, type FileMetaData, type PageHeader, type ParquetType } from 'hyparquet';
import { ByteWriter, parquetWriteBuffer } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { snappyCompress } from 'hyparquet-writer/src/snappy.js';
import { checkParquet, decodedLimit, footerLimit, UnsafeParquet } from '../../../client/src/decoded-size.js';
import { generateContracts, generateInvoices } from '../../../dev/seed-data.js';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { INVOICES } from '../../../shared/model/invoices.js';
import type { ResourceDefinition } from '../../../shared/model/resource-definition.js';
import { exportParquet } from '../../../shared/output/export-parquet.js';
import { planCleaning } from '../../../shared/output/record-cleaner.js';
import { unzip } from '../../support/parquet.js';

// Files a hostile server could send the pull client, made page by page: each is refused before it
// enters a folder every reader opens. The red team's: a dictionary of one long value repeated by
// its indices, a footer that understates what the pages say, pages that hold more values than the
// footer names, a footer of junk. And files as the service writes them pass, with room to spare.

/** A one-column Parquet file of these pages (`footerValues`: what the footer says the chunk holds). */
function craft(type: ParquetType, pages: readonly { header: PageHeader; body: Uint8Array }[], options: { footerValues: number; codec?: 'UNCOMPRESSED' | 'SNAPPY'; extraMetadata?: string; rows?: number }): Uint8Array {
  const out = new ByteWriter();
  out.appendUint32(0x31524150);
  const start = out.offset;
  let uncompressed = 0;
  for (const { header, body } of pages) {
    writePageHeader(out, header);
    out.appendBytes(body);
    uncompressed += header.uncompressed_page_size;
  }
  const dictionary = pages[0]!.header.type === 'DICTIONARY_PAGE';
  const rows = BigInt(options.rows ?? options.footerValues);
  const metadata: FileMetaData = {
    version: 2,
    schema: [{ name: 'root', num_children: 1 }, { name: 'value', type, repetition_type: 'REQUIRED' }],
    num_rows: rows,
    row_groups: [{
      columns: [{
        file_offset: BigInt(start),
        meta_data: {
          type, encodings: dictionary ? ['PLAIN', 'RLE_DICTIONARY'] : ['PLAIN'], path_in_schema: ['value'], codec: options.codec ?? 'UNCOMPRESSED',
          num_values: BigInt(options.footerValues), total_uncompressed_size: BigInt(uncompressed), total_compressed_size: BigInt(out.offset - start),
          data_page_offset: BigInt(dictionary ? start + (out.offset - start) : start), ...(dictionary ? { dictionary_page_offset: BigInt(start) } : {}),
        },
      }],
      total_byte_size: BigInt(uncompressed),
      num_rows: rows,
    }],
    ...(options.extraMetadata ? { key_value_metadata: [{ key: 'junk', value: options.extraMetadata }] } : {}),
    metadata_length: 0,
  };
  // The data page offset of a dictionary-encoded chunk: after its dictionary page (recomputed).
  if (dictionary) {
    const first = new ByteWriter();
    writePageHeader(first, pages[0]!.header);
    metadata.row_groups[0]!.columns[0]!.meta_data!.data_page_offset = BigInt(start + first.offset + pages[0]!.body.byteLength);
  }
  const footerStart = out.offset;
  writeMetadata(out, metadata);
  out.appendUint32(out.offset - footerStart);
  out.appendUint32(0x31524150);
  return new Uint8Array(out.getBuffer());
}

/** A plain byte-array dictionary of these values. */
function dictionaryBytes(values: readonly string[]): Uint8Array {
  const out = new ByteWriter();
  for (const value of values) {
    const bytes = new TextEncoder().encode(value);
    out.appendUint32(bytes.byteLength);
    out.appendBytes(bytes);
  }
  return new Uint8Array(out.getBuffer());
}

/** An RLE run of index 0, `count` times (bit width 1). */
function zeros(count: number): Uint8Array {
  const out = new ByteWriter();
  out.appendUint8(1);
  out.appendVarInt(count << 1);
  out.appendUint8(0);
  return new Uint8Array(out.getBuffer());
}

const refusal = (bytes: Uint8Array) => {
  try {
    checkParquet(bytes);
    return 'taken';
  } catch (error) {
    expect(error).toBeInstanceOf(UnsafeParquet);
    return (error as Error).message;
  }
};

/** A dictionary page of `values`, compressed with snappy. */
function dictionaryPage(values: readonly string[]): { header: PageHeader; body: Uint8Array } {
  const plain = dictionaryBytes(values);
  const body = snappyCompress(plain);
  return { header: { type: 'DICTIONARY_PAGE', uncompressed_page_size: plain.byteLength, compressed_page_size: body.byteLength, dictionary_page_header: { num_values: values.length, encoding: 'PLAIN' } }, body };
}

/** A data page of `count` indices, all 0, compressed with snappy. */
function indexPage(count: number): { header: PageHeader; body: Uint8Array } {
  const plain = zeros(count);
  const body = snappyCompress(plain);
  return { header: { type: 'DATA_PAGE', uncompressed_page_size: plain.byteLength, compressed_page_size: body.byteLength, data_page_header: { num_values: count, encoding: 'RLE_DICTIONARY', definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' } }, body };
}

describe('checkParquet', () => {
  it('refuses a few KB whose dictionary of one long value, repeated by its indices, decodes to gigabytes', () => {
    const bytes = craft('BYTE_ARRAY', [dictionaryPage(['a'.repeat(1024 * 1024)]), indexPage(2000)], { footerValues: 2000, codec: 'SNAPPY' });
    expect(bytes.byteLength).toBeLessThan(100 * 1024);
    expect(refusal(bytes)).toMatch(/^its pages decode to more than \d+ bytes, more than a reader should be given for a file of \d+ bytes \(67108864\)$/);
    // The same file with a dictionary of short values is taken.
    expect(checkParquet(craft('BYTE_ARRAY', [dictionaryPage(['Published', 'Draft']), indexPage(2000)], { footerValues: 2000, codec: 'SNAPPY' })).rows).toBe(2000);
  });

  it('counts the values the pages say, not the footer: a lying integer column is refused either way', () => {
    const eight = new Uint8Array(8);
    const page = (values: number) => ({ header: { type: 'DATA_PAGE' as const, uncompressed_page_size: 8, compressed_page_size: 8, data_page_header: { num_values: values, encoding: 'PLAIN' as const, definition_level_encoding: 'RLE' as const, repetition_level_encoding: 'RLE' as const } }, body: eight });
    // The footer agrees with the page: 100 million INT64s from 8 bytes.
    expect(refusal(craft('INT64', [page(100_000_000)], { footerValues: 100_000_000 }))).toMatch(/^its pages decode to more than 800000000 bytes/);
    // The footer says 1 value, the page 100 million.
    expect(refusal(craft('INT64', [page(100_000_000)], { footerValues: 1 }))).toBe('column value\'s pages hold 100000000 values where its footer says 1');
    expect(checkParquet(craft('INT64', [page(1)], { footerValues: 1 })).decoded).toBe(8);
  });

  it('refuses a footer past its share of the file before parsing it, and files that are no Parquet', () => {
    const page = { header: { type: 'DATA_PAGE' as const, uncompressed_page_size: 8, compressed_page_size: 8, data_page_header: { num_values: 1, encoding: 'PLAIN' as const, definition_level_encoding: 'RLE' as const, repetition_level_encoding: 'RLE' as const } }, body: new Uint8Array(8) };
    const junk = craft('INT64', [page], { footerValues: 1, extraMetadata: 'x'.repeat(300 * 1024) });
    expect(refusal(junk)).toMatch(new RegExp(`^its footer takes \\d+ bytes, more than ${footerLimit(junk.byteLength)} for a file of `));
    const lying = craft('INT64', [page], { footerValues: 1 });
    new DataView(lying.buffer).setUint32(lying.byteLength - 8, 0x7fffffff, true);
    expect(refusal(lying)).toMatch(/^its footer claims 2147483647 bytes, more than the file has$/);
    expect(refusal(new TextEncoder().encode('PAR1 not really PAR1'))).toMatch(/^its footer claims|^it is not Parquet/);
    expect(refusal(new Uint8Array(100))).toBe('it is not a Parquet file (no PAR1 at both ends)');
  });

  it('takes files as the service and other writers make them, well within the bound', () => {
    const rows = 20_000;
    const statuses = ['Draft', 'Published', 'Expired', 'Terminated'];
    const bytes = new Uint8Array(parquetWriteBuffer({
      columnData: [
        { name: 'contractId', data: Array.from({ length: rows }, (_, index) => `CT-CONTOSO-${String(index).padStart(6, '0')}`), type: 'STRING' },
        { name: 'status', data: Array.from({ length: rows }, (_, index) => statuses[index % 4]!), type: 'STRING' },
        { name: 'title', data: Array.from({ length: rows }, (_, index) => `A contract with a long title number ${index} ${'x'.repeat(index % 200)}`), type: 'STRING' },
        { name: 'amount', data: Array.from({ length: rows }, (_, index) => index * 1.5), type: 'DOUBLE' },
        { name: 'version', data: Array.from({ length: rows }, (_, index) => BigInt(index % 3)), type: 'INT64' },
      ],
    }));
    const checked = checkParquet(bytes);
    expect(checked.rows).toBe(rows);
    expect(checked.decoded).toBeLessThan(decodedLimit(bytes.byteLength) / 8);
  });

  it('takes the service\'s own exports, contracts and both invoice tables, several row groups, well within the bound', async () => {
    const allowlist = buildAllowlist(DATAPOINTS);
    const contracts = generateContracts('contoso', 60_000);
    const exported = async (resource: ResourceDefinition, records: readonly Record<string, unknown>[]) => {
      async function* pages() {
        for (let start = 0; start < records.length; start += 1000) yield records.slice(start, start + 1000);
      }
      const result = await exportParquet(pages(), planCleaning(allowlist.view(resource, Object.keys(DATAPOINTS))), { metadata: [], generatedAt: new Date('2026-11-28T00:00:00Z'), maxBytes: 1024 * 1024 * 1024 });
      return new Uint8Array(result.body);
    };
    const files = [await exported(CONTRACTS, contracts as never), ...Object.values(unzip(await exported(INVOICES, generateInvoices('contoso', 20_000, contracts) as never)))];
    for (const bytes of files) {
      const checked = checkParquet(bytes);
      expect(checked.rows).toBeGreaterThan(10_000);
      expect(checked.metadata.row_groups.length).toBeGreaterThan(0);
      // Far inside the bound: the service's files decode to a few times their size.
      expect(checked.decoded / bytes.byteLength).toBeLessThan(16);
    }
  }, 60_000);

  it('refuses DELTA_BYTE_ARRAY pages, whose values may each repeat the one before whole, and nested columns', () => {
    const delta = { header: { type: 'DATA_PAGE' as const, uncompressed_page_size: 8, compressed_page_size: 8, data_page_header: { num_values: 1, encoding: 'DELTA_BYTE_ARRAY' as const, definition_level_encoding: 'RLE' as const, repetition_level_encoding: 'RLE' as const } }, body: new Uint8Array(8) };
    expect(refusal(craft('BYTE_ARRAY', [delta], { footerValues: 1 }))).toBe('column value has a page in the DELTA_BYTE_ARRAY encoding, which the service never writes');
    const nested = new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'a', data: [{ b: 1 }], type: 'JSON' }] }));
    expect(['taken', 'it has nested columns, which the service never sends']).toContain(refusal(nested));
  });

  it('takes a dictionary column whose one long value is rare, counting what its indices point at', () => {
    const rows = 50_000;
    const titles = Array.from({ length: rows }, (_, index) => (index === 7 ? 'x'.repeat(40_000) : `title ${index % 50}`));
    // One row group, dictionary-encoded: 50,000 values times the longest would be 2 GB.
    const bytes = new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'title', data: titles, type: 'STRING', encoding: 'RLE_DICTIONARY' }], rowGroupSize: rows }));
    expect(parquetMetadata(bytes.buffer).row_groups[0]!.columns[0]!.meta_data!.encodings).toContain('RLE_DICTIONARY');
    const checked = checkParquet(bytes);
    // As long as the values are, not 50,000 times the longest (2 GB).
    expect(checked.decoded).toBeLessThan(2 * rows * 16 + 40_000 + bytes.byteLength * 4);
  });
});
