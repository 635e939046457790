"""What decoding a Parquet export costs, bounded from its pages before anything decodes it, not
from what its footer claims (the pull client's decoded-size.ts, the same rule and numbers).

The footer's length first (a footer of millions of empty entries is refused before it is parsed);
then, per column chunk, every page header between its first page and its end: readers allocate
what page headers say (values, uncompressed bytes), so those are summed. A dictionary page is
decompressed (within its declared size) to find its longest value, which each of the chunk's
values may expand to. A chunk whose pages hold other than the values its footer names is refused."""
from __future__ import annotations

import struct
from typing import Any, Dict, Optional, Tuple

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ._arrow_memory import parquet_file

#: Bytes one value of a fixed-width Parquet type decodes to (a boolean: one byte in the count).
_WIDTHS = {"BOOLEAN": 1, "INT32": 4, "INT64": 8, "INT96": 12, "FLOAT": 4, "DOUBLE": 8}
#: Decoded bytes of a variable-width value besides its own: Arrow's offset and validity.
_OFFSET_BYTES = 8
#: However small its file, an export may decode to this much; past it, to at most
#: MAX_DECODED_RATIO times its file's size. The service's exports decode to a few times their size.
MIN_DECODED_LIMIT = 64 * 1024 * 1024
MAX_DECODED_RATIO = 256
#: The largest footer taken: MIN_FOOTER_LIMIT, or 1/FOOTER_SHARE of the file past that.
MIN_FOOTER_LIMIT = 256 * 1024
FOOTER_SHARE = 64

_DICTIONARY_PAGE = 2
_DATA_PAGE = 0
_DATA_PAGE_V2 = 3
_CODECS = {"UNCOMPRESSED": None, "SNAPPY": "snappy", "GZIP": "gzip", "BROTLI": "brotli", "ZSTD": "zstd", "LZ4_RAW": "lz4_raw", "LZ4": "lz4_raw"}
#: The encodings of data pages whose decoded size page sizes and values bound (Parquet's numbers:
#: PLAIN, PLAIN_DICTIONARY, RLE, BIT_PACKED, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
#: RLE_DICTIONARY, BYTE_STREAM_SPLIT). Not DELTA_BYTE_ARRAY (7): a value may repeat all of the one
#: before it. The service writes none of the others either.
_READ_ENCODINGS = {0, 2, 3, 4, 5, 6, 8, 9}


class UnsafeParquet(ValueError):
    """The file is not Parquet, or decodes to more than a reader should be given."""


def decoded_limit(file_bytes: int) -> int:
    """The most a Parquet file of ``file_bytes`` may decode to (the floor for small files)."""
    return max(MIN_DECODED_LIMIT, MAX_DECODED_RATIO * file_bytes)


