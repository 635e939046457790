"""One table for a date range of any length: calendar-month windows, each one export (Parquet, or
the zip of invoices' two tables), a window too large for one export halved down to single days,
and every answer that no retry and no other window can change stopping the load at once. With
``cache="DIR"``, the range is kept by the service's delta where it offers one (_delta.py); else
each window is asked for with the ETag of its copy in DIR, and exported again only when it changed
(_cache.py)."""
from __future__ import annotations

import io
import logging
import os
import zipfile
import zlib
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Union

import pyarrow as pa

from ._arrow_memory import Bytes, arrow_buffer, parquet_file
from ._bounds import UnsafeParquet, check_parquet
from ._cache import Cached, WindowCache
from ._delta import load_via_delta
from ._job import NotOffered, load_via_job
from ._datasets import DATASETS, Dataset
from ._errors import RefusedError, ServiceFailedError, TooLargeError, UnavailableError, UnsafeAnswerError, printable
from ._settings import Settings, read_settings
from ._token import token_source
from ._transport import Answer, BodyTooLarge, Transport, is_retried, new_session
from ._windows import DateLike, Window, halves, month_windows, parse_day

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import polars

log = logging.getLogger("summary_client")

_PARQUET_MAGIC = b"PAR1"
_NOT_FILTERS = {"page", "pageSize", "orderBy", "order"}

#: What to change for a refusal, by the problem's code (docs/errors.md), else by status.
_REMEDY_BY_CODE = {
    "INVALID_FILTER": "fix the filters= value (the detail says which and why)",
    "UNKNOWN_FILTER": "fix the filters= name (names are case-sensitive)",
    "INVALID_BODY": "fix the filters= values",
    "INVALID_DATE": "fix start/end",
    "INVALID_TOKEN": "check SUMMARY_SCOPE (api://<APP_ID>/.default of this service) and SUMMARY_TENANT_ID",
    "INVALID_API_KEY": "check SUMMARY_API_KEY (the backend key issued to you)",
    "INVALID_SUBSCRIPTION_KEY": "check SUMMARY_SUBSCRIPTION_KEY (your API Management subscription key)",
    "MISSING_ROLE": "your client application needs the Data.Read app role: ask your Entra administrator to grant it",
    "CLIENT_NOT_REGISTERED": "your client application is not registered with the service: ask the service owners to register SUMMARY_CLIENT_ID",
    "NOT_FOUND": "check SUMMARY_BASE_URL: the gateway base URL including the API path, without /v1",
    "REQUEST_TOO_LARGE": "use fewer or shorter filters= values",
    "INVALID_JSON": "update summary-data-client: it sent a body the service cannot read",
    "INVALID_ORDER_BY": "update summary-data-client",
    "NOT_ACCEPTABLE": "update summary-data-client: the service does not produce the format it asked for",
    "UNSUPPORTED_MEDIA_TYPE": "update summary-data-client: the service does not take the body it sent",
}
_REMEDY_BY_STATUS = {
    400: "fix the request the detail names",
    401: "check SUMMARY_API_KEY, SUMMARY_SUBSCRIPTION_KEY and the token settings",
    403: "ask the service owners for access",
    404: "check SUMMARY_BASE_URL: the gateway base URL including the API path, without /v1",
    405: "check SUMMARY_BASE_URL",
    406: "update summary-data-client",
    415: "update summary-data-client",
}


