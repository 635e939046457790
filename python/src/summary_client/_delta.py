"""A cache kept by the service's delta (docs/api.md, "Deltas"; ``cache="DIR"`` where the service
offers deltas). The first load of a range asks its whole view as one Parquet delta without a
token (the records, and a token) and keeps each table with the token in DIR; every later load of
the same range asks what changed since the token, as one Parquet answer, and merges it: every row
of a record the delta names (changed or removed; an invoice's lines with it) is taken out, the
changed records' rows put in. The service reads the records written since the token, not the range.

A token the service no longer continues (expired, another view, altered, other filters), a copy of
other columns, or a delta since the token too large for one answer starts again from the whole
view. A whole view the service cannot answer at once (too large for one answer, or past its export
deadline: asked once, not retried), or a service without deltas, leaves the load to its windows or
its job (None); a whole view refused so is not asked again the same day. Layout:
``DIR/<load>-<range>.delta.json`` (the token, the columns' fingerprint and each table's sha256) and
``DIR/<load>-<range>.<n>.delta`` (each table as Parquet), ``<load>`` a digest of what was asked but
the range (service, client, dataset, date pair, filters) and ``<range>`` one of the range: a copy of
another range of the same load is removed once this one is kept. A range with no copy of its own
goes on from the copy of a range within it (an end that moved on: a range that ends today): the
service answers a token for a wider range with the days added whole. Written to a hidden temporary file
first and renamed into place, the state last, so a stopped load leaves the last good copy (or
none). A copy is read back through the same checks as an answer (``read_bytes``)."""
from __future__ import annotations

import hashlib
import json
import logging
import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

import pyarrow as pa
import pyarrow.compute as pc

from ._arrow_memory import parquet_bytes
from ._cache import _write_atomically
from ._datasets import Dataset
from ._errors import RefusedError, ServiceFailedError, SettingsError, UnavailableError, UnsafeAnswerError
from ._transport import ATTEMPTS, Answer, BodyTooLarge, Transport

log = logging.getLogger("summary_client")

_VERSION = 1
#: The column of a delta's record table that says a row is a removal.
_REMOVED = "_removed"
#: The codes that say a token cannot be continued, and that starting again without one is the way on.
_RESTART = {"INVALID_DELTA_TOKEN", "DELTA_TOKEN_NOT_FOUND", "DELTA_TOKEN_EXPIRED", "DELTA_VIEW_CHANGED", "DELTA_FILTERS_CHANGED"}

#: How a delta's answer is read: the answer and the zip entry (None: the answer is the Parquet file) to a table.
ReadTable = Callable[[Answer, Optional[str]], pa.Table]
#: How a copy's Parquet file is read back: the bytes and where they come from, with an answer's checks.
ReadBytes = Callable[[bytes, str], pa.Table]
#: A refusal as the load raises it.
Failure = Callable[[Answer], Exception]


class _NotHere(Exception):
    """The delta cannot answer this load: no delta operation, or too large for one answer."""


class _Restart(Exception):
    """The service will not continue the token (its code)."""


