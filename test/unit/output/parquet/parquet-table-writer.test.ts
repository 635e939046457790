import { describe, expect, it } from '@jest/globals';
import { parquetMetadata } from 'hyparquet';
import { day, decimal, int32, money, oneOf, text, timestamp } from '../../../../shared/model/fields.js';
import { ParquetTableWriter } from '../../../../shared/output/parquet/parquet-table-writer.js';
import { withParquetFile } from '../../../support/duckdb.js';
import { readParquet } from '../../../support/parquet.js';
import { readWithArrow } from '../../../support/parquet-wasm.js';

const FIELDS = [
  text('id'),
  oneOf('status', ['Open', 'Closed', 'Void']),
  text('name', true),
  text('note', true),
  day('due', true),
  timestamp('at'),
  money('amount'),
  decimal('quantity', 18, 4),
  int32('line'),
];

const NAMES = ['Müller & Söhne', '株式会社テスト', 'emoji 🚀 supplier', 'plain'];

/** A row with every column kind: unique ids, repeating names, nulls, negatives, values past 2^32, multi-byte UTF-8. */
function row(i: number): Record<string, unknown> {
  return {
    id: `R${i}`,
    status: ['Open', 'Closed', 'Void'][i % 3],
    name: i % 5 === 0 ? null : NAMES[i % NAMES.length],
    note: i % 7 === 0 ? null : `note ${i} ${'x'.repeat(i % 40)}`,
    due: i % 4 === 0 ? null : new Date(Date.UTC(1969, 11, 20) + (i % 90) * 86_400_000).toISOString().slice(0, 10),
    at: new Date(Date.UTC(1965, 0, 1) + i * 3_600_123).toISOString(),
    // Exact amounts at scale 2 (a cleaned export's): no float drift past the scale.
    amount: i % 2 ? -(i * 1_000_003) / 100 : (i * 9_876_543_210) / 100,
    quantity: (i % 13) / 8,
    line: (i % 9) - 4,
  };
}

async function write(rows: number, rowGroupSize: number, make = row): Promise<Uint8Array> {
  const table = new ParquetTableWriter({ fields: FIELDS, maxBytes: 64 * 1024 * 1024, metadata: [{ key: 'k', value: 'v' }], rowGroupSize });
  for (let i = 0; i < rows; i++) await table.add(make(i));
  return Buffer.concat(await table.finish());
}

function footer(bytes: Uint8Array) {
  return parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
}

/** A column chunk's encodings in row group `group`. */
function encodings(bytes: Uint8Array, name: string, group = 0): string[] {
  return footer(bytes).row_groups[group]!.columns.find((c) => c.meta_data?.path_in_schema[0] === name)!.meta_data!.encodings;
}