def load_as_arrow(
    dataset: str,
    start: DateLike,
    end: DateLike,
    *,
    by: str = "created",
    filters: Optional[Mapping[str, str]] = None,
    table: Optional[str] = None,
    cache: Optional[Union[str, "os.PathLike[str]"]] = None,
    via: Optional[str] = None,
    **settings: Any,
) -> pa.Table:
    """Every record of ``dataset`` whose ``by`` date lies in ``start``..``end`` (UTC days, both included), as one Arrow table.

    ``dataset`` is ``"contracts"`` or ``"invoices"``; ``by`` one of the dataset's date pairs
    (``"created"``, ``"updated"``, invoices also ``"invoiceDate"``); ``filters`` the dataset's other
    filters by name (``{"contractWorkspaceID": "CW000123"}``). Invoices have two tables:
    ``table="invoices"`` (the default, one row per invoice) or ``table="invoice_tables"`` (one row
    per invoice line). The range may be of any length: it is read in calendar months.

    ``via="job"`` (the default for a range of more than one month, where the service offers export
    jobs) asks for the whole range in one export job and downloads its files from storage, four at
    a time; ``via="windows"`` asks for it month by month (the default for one month, and where the
    service offers no jobs).

    ``cache="DIR"``, where the service offers deltas (``via="delta"``, the default with a cache),
    keeps the range in DIR with the token of the service's delta: the first call asks the whole range
    as one Parquet delta, every later call of the same range only what changed since (one request;
    the service reads the records written since, not the range) and merges it, removals included;
    a range whose end moved on (one that ends today) goes on the same way from the copy of the
    range within it, the days added coming whole in its delta.
    A token the service no longer continues starts again from the whole range; a delta too large
    for one answer, or a service without deltas, goes on as below (the rows then come month by
    month; through the delta they come in no particular order).

    Without deltas, ``cache="DIR"`` keeps each window's export in DIR with its ETag; the next call asks the service
    whether each window changed (one cheap check each: 412 when not; through a job, the ETags go in
    its ``ifNoneMatch``) and exports again only the windows that did, so a second call with nothing
    changed makes no export and returns the same table as the service would. A job's copies are
    kept apart from the month-by-month ones (a job's files are one table each), and a job keeps the
    copies of both of invoices' tables: loading ``invoice_tables`` after ``invoices`` (or the
    reverse) exports again no month the first load's job exported.

    Settings come from keyword arguments (``base_url=``, ``client_id=``, ...), else from the same
    ``SUMMARY_*`` environment variables as the summary-client CLI (README.md).

    Raises ``SettingsError``, ``TokenError``, ``RefusedError`` (a permanent refusal: fix what its
    ``remedy`` says), ``UnavailableError`` (still unavailable after the retries),
    ``TooLargeError`` (a single day too large for one export: narrow ``filters``) or
    ``UnsafeAnswerError`` (an answer this client will not take). Nothing is returned in part.
    """
    spec, entry, members = _request_shape(dataset, by, filters, table)
    if via not in (None, "delta", "job", "windows"):
        raise ValueError(f"via must be 'delta', 'job' or 'windows', not {via!r}")
    if via == "delta" and cache is None:
        raise ValueError("via='delta' keeps a cache by the service's delta: give cache='DIR' too")
    first, last = parse_day(start, "start"), parse_day(end, "end")
    windows = month_windows(first, last)
    use_job = spec.jobs_path is not None and (via == "job" or (via in (None, "delta") and len(windows) > 1))
    if via == "job" and spec.jobs_path is None:
        raise ValueError(f"{dataset} has no export jobs in this client's service description: use via='windows'")
    resolved = read_settings(**settings)
    request = {"service": resolved.base_url, "client": resolved.client_id or "", "dataset": dataset, "by": by, "filters": members}
    session = new_session(resolved)
    try:
        transport = Transport(resolved, session, token_source(resolved, session))
        tables: Optional[List[pa.Table]] = None
        if cache is not None and via in (None, "delta"):
            body = {f"{by}From": first.isoformat(), f"{by}To": last.isoformat(), **members}
            cap = resolved.max_export_bytes
            kept = load_via_delta(transport, spec, body, cap, cache, request, lambda answer, name: _read_export(answer, name, cap), _read_parquet, _failure, via == "delta")
            if kept is not None:
                tables = [kept[dataset if entry is None else entry[: -len(".parquet")]]]
            elif via == "delta" and spec.delta_path is None:
                raise RefusedError(404, "NOT_FOUND", f"{dataset} has no delta in this client's service description", "none", "load with via='windows'")
        if tables is None and use_job:
            tables = _through_job(transport, resolved, spec, dataset, entry, by, members, windows, request, cache, via == "job")
        if tables is None:
            copies = None if cache is None else WindowCache(cache, request)
            tables = []
            for window in windows:
                tables.extend(_load_window(transport, spec, entry, by, members, window, resolved.max_export_bytes, copies))
    finally:
        session.close()
    try:
        return pa.concat_tables(tables)
    except pa.ArrowInvalid as error:
        raise UnsafeAnswerError(f"the windows' exports have different columns ({printable(str(error))}); did the client's roles change during the load? Load again") from None