def load_via_delta(transport: Transport, spec: Dataset, body: Mapping[str, Any], cap: int, folder: Union[str, "os.PathLike[str]"],
                   request: Mapping[str, Any], read_table: ReadTable, read_bytes: ReadBytes, failure: Failure, asked: bool = False) -> Optional[Dict[str, pa.Table]]:
    """Every table of the range (by name), kept by the delta in ``folder``; None where the delta
    cannot answer (the caller loads by windows or a job). ``asked`` (via="delta"): a service without
    deltas is a RefusedError."""
    if spec.delta_path is None:
        return None
    names = [spec.path.rsplit("/", 2)[-2]] if spec.zip_entries is None else [entry[: -len(".parquet")] for entry in spec.zip_entries]
    by = request["by"]
    copy = _Copy(folder, request, dict(body), (str(body[f"{by}From"]), str(body[f"{by}To"])), names, cap)
    if copy.refused_today():
        log.info("not through the delta: the whole range was refused today")
        return None
    held = copy.read(read_bytes)
    try:
        if held is not None:
            try:
                try:
                    answer = _ask(transport, spec, {**body, "deltaToken": held["token"]}, cap, failure)
                except _NotHere as why:
                    if "no delta" in str(why):
                        raise
                    raise _Restart(f"DELTA_TOO_LARGE: {why}") from None
                schema = answer.headers.get("x-summary-schema") or ""
                if schema != held["schema"]:
                    raise _Restart("SCHEMA_CHANGED")
                delta = _tables(answer, spec, names, read_table)
                merged = _merge(held["tables"], delta, names, spec.id_field)
                copy.write(_token(answer), schema, merged)
                log.info("kept by the delta: %d rows changed or removed", delta[names[0]].num_rows)
                return merged
            except _Restart as restart:
                log.info("the cache's delta cannot go on (%s): asking for the whole range again", restart)
        try:
            # The whole view is asked once: past the export deadline it is not answered in a retry either.
            answer = _ask(transport, spec, body, cap, failure, attempts=1)
        except (_NotHere, UnavailableError, ServiceFailedError) as why:
            if isinstance(why, _NotHere) and "no delta" in str(why):
                raise
            copy.refuse_today()
            raise _NotHere(f"the whole range is not answered as one delta ({why})") from None
        tables = {name: table.replace_schema_metadata(None) for name, table in _tables(answer, spec, names, read_table).items()}
        tables[names[0]] = tables[names[0]].drop_columns([_REMOVED])
        copy.write(_token(answer), answer.headers.get("x-summary-schema") or "", tables)
        log.info("kept by the delta: the whole range, %d rows", tables[names[0]].num_rows)
        return tables
    except _NotHere as why:
        if asked and "no delta" in str(why):
            raise RefusedError(404, "NOT_FOUND", str(why), "none", "load with via='windows'") from None
        log.info("not through the delta: %s", why)
        return None


def _ask(transport: Transport, spec: Dataset, body: Mapping[str, Any], cap: int, failure: Failure, attempts: int = ATTEMPTS) -> Answer:
    """A delta as one Parquet answer (a zip for invoices); _NotHere, _Restart, or the load's failure."""
    assert spec.delta_path is not None
    try:
        answer = transport.post(spec.delta_path, body, spec.export_type, cap, attempts=attempts)
    except BodyTooLarge:
        raise _NotHere(f"the delta is larger than SUMMARY_MAX_EXPORT_BYTES ({cap})") from None
    if answer.status == 200:
        return answer
    code = answer.code
    if answer.status == 405 or (answer.status == 404 and code in ("no problem document", "NOT_FOUND")):
        raise _NotHere("the service offers no delta (an older service, or one without export storage)")
    if answer.status == 413 and code == "RESULT_TOO_LARGE":
        raise _NotHere("the delta is larger than one answer of the service may be")
    if "deltaToken" in body and code in _RESTART:
        raise _Restart(code)
    raise failure(answer)


def _token(answer: Answer) -> str:
    token = answer.headers.get("x-summary-delta-token") or ""
    if not token or not answer.headers.get("x-summary-schema"):
        raise UnsafeAnswerError(f"the delta's answer gives no X-Summary-Delta-Token or X-Summary-Schema: a service older than this client? (request id {answer.request_id})")
    return token


def _tables(answer: Answer, spec: Dataset, names: List[str], read_table: ReadTable) -> Dict[str, pa.Table]:
    if spec.zip_entries is None:
        return {names[0]: read_table(answer, None)}
    return {name: read_table(answer, entry) for name, entry in zip(names, spec.zip_entries)}


def _merge(held: Mapping[str, pa.Table], delta: Mapping[str, pa.Table], names: List[str], id_field: str) -> Dict[str, pa.Table]:
    """The held tables with every row of a record the delta names taken out and its changed records' rows put in."""
    first = delta[names[0]]
    named = pc.unique(first.column(id_field))
    changed = {names[0]: first.filter(pc.is_null(first.column(_REMOVED))).drop_columns([_REMOVED])}
    merged: Dict[str, pa.Table] = {}
    for name in names:
        old = held[name]
        kept = old.filter(pc.invert(pc.is_in(old.column(id_field), value_set=named)))
        new = changed.get(name, delta[name])
        if set(new.schema.names) != set(old.schema.names):
            raise _Restart("SCHEMA_CHANGED")
        merged[name] = pa.concat_tables([kept, new.select(old.schema.names).cast(old.schema)]).replace_schema_metadata(None)
    return merged


