"""Parquet goes in and out of pyarrow through Arrow's memory only (_arrow_memory.py): an Arrow
thread that lets go of a Python object as the interpreter finalizes aborts the process with 134
(apache/arrow#34314), after a load that did its work."""
from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import summary_client
from summary_client import _bounds, _load
from summary_client._arrow_memory import arrow_buffer, parquet_bytes, parquet_file
from summary_client._load import _read_parquet

PACKAGE = Path(summary_client.__file__).parent
#: What hands pyarrow a Python object to read or write: only _arrow_memory.py may call these.
PYTHON_OWNED = re.compile(r"\b(?:pa\.(?:BufferReader|py_buffer|foreign_buffer|input_stream|output_stream|PythonFile|ipc|dataset)"
                          r"|pq\.(?:ParquetFile|ParquetDataset|ParquetWriter|read_table|read_metadata|read_schema|write_table)"
                          r"|pyarrow\.(?:parquet|ipc|dataset)\.|from pyarrow)")


def test_bytes_are_copied_into_arrows_memory() -> None:
    data = bytes(range(256)) * 4096
    for given in (data, bytearray(data), memoryview(data)):
        buffer = arrow_buffer(given)
        assert buffer.to_pybytes() == data
        assert buffer.is_mutable and buffer.size == len(data)
        assert buffer.address != pa.py_buffer(given).address


def test_a_written_table_reads_back_whole() -> None:
    table = pa.table({"id": ["a", "b", "c"], "amount": pa.array([1, 2, 3], pa.decimal128(12, 2))})
    written = parquet_bytes(table)
    assert isinstance(written, pa.Buffer)
    assert parquet_file(written).read().equals(table)
    assert _read_parquet(bytes(written), "here").equals(table)


def test_an_answers_parquet_is_read_from_a_copy_in_arrows_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    table = pa.table({"id": ["a", "b"], "title": ["x" * 40, "y"]})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    received = sink.getvalue().to_pybytes()
    seen: list = []

    def recording(data: pa.Buffer, **options: object) -> pq.ParquetFile:
        seen.append(data)
        return parquet_file(data, **options)

    monkeypatch.setattr(_bounds, "parquet_file", recording)
    monkeypatch.setattr(_load, "parquet_file", recording)
    assert _read_parquet(received, "here").equals(table)
    assert len(seen) >= 2
    for data in seen:
        assert isinstance(data, pa.Buffer) and data.is_mutable, "a reader over the bytes received, not over Arrow's copy"
        assert data.address != pa.py_buffer(received).address


def test_no_module_but_arrow_memory_hands_pyarrow_a_python_object() -> None:
    found = [f"{path.name}:{number}: {line.strip()}" for path in sorted(PACKAGE.glob("*.py")) if path.name != "_arrow_memory.py"
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if PYTHON_OWNED.search(line)]
    assert found == []