def _through_job(transport: Transport, resolved: Settings, spec: Dataset, dataset: str, entry: Optional[str], by: str, members: Mapping[str, str],
                 windows: List[Window], request: Mapping[str, Any], cache: Optional[Union[str, "os.PathLike[str]"]], asked: bool) -> Optional[List[pa.Table]]:
    """The range's tables through one export job, or None where the service offers none for it (read month by month then)."""
    table = dataset if entry is None else entry[: -len(".parquet")]
    tables = [dataset] if spec.zip_entries is None else [name[: -len(".parquet")] for name in spec.zip_entries]
    # A job's copies are one table's files: kept apart from month-by-month copies (a zip of both
    # tables), one cache per table; a job keeps every table's, so one job serves them all.
    copies = None if cache is None else {name: WindowCache(cache, {**request, "table": name, "via": "job"}) for name in tables}
    body = {f"{by}From": windows[0].start.isoformat(), f"{by}To": windows[-1].end.isoformat(), **members}
    storage = new_session(resolved)
    # Nothing of this machine's either goes to storage (requests would add a ~/.netrc login for its
    # host): the URL is the only credential. Proxies from the environment still apply.
    storage.auth = _no_login
    try:
        return load_via_job(transport, storage, spec, table, body, windows, resolved.max_export_bytes, copies, lambda data, where: _read_parquet(data, where), _failure, resolved.deadline_seconds)
    except NotOffered as why:
        if asked:
            raise RefusedError(404, "NOT_FOUND", f"{why}", "none", "load with via='windows'") from None
        log.info("month by month: %s", why)
        return None
    finally:
        storage.close()


def _no_login(request: Any) -> Any:
    """An authentication that adds nothing: with it set, requests consults no ~/.netrc."""
    return request


def load_as_pandas(dataset: str, start: DateLike, end: DateLike, **options: Any) -> "pandas.DataFrame":
    """``load_as_arrow`` as a pandas DataFrame (needs the ``pandas`` extra); decimals stay exact (``decimal.Decimal``)."""
    _need("pandas")
    return load_as_arrow(dataset, start, end, **options).to_pandas()


def load_as_polars(dataset: str, start: DateLike, end: DateLike, **options: Any) -> "polars.DataFrame":
    """``load_as_arrow`` as a polars DataFrame (needs the ``polars`` extra); decimals stay exact (``pl.Decimal``)."""
    _need("polars")
    import polars as pl

    frame = pl.from_arrow(load_as_arrow(dataset, start, end, **options))
    assert isinstance(frame, pl.DataFrame)
    return frame