class _Copy:
    """The delta's copy of one load in ``folder``: its state and one Parquet file per table."""

    def __init__(self, folder: Union[str, "os.PathLike[str]"], request: Mapping[str, Any], range_: Mapping[str, Any], days: "tuple[str, str]", names: List[str], cap: int) -> None:
        self._folder = os.path.expanduser(os.fspath(folder))
        if os.path.exists(self._folder) and not os.path.isdir(self._folder):
            raise SettingsError(f"cache={self._folder!r} is a file, not a folder")
        os.makedirs(self._folder, exist_ok=True)
        self._load = _digest(request)
        key = f"{self._load}-{_digest(range_)}"
        self._key = key
        self._days = days
        self._cap = cap
        self._names = names
        self._state = self._state_of(key)
        self._files = self._files_of(key)

    def _state_of(self, key: str) -> str:
        return os.path.join(self._folder, f"{key}.delta.json")

    def _files_of(self, key: str) -> Dict[str, str]:
        return {name: os.path.join(self._folder, f"{key}.{index}.delta") for index, name in enumerate(self._names)}

    def _read_state(self, path: Optional[str] = None) -> Optional[Dict[str, Any]]:
        path = path or self._state
        try:
            if not os.path.isfile(path) or os.path.getsize(path) > 64 * 1024:
                return None
            with open(path, encoding="utf-8") as file:
                state = json.load(file)
        except (OSError, ValueError):
            return None
        return state if isinstance(state, dict) and state.get("version") == _VERSION else None

    def refused_today(self) -> bool:
        state = self._read_state()
        return state is not None and state.get("refused") == _today()

    def refuse_today(self) -> None:
        """The whole range was not answered as one delta: not asked again today."""
        _write_atomically(self._state, json.dumps({"version": _VERSION, "refused": _today()}).encode())

    def read(self, read_bytes: ReadBytes) -> Optional[Dict[str, Any]]:
        """The token, the columns' fingerprint and the tables of the range's copy, else of a copy of a
        range within it (its token goes on to this range), or None when there is no whole copy."""
        held = self._read_copy(self._key, read_bytes)
        if held is not None:
            return held
        within: List[Any] = []
        for name in os.listdir(self._folder):
            if not name.startswith(f"{self._load}-") or not name.endswith(".delta.json") or name == f"{self._key}.delta.json":
                continue
            key = name[: -len(".delta.json")]
            days = (self._read_state(self._state_of(key)) or {}).get("range")
            if isinstance(days, list) and len(days) == 2 and all(isinstance(day, str) for day in days) and self._days[0] <= days[0] and days[1] <= self._days[1]:
                within.append((days, key))
        # The widest first (the latest end, then the earliest start): the least the delta must add.
        within.sort(key=lambda found: found[0][0])
        within.sort(key=lambda found: found[0][1], reverse=True)
        for days, key in within:
            held = self._read_copy(key, read_bytes)
            if held is not None:
                log.info("the cache's copy of %s..%s goes on to %s..%s", days[0], days[1], *self._days)
                return held
        return None

    def _read_copy(self, key: str, read_bytes: ReadBytes) -> Optional[Dict[str, Any]]:
        state = self._read_state(self._state_of(key))
        if state is None or not isinstance(state.get("token"), str) or not isinstance(state.get("files"), dict):
            return None
        tables = {}
        for name, path in self._files_of(key).items():
            try:
                if not os.path.isfile(path) or os.path.getsize(path) > self._cap:
                    return None
                with open(path, "rb") as file:
                    data = file.read(self._cap + 1)
            except OSError:
                return None
            if hashlib.sha256(data).hexdigest() != state["files"].get(name):
                return None
            try:
                tables[name] = read_bytes(data, "the cache")
            except (UnsafeAnswerError, pa.ArrowException, OSError, ValueError):
                return None
        return {"token": state["token"], "schema": state.get("schema") or "", "tables": tables}

    def write(self, token: str, schema: str, tables: Mapping[str, pa.Table]) -> None:
        sums = {}
        for name, path in self._files.items():
            data = memoryview(parquet_bytes(tables[name]))
            _write_atomically(path, data)
            sums[name] = hashlib.sha256(data).hexdigest()
        _write_atomically(self._state, json.dumps({"version": _VERSION, "token": token, "schema": schema, "files": sums, "range": list(self._days)}).encode())
        # The copies of other ranges of the same load are outgrown by this one (a range that ends later each day).
        for name in os.listdir(self._folder):
            if name.startswith(f"{self._load}-") and not name.startswith(f"{self._key}.") and name.endswith((".delta", ".delta.json")):
                try:
                    os.unlink(os.path.join(self._folder, name))
                except OSError:
                    pass


def _digest(value: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def _today() -> str:
    import datetime as dt

    return dt.datetime.now(dt.timezone.utc).date().isoformat()
