"""Parquet read from and written to memory Arrow owns, never a Python object.

pyarrow can abort a process that has done its work as it exits ("terminate called without an
active exception", exit status 134; apache/arrow#34314): an Arrow thread that lets go of a Python
object (the bytes a reader reads, the ``io.BytesIO`` a writer writes to) once the interpreter has
begun to finalize ends inside C++ as it asks for the GIL. A load that wrote its copy and returned
would then fail the job that ran it. So every Parquet file this package reads or writes is in
Arrow's memory: a copy of the bytes received, a buffer Arrow allocates for the bytes written."""
from __future__ import annotations

from typing import Any, Union

import pyarrow as pa
import pyarrow.parquet as pq

Bytes = Union[bytes, bytearray, memoryview]


def arrow_buffer(data: Bytes) -> pa.Buffer:
    """A copy of ``data`` in Arrow's memory, of its exact size."""
    buffer = pa.allocate_buffer(memoryview(data).nbytes)
    pa.FixedSizeBufferWriter(buffer).write(data)
    return buffer


def parquet_file(data: pa.Buffer, **options: Any) -> pq.ParquetFile:
    """A Parquet reader of a buffer in Arrow's memory (``arrow_buffer``)."""
    return pq.ParquetFile(pa.BufferReader(data), **options)


def parquet_bytes(table: pa.Table) -> pa.Buffer:
    """``table`` written as a Parquet file, in Arrow's memory."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue()