def _need(module: str) -> None:
    """Stops before any request when the frame library is missing."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise ImportError(f"load_as_{module} needs {module}, which is not installed here: pip install {module} (into the environment this notebook runs in)")


def _request_shape(dataset: str, by: str, filters: Optional[Mapping[str, str]], table: Optional[str]) -> "tuple[Dataset, Optional[str], Dict[str, str]]":
    """Checks what was asked before any request: the dataset, the date pair, the filters, the table."""
    spec = DATASETS.get(dataset)
    if spec is None:
        raise ValueError(f"unknown dataset {dataset!r}; the datasets are {', '.join(DATASETS)}")
    if by not in spec.date_by:
        raise ValueError(f"{dataset} can be read by {', '.join(spec.date_by)} dates, not {by!r}")
    members: Dict[str, str] = {}
    for name, value in (filters or {}).items():
        if name not in spec.filters:
            hint = " (the date range is start/end and by=)" if name.endswith(("From", "To")) else " (pages are not asked for: the whole range is read)" if name in _NOT_FILTERS else ""
            raise ValueError(f"{name!r} is not a filter of {dataset}{hint}; its filters are {', '.join(spec.filters)}")
        if not isinstance(value, str):
            raise ValueError(f"the filter {name} must be a string, not {type(value).__name__}")
        members[name] = value
    if spec.zip_entries is None:
        if table not in (None, dataset):
            raise ValueError(f"{dataset} has one table; leave table= out")
        return spec, None, members
    names = [entry[: -len(".parquet")] for entry in spec.zip_entries]
    chosen = table or names[0]
    if chosen not in names:
        raise ValueError(f"{dataset} has the tables {', '.join(names)}, not {table!r}")
    return spec, f"{chosen}.parquet", members


def _load_window(transport: Transport, spec: Dataset, entry: Optional[str], by: str, members: Mapping[str, str], window: Window, cap: int, copies: Optional[WindowCache] = None) -> List[pa.Table]:
    """One window's table, or its halves' when it is too large for one export, down to single days;
    from its copy in ``copies`` when the service says it is unchanged."""
    copy = copies.get(window) if copies is not None else None
    if isinstance(copy, list):
        return [table for part in copy for table in _load_window(transport, spec, entry, by, members, part, cap, copies)]
    body = {f"{by}From": window.start.isoformat(), f"{by}To": window.end.isoformat(), **members}
    try:
        answer = transport.post(spec.path, body, spec.export_type, cap, copy.etag if isinstance(copy, Cached) else None)
        too_large = answer.status == 413 and answer.code == "RESULT_TOO_LARGE"
    except BodyTooLarge:
        answer, too_large = None, True
    if too_large:
        parts = halves(window)
        if parts is None:
            raise TooLargeError(f"the export of {window.start} alone is larger than one export may be (413 RESULT_TOO_LARGE or SUMMARY_MAX_EXPORT_BYTES {cap}): narrow it with filters=")
        log.info("%s..%s is too large for one export: halved", window.start, window.end)
        if copies is not None:
            copies.split(window, parts)
        return [table for part in parts for table in _load_window(transport, spec, entry, by, members, part, cap, copies)]
    assert answer is not None
    if isinstance(copy, Cached) and answer.status == 412 and answer.code == "RESULT_UNCHANGED":
        log.info("%s..%s: unchanged, read from the cache", window.start, window.end)
        with open(copy.path, "rb") as file:
            return [_read_export(Answer(200, answer.headers, file.read()), entry, cap)]
    if answer.status != 200:
        raise _failure(answer)
    log.info("%s..%s: %d bytes", window.start, window.end, len(answer.body))
    table = _read_export(answer, entry, cap)
    if copies is not None:
        copies.put(window, answer.headers.get("etag") or "", answer.body, answer.headers.get("x-summary-as-of") or "")
    return [table]


def _failure(answer: Answer) -> Exception:
    problem = answer.problem()
    code = answer.code
    detail = printable(problem["detail"]) if isinstance(problem.get("detail"), str) else printable(bytes(answer.body[:1000]).decode("utf-8", "replace"))
    if answer.status == 500:
        return ServiceFailedError(f"the service failed on this request: 500 {code}: {detail} (request id {answer.request_id}); asking again fails alike: report the request id to the service owners")
    if is_retried(answer.status):
        return UnavailableError(f"the service stayed unavailable: {answer.status} {code}: {detail} (request id {answer.request_id}); try again later")
    if 200 <= answer.status < 300:
        return UnsafeAnswerError(f"the service answered {answer.status} where 200 and an export were expected (request id {answer.request_id})")
    remedy = _REMEDY_BY_CODE.get(code) or _REMEDY_BY_STATUS.get(answer.status) or "the service refuses this request whatever the window"
    return RefusedError(answer.status, code, detail, answer.request_id, remedy)


def _read_export(answer: Answer, entry: Optional[str], cap: int) -> pa.Table:
    """The Parquet table of an export: the file itself, or one expected entry of its zip, each
    decoded only once what decoding it costs is known to be within bounds (_decoded_bounds)."""
    data = answer.body if entry is None else _zip_entry(answer, entry, cap)
    if not (bytes(data[:4]) == _PARQUET_MAGIC and bytes(data[-4:]) == _PARQUET_MAGIC):
        raise UnsafeAnswerError(f"the export is not a Parquet file (request id {answer.request_id})")
    try:
        return _read_parquet(data, answer.request_id)
    except (pa.ArrowException, OSError, ValueError, KeyError) as error:
        raise UnsafeAnswerError(f"the export is not a readable Parquet file ({printable(str(error))}; request id {answer.request_id})") from None


def _zip_entry(answer: Answer, entry: str, cap: int) -> bytes:
    """One entry of the export's zip, read to its declared size and no further. The service stores
    its entries (Parquet is compressed already), so a compressed entry is refused: inflating is
    what a zip bomb needs."""
    shape = _zip_shape_problem(answer.body)
    if shape:
        raise UnsafeAnswerError(f"the export is refused before it is unpacked: {shape} (request id {answer.request_id})")
    try:
        archive = zipfile.ZipFile(io.BytesIO(answer.body))
        info = archive.getinfo(entry)
        if info.compress_type != zipfile.ZIP_STORED:
            raise UnsafeAnswerError(f"the export's {entry} is compressed (zip method {info.compress_type}); the service stores its entries, and this client inflates none (request id {answer.request_id})")
        if info.file_size > cap or info.compress_size != info.file_size:
            raise UnsafeAnswerError(f"the export's {entry} declares {info.file_size} bytes ({info.compress_size} stored), more than SUMMARY_MAX_EXPORT_BYTES {cap} or not what is stored (request id {answer.request_id})")
        with archive.open(info) as member:
            data = member.read(info.file_size)
        if len(data) != info.file_size:
            raise UnsafeAnswerError(f"the export's {entry} is shorter than it declares (request id {answer.request_id})")
        return data
    except KeyError:
        raise UnsafeAnswerError(f"the export has no {entry} (request id {answer.request_id})") from None
    except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError, RuntimeError, ValueError, zlib.error) as error:
        raise UnsafeAnswerError(f"the export is not a readable zip ({printable(str(error))}; request id {answer.request_id})") from None


#: The most entries a zip of the service's may list (it has two), and the most bytes its central
#: directory may take: millions of junk entries cost zipfile every one of them before a byte is
#: read, and zipfile reads the directory by its size, not its count.
MAX_ZIP_ENTRIES = 16
MAX_ZIP_DIRECTORY_BYTES = 64 * 1024


def _zip_shape_problem(body: Union[bytes, bytearray]) -> Optional[str]:
    """Why a zip is refused before its central directory is read (the pull client's document-shape.ts), or None."""
    view = memoryview(body)
    for at in range(len(body) - 22, max(-1, len(body) - 22 - 0xFFFF - 1), -1):
        if bytes(view[at:at + 4]) != b"PK\x05\x06":
            continue
        here = int.from_bytes(view[at + 8:at + 10], "little")
        entries = int.from_bytes(view[at + 10:at + 12], "little")
        size = int.from_bytes(view[at + 12:at + 16], "little")
        if entries == 0xFFFF or here == 0xFFFF or size == 0xFFFFFFFF or (at >= 20 and bytes(view[at - 20:at - 16]) == b"PK\x06\x07"):
            return "it is a zip64 archive, which the service never sends"
        if max(entries, here) > MAX_ZIP_ENTRIES:
            return f"its central directory lists {max(entries, here)} entries (the service's zip has two; at most {MAX_ZIP_ENTRIES} are read)"
        if size > MAX_ZIP_DIRECTORY_BYTES:
            return f"its central directory takes {size} bytes (the service's takes a few hundred; at most {MAX_ZIP_DIRECTORY_BYTES} are read)"
        if size > at:
            return f"its central directory claims {size} bytes, more than comes before it"
        return None
    return None


def _flat(kind: pa.DataType) -> bool:
    """A plain column type, as the service's exports have (a dictionary of one too)."""
    if pa.types.is_dictionary(kind):
        return _flat(kind.value_type)
    if isinstance(kind, pa.ExtensionType):
        return False
    return any(check(kind) for check in (pa.types.is_string, pa.types.is_large_string, pa.types.is_binary, pa.types.is_large_binary, pa.types.is_integer,
                                         pa.types.is_floating, pa.types.is_decimal, pa.types.is_date, pa.types.is_timestamp, pa.types.is_boolean, pa.types.is_null))


def _read_parquet(data: Bytes, request_id: str) -> pa.Table:
    """Reads a Parquet file once what decoding it costs is bounded from its pages (_bounds.py:
    values and sizes as its page headers say, its dictionaries' longest values), not from what its
    footer claims: a one-value dictionary repeated by run-length indices, or a footer that
    understates its pages, costs nothing to send and everything to decode. Read from a copy in
    Arrow's memory (_arrow_memory.py)."""
    buffer = arrow_buffer(data)
    try:
        check_parquet(buffer)
    except UnsafeParquet as error:
        raise UnsafeAnswerError(f"the export is refused before it is decoded: {printable(str(error))} (request id {request_id})") from None
    reader = parquet_file(buffer)
    # The service writes flat columns of plain types: anything else (lists, structs, views,
    # extension types) is refused.
    for field in reader.schema_arrow:
        if not _flat(field.type):
            raise UnsafeAnswerError(f"the export has a column {printable(field.name)!r} of type {printable(str(field.type))}, which the service never sends (request id {request_id})")
    if len(set(reader.schema_arrow.names)) != len(reader.schema_arrow.names):
        raise UnsafeAnswerError(f"the export names a column twice (request id {request_id})")
    return reader.read()