describe('ParquetTableWriter (typed column buffers)', () => {
  it('writes every kind of value exactly, across row groups, as hyparquet reads it', async () => {
    const bytes = await write(2_345, 1_000);
    const file = await readParquet(bytes);
    expect(file.numRows).toBe(2_345);
    expect(footer(bytes).row_groups.map((g) => Number(g.num_rows))).toEqual([1_000, 1_000, 345]);
    for (const i of [0, 1, 2, 3, 4, 5, 7, 999, 1_000, 2_344]) {
      const expected = row(i);
      const got = file.rows[i]!;
      expect(got.id).toBe(expected.id);
      expect(got.status).toBe(expected.status);
      expect(got.name).toBe(expected.name);
      expect(got.note).toBe(expected.note);
      expect(got.due).toEqual(expected.due === null ? null : new Date(`${expected.due as string}T00:00:00Z`));
      expect(got.at).toEqual(new Date(expected.at as string));
      expect(got.amount).toBeCloseTo(expected.amount as number, 2);
      expect(got.quantity).toBeCloseTo(expected.quantity as number, 4);
      expect(got.line).toBe(expected.line);
    }
  });

  it('reads the same, value for value, in DuckDB (exact decimals) and in parquet-wasm', async () => {
    const bytes = await write(3_000, 1_024);
    const rows = await withParquetFile(bytes, (query) => query('SELECT id, status, name, note, due::VARCHAR AS due, epoch_ms("at")::VARCHAR AS at, amount::VARCHAR AS amount, quantity::VARCHAR AS quantity, line FROM $file'));
    expect(rows).toHaveLength(3_000);
    rows.forEach((got, i) => {
      const expected = row(i);
      expect(got).toEqual({
        id: expected.id, status: expected.status, name: expected.name, note: expected.note, due: expected.due,
        at: String(Date.parse(expected.at as string)),
        amount: (expected.amount as number).toFixed(2), quantity: (expected.quantity as number).toFixed(4), line: expected.line,
      });
    });
    const arrow = readWithArrow(bytes);
    expect(arrow.numRows).toBe(3_000);
    expect(arrow.values.name!.slice(0, 6)).toEqual([null, NAMES[1], NAMES[2], NAMES[3], NAMES[0], null]);
    expect(arrow.values.id![2_999]).toBe('R2999');
  });

  it('keeps min/max statistics and null counts that DuckDB reads, for the numeric columns only', async () => {
    const bytes = await write(500, 500);
    const stats = await withParquetFile(bytes, (query, path) => query(`SELECT path_in_schema AS name, stats_min_value AS stats_min, stats_max_value AS stats_max, stats_null_count::INTEGER AS nulls FROM parquet_metadata('${path}') ORDER BY column_id`));
    const byName = Object.fromEntries(stats.map((s) => [s.name, s]));
    const amounts = Array.from({ length: 500 }, (_, i) => row(i).amount as number);
    expect(byName.amount).toMatchObject({ stats_min: Math.min(...amounts).toFixed(2), stats_max: Math.max(...amounts).toFixed(2), nulls: 0 });
    expect(byName.due).toMatchObject({ stats_min: '1969-12-20', stats_max: '1970-03-19', nulls: 125 });
    expect(byName.line).toMatchObject({ stats_min: '-4', stats_max: '4' });
    expect(byName.at!.stats_min).toMatch(/^1965-01-01/);
    expect(byName.name).toMatchObject({ stats_min: null, stats_max: null });
  });

  it('chooses encodings by the model and by what pays: dictionaries for repeats, plain for unique values', async () => {
    const bytes = await write(4_000, 2_000);
    expect(encodings(bytes, 'status')).toEqual(['PLAIN', 'RLE_DICTIONARY']);
    // Nullable: RLE for the definition levels too.
    expect(encodings(bytes, 'name')).toEqual(['PLAIN', 'RLE', 'RLE_DICTIONARY']);
    expect(encodings(bytes, 'quantity')).toEqual(['PLAIN', 'RLE_DICTIONARY']);
    // Unique per row: given up within the first row group, and plain in the next from the start.
    expect(encodings(bytes, 'id', 0)).toEqual(['PLAIN']);
    expect(encodings(bytes, 'id', 1)).toEqual(['PLAIN']);
    // Unique by the model: never a dictionary.
    expect(encodings(bytes, 'at')).toEqual(['PLAIN']);
    // A fixed set stays a dictionary even where it would not pay.
    const fewRows = await write(3, 3);
    expect(encodings(fewRows, 'status')).toEqual(['PLAIN', 'RLE_DICTIONARY']);
  });

  it('writes a chunk without values plain, without giving the dictionary up for the row groups after it', async () => {
    const bytes = await write(4_000, 2_000, (i) => ({ ...row(i), name: i < 2_000 ? null : NAMES[i % NAMES.length] }));
    expect(encodings(bytes, 'name', 0)).toEqual(['PLAIN', 'RLE']);
    expect(encodings(bytes, 'name', 1)).toEqual(['PLAIN', 'RLE', 'RLE_DICTIONARY']);
  });

  it('writes a file without key-value metadata that arrow-rs reads (no empty list in the footer)', async () => {
    const table = new ParquetTableWriter({ fields: FIELDS, maxBytes: 1 << 20, metadata: [] });
    for (let i = 0; i < 3; i++) await table.add(row(i));
    expect(readWithArrow(Buffer.concat(await table.finish())).numRows).toBe(3);
  });

  it('gives up a dictionary that does not halve the plain bytes when the row group is sealed', async () => {
    // 600 distinct values in 1000 rows: under the half-way limit while filling, but no win.
    const bytes = await write(1_000, 1_000, (i) => ({ ...row(i), note: `n${i % 600}` }));
    expect(encodings(bytes, 'note')).toEqual(['PLAIN', 'RLE']);
  });

  it('splits a large column chunk into pages of about 1 MiB, with an offset index readers follow', async () => {
    const long = (i: number) => `${String(i).padStart(6, '0')}${'y'.repeat(600)}`;
    const bytes = await write(5_000, 5_000, (i) => ({ ...row(i), note: i % 3 ? long(i) : null }));
    const chunk = footer(bytes).row_groups[0]!.columns.find((c) => c.meta_data?.path_in_schema[0] === 'note')!;
    expect(chunk.offset_index_offset).toBeDefined();
    const file = await readParquet(bytes);
    expect(file.pageTypes.filter((type) => type === 'DATA_PAGE').length).toBeGreaterThan(FIELDS.length);
    expect(file.rows.map((r) => r.note)).toEqual(Array.from({ length: 5_000 }, (_, i) => (i % 3 ? long(i) : null)));
  });

  it('writes a column of nothing but nulls, and an empty table with its full schema', async () => {
    const nulls = await readParquet(await write(10, 4, (i) => ({ ...row(i), name: null, note: null, due: null })));
    expect(nulls.rows.map((r) => [r.name, r.note, r.due])).toEqual(Array.from({ length: 10 }, () => [null, null, null]));
    const empty = await readParquet(await write(0, 10));
    expect(empty.numRows).toBe(0);
    expect(empty.columns).toEqual(FIELDS.map((f) => f.name));
  });

  it('refuses a value its column cannot hold, and a missing required value, naming the column', () => {
    const table = () => new ParquetTableWriter({ fields: FIELDS, maxBytes: 1 << 20, metadata: [] });
    expect(() => table().add({ ...row(1), id: null })).toThrow(/column id: a required value is missing/);
    expect(() => table().add({ ...row(1), line: 2 ** 31 })).toThrow(/column line: not a value of its type: 2147483648/);
    expect(() => table().add({ ...row(1), due: '2025-02-30' })).toThrow(/column due: not a value of its type: 2025-02-30/);
    expect(() => table().add({ ...row(1), amount: 1.005 })).toThrow(/column amount: not a value of its type: 1.005/);
  });
});