def footer_limit(file_bytes: int) -> int:
    """The largest footer a Parquet file of ``file_bytes`` may have."""
    return max(MIN_FOOTER_LIMIT, file_bytes // FOOTER_SHARE)


def check_parquet(data: pa.Buffer) -> Tuple[pq.FileMetaData, int]:
    """The file's footer and the most it decodes to; raises UnsafeParquet. ``data`` is in Arrow's
    memory (_arrow_memory.py)."""
    view = memoryview(data).cast("B")
    size = len(view)
    if size < 12 or bytes(view[:4]) != b"PAR1" or bytes(view[-4:]) != b"PAR1":
        raise UnsafeParquet("it is not a Parquet file (no PAR1 at both ends)")
    footer = struct.unpack_from("<I", view, size - 8)[0]
    data_end = size - 8 - footer
    if data_end < 4:
        raise UnsafeParquet(f"its footer claims {footer} bytes, more than the file has")
    if footer > footer_limit(size):
        raise UnsafeParquet(f"its footer takes {footer} bytes, more than {footer_limit(size)} for a file of {size} bytes")
    try:
        metadata = parquet_file(data).metadata
    except (pa.ArrowException, OSError, ValueError) as error:
        raise UnsafeParquet(f"it is not Parquet ({error})") from None
    limit = decoded_limit(size)
    decoded = 0
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for index in range(row_group.num_columns):
            column = row_group.column(index)

            def expansion(group: int = group, name: str = metadata.schema.column(index).path) -> int:
                return _dictionary_expansion(data, group, name)

            decoded += _chunk_bound(view, column, metadata.schema.column(index).length, data_end, limit - decoded, expansion)
            if decoded > limit:
                raise UnsafeParquet(f"its pages decode to more than {decoded} bytes, more than a reader should be given for a file of {size} bytes ({limit})")
    return metadata, decoded


def _chunk_bound(view: memoryview, column: Any, type_length: Optional[int], data_end: int, budget: int, expansion: Any) -> int:
    # A dictionary offset of 0 (older writers, for chunks without a dictionary) is no offset.
    start = column.dictionary_page_offset if column.has_dictionary_page and column.dictionary_page_offset else column.data_page_offset
    end = start + column.total_compressed_size
    name = column.path_in_schema
    if not (4 <= start <= end <= data_end):
        raise UnsafeParquet(f"column {name} lies outside the file's data")
    physical = column.physical_type
    width = _WIDTHS.get(physical) or ((type_length or _OFFSET_BYTES) if physical == "FIXED_LEN_BYTE_ARRAY" else None)
    uncompressed = 0
    values = 0
    longest: Optional[int] = None
    offset = start
    while offset < end:
        try:
            header, offset = _read_struct(view, offset, end)
        except (IndexError, ValueError, struct.error) as error:
            raise UnsafeParquet(f"column {name} has a page header that cannot be read ({error})") from None
        kind, page_size, compressed = header.get(1), header.get(2), header.get(3)
        if not (isinstance(page_size, int) and isinstance(compressed, int) and page_size >= 0 and compressed >= 0 and offset + compressed <= end):
            raise UnsafeParquet(f"column {name} has a page whose sizes do not fit the chunk")
        uncompressed += page_size
        if uncompressed > budget:
            return uncompressed
        if kind == _DICTIONARY_PAGE:
            entries = (header.get(7) or {}).get(1, 0)
            longest = max(longest or 0, width if width is not None else _longest_value(view[offset:offset + compressed], page_size, column.compression, entries, name))
        elif kind in (_DATA_PAGE, _DATA_PAGE_V2):
            page = header.get(5) or header.get(8) or {}
            encoding = page.get(2) if kind == _DATA_PAGE else page.get(4)
            if encoding not in _READ_ENCODINGS:
                raise UnsafeParquet(f"column {name} has a page in encoding {encoding}, which the service never writes")
            count = page.get(1)
            if not isinstance(count, int) or count < 0:
                raise UnsafeParquet(f"column {name} has a data page without its number of values")
            values += count
        offset += compressed
    if values != column.num_values:
        raise UnsafeParquet(f"column {name}'s pages hold {values} values where its footer says {column.num_values}")
    if width is not None:
        return max(uncompressed, values * width)
    bound = uncompressed + values * ((longest or 0) + _OFFSET_BYTES)
    # Past the budget only because one dictionary value is long: count what the indices point at
    # (read as a dictionary column: its indices cost 4 bytes a value, within the budget by now).
    if bound <= budget or longest is None or values * _OFFSET_BYTES > budget:
        return bound
    exact = expansion()
    return bound if exact is None else uncompressed + exact


def _dictionary_expansion(data: pa.Buffer, group: int, name: str) -> Optional[int]:
    """What one column chunk's values decode to: each value's length as its indices point at it, and an offset each."""
    try:
        column = parquet_file(data, read_dictionary=[name]).read_row_group(group, columns=[name]).column(0)
    except (pa.ArrowException, OSError, ValueError) as error:
        raise UnsafeParquet(f"column {name} cannot be read ({error})") from None
    total = 0
    for chunk in column.chunks:
        flat = chunk.type.value_type if pa.types.is_dictionary(chunk.type) else chunk.type
        if not (pa.types.is_string(flat) or pa.types.is_binary(flat) or pa.types.is_large_string(flat) or pa.types.is_large_binary(flat)):
            return None  # a nested column: its bound stands
        if pa.types.is_dictionary(chunk.type):
            total += (pc.sum(pc.take(pc.binary_length(chunk.dictionary), chunk.indices)).as_py() or 0) + _OFFSET_BYTES * len(chunk)
        else:
            total += (pc.sum(pc.binary_length(chunk)).as_py() or 0) + _OFFSET_BYTES * len(chunk)
    return total


def _longest_value(page: memoryview, size: int, compression: str, entries: int, name: str) -> int:
    """The longest value of a byte-array dictionary page, decompressed within its declared size; a
    codec this loader cannot decompress counts the whole page as one value."""
    codec = _CODECS.get(compression.upper(), "?")
    if codec == "?":
        return size
    try:
        plain = bytes(page) if codec is None else pa.decompress(bytes(page), decompressed_size=size, codec=codec).to_pybytes()
    except (pa.ArrowException, OSError, ValueError) as error:
        raise UnsafeParquet(f"column {name}'s dictionary does not decompress to its declared {size} bytes ({error})") from None
    if len(plain) != size:
        raise UnsafeParquet(f"column {name}'s dictionary decompresses to {len(plain)} bytes, not the {size} it declares")
    longest = 0
    at = 0
    for _ in range(entries):
        if at + 4 > len(plain):
            raise UnsafeParquet(f"column {name}'s dictionary holds fewer than the {entries} values it declares")
        length = struct.unpack_from("<I", plain, at)[0]
        at += 4 + length
        if at > len(plain):
            raise UnsafeParquet(f"column {name}'s dictionary holds a value past its end")
        longest = max(longest, length)
    return longest


# Thrift's compact protocol, as far as a page header needs it: a struct's fields by id (nested
# structs as dicts; lists, sets and maps skipped), reading no byte past ``end``.

def _read_varint(view: memoryview, offset: int, end: int) -> Tuple[int, int]:
    value = 0
    shift = 0
    while True:
        if offset >= end or shift > 63:
            raise ValueError("a varint runs past the page header")
        byte = view[offset]
        offset += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, offset
        shift += 7


def _zigzag(value: int) -> int:
    return (value >> 1) ^ -(value & 1)


def _read_value(view: memoryview, offset: int, end: int, kind: int, depth: int) -> Tuple[Any, int]:
    if kind in (1, 2):  # booleans live in the field header
        return kind == 1, offset
    if kind == 3:
        if offset >= end:
            raise ValueError("a byte runs past the page header")
        return view[offset], offset + 1
    if kind in (4, 5, 6):
        raw, offset = _read_varint(view, offset, end)
        return _zigzag(raw), offset
    if kind == 7:
        if offset + 8 > end:
            raise ValueError("a double runs past the page header")
        return None, offset + 8
    if kind == 8:
        length, offset = _read_varint(view, offset, end)
        if offset + length > end:
            raise ValueError("a binary runs past the page header")
        return None, offset + length
    if kind in (9, 10):
        if offset >= end:
            raise ValueError("a list runs past the page header")
        head = view[offset]
        offset += 1
        count = head >> 4
        if count == 15:
            count, offset = _read_varint(view, offset, end)
        for _ in range(count):
            # A boolean in a list takes a byte of its own.
            _, offset = (None, offset + 1) if head & 0x0F in (1, 2) else _read_value(view, offset, end, head & 0x0F, depth + 1)
        return None, offset
    if kind == 11:
        count, offset = _read_varint(view, offset, end)
        if count:
            if offset >= end:
                raise ValueError("a map runs past the page header")
            types = view[offset]
            offset += 1
            for _ in range(count):
                _, offset = _read_value(view, offset, end, types >> 4, depth + 1)
                _, offset = _read_value(view, offset, end, types & 0x0F, depth + 1)
        return None, offset
    if kind == 12:
        return _read_struct(view, offset, end, depth + 1)
    raise ValueError(f"a field of unknown type {kind}")


def _read_struct(view: memoryview, offset: int, end: int, depth: int = 0) -> Tuple[Dict[int, Any], int]:
    if depth > 16:
        raise ValueError("the page header nests too deep")
    fields: Dict[int, Any] = {}
    field = 0
    while True:
        if offset >= end:
            raise ValueError("a struct runs past the page header")
        head = view[offset]
        offset += 1
        if head == 0:
            return fields, offset
        delta = head >> 4
        if delta:
            field += delta
        else:
            raw, offset = _read_varint(view, offset, end)
            field = _zigzag(raw)
        fields[field], offset = _read_value(view, offset, end, head & 0x0F, depth)
