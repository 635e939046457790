import { parquetMetadata, parquetReadObjects } from 'hyparquet'
import { describe, expect, it } from 'vitest'
import { ByteWriter, ParquetWriter } from '../src/index.js'

/**
 * A row group encoded elsewhere (here: cut out of another file), with every offset counted from
 * its own first byte, as a worker thread would hand it over.
 * @param {ArrayBuffer} file
 * @param {number} index
 */
function rowGroupOf(file, index) {
  const metadata = parquetMetadata(file)
  const group = metadata.row_groups[index]
  const start = group.columns[0].file_offset
  const end = group.columns.reduce((max, column) => {
    const meta = column.meta_data
    const first = meta.dictionary_page_offset ?? meta.data_page_offset
    return first + meta.total_compressed_size > max ? first + meta.total_compressed_size : max
  }, 0n)
  const shift = (/** @type {bigint | undefined} */ offset) => offset === undefined ? undefined : offset - start
  return {
    bytes: new Uint8Array(file, Number(start), Number(end - start)),
    chunks: group.columns.map(column => ({
      chunk: {
        ...column,
        file_offset: shift(column.file_offset),
        meta_data: {
          ...column.meta_data,
          data_page_offset: shift(column.meta_data.data_page_offset),
          dictionary_page_offset: shift(column.meta_data.dictionary_page_offset),
        },
        offset_index_offset: undefined,
        offset_index_length: undefined,
        column_index_offset: undefined,
        column_index_length: undefined,
      },
    })),
    numRows: Number(group.num_rows),
  }
}

const schema = [
  { name: 'root', num_children: 2 },
  { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
  { name: 'name', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
]

function sourceFile() {
  const writer = new ByteWriter()
  const source = new ParquetWriter({ writer, schema })
  source.write({
    columnData: [
      { name: 'id', data: Int32Array.from({ length: 300 }, (_, i) => i) },
      { name: 'name', data: Array.from({ length: 300 }, (_, i) => i % 7 ? `name ${i % 10}` : null) },
    ],
    rowGroupSize: 100,
  })
  source.finish()
  return writer.getBuffer()
}

describe('ParquetWriter.appendRowGroup', () => {
  it('moves row groups encoded elsewhere into the file, their offsets shifted to where they land', async () => {
    const file = sourceFile()
    const writer = new ByteWriter()
    const target = new ParquetWriter({ writer, schema })
    // Out of order, and one twice: each lands wherever the file has got to.
    target.appendRowGroup(rowGroupOf(file, 2))
    target.appendRowGroup(rowGroupOf(file, 0))
    target.appendRowGroup(rowGroupOf(file, 2))
    target.finish()

    const rows = await parquetReadObjects({ file: writer.getBuffer() })
    expect(rows).toHaveLength(300)
    expect(rows.map(row => row.id)).toEqual([
      ...Array.from({ length: 100 }, (_, i) => 200 + i),
      ...Array.from({ length: 100 }, (_, i) => i),
      ...Array.from({ length: 100 }, (_, i) => 200 + i),
    ])
    expect(rows[100].name).toBe(null)
    expect(rows[101].name).toBe('name 1')
    const metadata = parquetMetadata(writer.getBuffer())
    expect(metadata.num_rows).toBe(300n)
    expect(metadata.row_groups.map(group => group.num_rows)).toEqual([100n, 100n, 100n])
  })

  it('calls writer.flush() after each appended row group, as write() does', () => {
    const writer = new ByteWriter()
    /** @type {number[]} */
    const flushed = []
    writer.flush = () => { flushed.push(writer.offset) }
    const target = new ParquetWriter({ writer, schema })
    target.appendRowGroup(rowGroupOf(sourceFile(), 1))
    expect(flushed).toEqual([writer.offset])
  })
})
