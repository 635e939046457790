import { describe, expect, it } from '@jest/globals';
import { parquetMetadata } from 'hyparquet';
import { double, flag, text } from '../../../../shared/model/fields.js';
import { ParquetTableWriter } from '../../../../shared/output/parquet/parquet-table-writer.js';
import { withParquetFile } from '../../../support/duckdb.js';
import { readParquet } from '../../../support/parquet.js';
import { readWithArrow } from '../../../support/parquet-wasm.js';

// BOOLEAN and DOUBLE columns, which no resource has yet: a model field of either kind is written
// exactly and typed, read back by three readers (hyparquet, DuckDB, arrow-rs).
const FIELDS = [text('id'), flag('active'), flag('checked', true), double('ratio'), double('measure', true)];
const DOUBLES = [0, -0, 1.5, -2.25, 1e-300, 1.7976931348623157e308, Math.PI, -1e21, 123456.789];

function row(i: number): Record<string, unknown> {
  return {
    id: `R${i}`,
    active: i % 3 === 0,
    checked: i % 5 === 0 ? null : i % 2 === 0,
    ratio: DOUBLES[i % DOUBLES.length]! * (i % 7 === 0 ? -1 : 1),
    measure: i % 4 === 0 ? null : i / 3,
  };
}

async function write(rows: number, rowGroupSize = 1_000): Promise<Uint8Array> {
  const table = new ParquetTableWriter({ fields: FIELDS, maxBytes: 1 << 26, metadata: [], rowGroupSize, encoder: null });
  for (let i = 0; i < rows; i++) await table.add(row(i));
  return Buffer.concat(await table.finish());
}

describe('BOOLEAN and DOUBLE columns', () => {
  it('are typed BOOLEAN and DOUBLE, required or optional as the field says', async () => {
    const file = await readParquet(await write(10));
    expect(file.schema.map(({ name, type, repetition_type }) => ({ name, type, repetition_type }))).toEqual([
      { name: 'id', type: 'BYTE_ARRAY', repetition_type: 'REQUIRED' },
      { name: 'active', type: 'BOOLEAN', repetition_type: 'REQUIRED' },
      { name: 'checked', type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
      { name: 'ratio', type: 'DOUBLE', repetition_type: 'REQUIRED' },
      { name: 'measure', type: 'DOUBLE', repetition_type: 'OPTIONAL' },
    ]);
  });

  it('hold every value exactly, across row groups and bit-packing boundaries, as hyparquet reads them', async () => {
    const rows = 2_345;
    const file = await readParquet(await write(rows, 1_000));
    expect(file.numRows).toBe(rows);
    for (let i = 0; i < rows; i++) {
      const expected = row(i);
      const read = file.rows[i]!;
      expect([i, read.active, read.checked ?? null, read.measure ?? null]).toEqual([i, expected.active, expected.checked, expected.measure]);
      expect([i, read.ratio]).toEqual([i, expected.ratio]);
    }
  });

  it('read the same in DuckDB and arrow-rs', async () => {
    const bytes = await write(1_500, 400);
    const arrow = readWithArrow(bytes);
    expect(arrow.columns.find((column) => column.name === 'active')?.type).toBe('Bool');
    expect(arrow.columns.find((column) => column.name === 'ratio')?.type).toBe('Float64');
    expect(arrow.values.checked!.slice(0, 6)).toEqual([null, 'false', 'true', 'false', 'true', null]);
    expect(arrow.values.ratio![8]).toBe(String(row(8).ratio));
    const totals = await withParquetFile(bytes, (query) => query('SELECT count(*) FILTER (WHERE active) AS active, count(checked) AS checked, sum(measure) AS measure, typeof(any_value(ratio)) AS type FROM $file'));
    let measure = 0;
    for (let i = 0; i < 1_500; i++) measure += (row(i).measure as number | null) ?? 0;
    expect({ active: Number(totals[0]!.active), checked: Number(totals[0]!.checked), type: totals[0]!.type }).toEqual({ active: 500, checked: 1_200, type: 'DOUBLE' });
    expect(Number(totals[0]!.measure)).toBeCloseTo(measure, 6);
  });

  it('keep min/max statistics: booleans as booleans, doubles with -0 as the least zero', async () => {
    const table = new ParquetTableWriter({ fields: [flag('on'), double('x')], maxBytes: 1 << 20, metadata: [], rowGroupSize: 10, encoder: null });
    for (const [on, x] of [[false, 0], [false, 2.5], [false, -1]] as const) await table.add({ on, x });
    const bytes = Buffer.concat(await table.finish());
    const meta = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    const [on, x] = meta.row_groups[0]!.columns.map((column) => column.meta_data!.statistics!);
    expect([on!.min_value, on!.max_value]).toEqual([false, false]);
    expect([x!.min_value, x!.max_value]).toEqual([-1, 2.5]);
  });

  it('refuse a value that is not one: a string in a boolean, a string or infinity in a double', () => {
    const table = () => new ParquetTableWriter({ fields: [flag('on'), double('x')], maxBytes: 1 << 20, metadata: [], encoder: null });
    expect(() => table().add({ on: 'true', x: 1 })).toThrow(/column on: not a value of its type: true/);
    expect(() => table().add({ on: true, x: '1.5' })).toThrow(/column x: not a value of its type: 1.5/);
    expect(() => table().add({ on: true, x: Number.POSITIVE_INFINITY })).toThrow(/column x: not a value of its type: Infinity/);
  });
});
