"""A range through one export job (``via="job"``): the kick-off with the range, its filters and the
ETags of the windows the cache holds; the status asked for until its manifest (``Prefer: wait``,
``Retry-After`` respected); then the files of the table asked for (with a cache, the other
tables' too, kept for their loads: one job serves both of invoices' tables), downloaded from storage in
parallel (DOWNLOADS at a time) by their read-only URLs: with none of the service's credentials,
over https, following no redirect, each body bounded by the size the manifest declares and checked
against its bytes, sha256 and rows, and decoded only within the Parquet bounds (_bounds.py).
A window the job found unchanged is read from the cache. A URL storage refused (expired) is asked
for again once."""
from __future__ import annotations

import hashlib
import logging
import re
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import pyarrow as pa
import requests

from ._cache import Cached, WindowCache
from ._datasets import Dataset
from ._errors import ServiceFailedError, UnavailableError, UnsafeAnswerError, printable
from ._settings import DEFAULT_DEADLINE_SECONDS
from ._transport import MAX_DOCUMENT_BYTES, Answer, BodyTooLarge, Transport, fetch, retry_after_seconds, with_retries
from ._windows import Window

log = logging.getLogger("summary_client")

#: Files downloaded at once.
DOWNLOADS = 4
#: How long a status call asks the service to hold its answer until the job completes.
JOB_WAIT_SECONDS = 20
#: The longest wait between two status calls, whatever Retry-After says; and the wait when it says nothing.
MAX_POLL_SECONDS = 30.0
DEFAULT_POLL_SECONDS = 2.0
#: The shortest wait between two status calls of a running job, whatever Retry-After says (a 202
#: with ``Retry-After: 0`` over and over gets one call a second); the kick-off's own is taken as it is.
MIN_POLL_SECONDS = 1.0
#: Status calls of one job at the most: then the load stops, as at its deadline.
MAX_STATUS_CALLS = 600
_LOCATION = re.compile(r"(?:^|/)exports/([0-9a-f]{32})$")
_SHA256 = re.compile(r"[0-9a-f]{64}")


class NotOffered(Exception):
    """The service takes no export job for this load: it is read window by window."""


class _UrlRefused(Exception):
    """Storage refused a file's URL (403): expired or revoked."""


def load_via_job(
    transport: Transport,
    storage: requests.Session,
    spec: Dataset,
    table: str,
    body: Mapping[str, str],
    windows: Sequence[Window],
    cap: int,
    copies: Optional[Mapping[str, WindowCache]],
    read_parquet: Callable[[bytes, str], pa.Table],
    failure: Callable[[Answer], Exception],
    deadline_seconds: Optional[float],
) -> List[pa.Table]:
    """The range's tables of ``table``, one or more per window, in date order. ``copies`` are the
    cache's copies of every table of the dataset: a window the job exported is kept for each (one
    job serves both of invoices' tables, so loading the other one next does not export it again;
    best effort: a copy that cannot be had is logged, and that month exported by its own load). Raises NotOffered (read it window by window), or the loader's errors."""
    labels = [_label(window) for window in windows]
    own = copies[table] if copies is not None else None
    etags: Dict[str, str] = {}
    if own is not None:
        for window, label in zip(windows, labels):
            copy = own.get(window)
            if isinstance(copy, Cached):
                etags[label] = copy.etag
    manifest = _run_job(transport, spec, {**body, **({"ifNoneMatch": etags} if etags else {})}, windows, labels, failure, deadline_seconds)
    refreshed: List[Optional[dict]] = [None]
    asking = threading.Lock()

    def refresh() -> dict:
        # Once per load, whichever download meets a refused URL first; the others wait for its answer.
        with asking:
            if refreshed[0] is None:
                again = _ask(transport, manifest["id"], windows, labels, failure)
                refreshed[0] = again if again is not None and again.get("status") == "completed" else {}
        if not refreshed[0]:
            raise UnavailableError("storage refused a file's URL, and the export job could not give a new one: load again")
        return refreshed[0]

    def files_of(index: int, document: dict, of: str = table) -> List[dict]:
        return [file for file in document["windows"][index].get("files") or [] if file.get("table") == of]

    def download(index: int, file: dict) -> bytes:
        try:
            return _download(storage, file, cap, deadline_seconds)
        except _UrlRefused:
            again = files_of(index, refresh(), file.get("table"))
            position = files_of(index, manifest, file.get("table")).index(file)
            if position >= len(again):
                raise UnavailableError("the export job no longer lists a file it listed: load again") from None
            try:
                return _download(storage, again[position], cap, deadline_seconds)
            except _UrlRefused:
                raise UnavailableError("storage refused a file's URL twice (expired or revoked): load again") from None

    tables: List[pa.Table] = []
    pool = ThreadPoolExecutor(DOWNLOADS)
    try:
        futures = [[pool.submit(download, index, file) for file in files_of(index, manifest)] if window["status"] == "exported" else []
                   for index, window in enumerate(manifest["windows"])]
        # The other tables' files of each exported window, one file each, for their copies: downloaded
        # after this table's (the pool takes them in order), checked as every file is, not decoded,
        # and let go once kept.
        others = [{other: pool.submit(download, index, files_of(index, manifest, other)[0]) for other in copies if other != table
                   and len(files_of(index, manifest, other)) == 1} if copies is not None and window["status"] == "exported" else {}
                  for index, window in enumerate(manifest["windows"])]
        for index, (window, label, entry) in enumerate(zip(windows, labels, manifest["windows"])):
            if entry["status"] == "failed":
                detail = (entry.get("problem") or {}).get("detail")
                raise ServiceFailedError(f"the export job could not export {label}: {printable(detail) if isinstance(detail, str) else 'no reason given'} (job {manifest['id']}); load again")
            if entry["status"] == "unchanged":
                copy = own.get(window) if own is not None else None
                if not isinstance(copy, Cached) or copy.etag != entry.get("etag"):
                    raise UnsafeAnswerError(f"the export job says {label} is unchanged, but no copy of it with that ETag was sent (job {manifest['id']})")
                log.info("%s..%s: unchanged, read from the cache", window.start, window.end)
                with open(copy.path, "rb") as handle:
                    tables.append(read_parquet(handle.read(), f"job {manifest['id']}"))
                continue
            if not futures[index]:
                raise UnsafeAnswerError(f"the export job lists no file of {table} for {label} (job {manifest['id']})")
            parts = [future.result() for future in futures[index]]
            read = [read_parquet(data, f"job {manifest['id']}") for data in parts]
            for data, file, part in zip(parts, files_of(index, manifest), read):
                if part.num_rows != file["records"]:
                    raise UnsafeAnswerError(f"a file of {label} holds {part.num_rows} rows, the manifest says {file['records']} (job {manifest['id']})")
            log.info("%s..%s: from the job's storage, %d bytes", window.start, window.end, sum(len(data) for data in parts))
            if own is not None and copies is not None:
                # One file is the window's copy; a window in several parts is not kept (exported again next time).
                own.put(window, entry["etag"] if len(parts) == 1 else "", parts[0] if len(parts) == 1 else b"")
                for other, data in others[index].items():
                    # A copy for another load: best effort, never a reason to fail this one.
                    try:
                        copies[other].put(window, entry["etag"], data.result())
                    except Exception as error:
                        log.info("%s..%s: no copy of %s kept (%s); its next load exports the month", window.start, window.end, other, printable(str(error)))
                others[index] = {}
            tables.extend(read)
    except BaseException:
        # A window that failed (or an interrupt) stops the load at once: the downloads not begun are
        # not made, and those under way end on their own, their bytes dropped.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return tables


def _label(window: Window) -> str:
    return f"{window.start.year:04d}-{window.start.month:02d}"


def _run_job(transport: Transport, spec: Dataset, body: Mapping[str, Any], windows: Sequence[Window], labels: List[str], failure: Callable[[Answer], Exception], deadline_seconds: Optional[float]) -> dict:
    """Starts the job and asks for it until its manifest; a job gone meanwhile is started again, once."""
    assert spec.jobs_path is not None
    for attempt in (1, 2):
        answer = transport.post(spec.jobs_path, body, "application/json", MAX_DOCUMENT_BYTES, headers={"Prefer": f"wait={JOB_WAIT_SECONDS}"})
        if answer.status in (404, 405):
            raise NotOffered("the service offers no export jobs")
        errors = answer.problem().get("errors")
        if answer.status == 400 and isinstance(errors, list) and any(isinstance(error, dict) and error.get("code") == "DATE_RANGE_TOO_LONG" for error in errors):
            raise NotOffered("the range is longer than one export job may be")
        if answer.status != 202:
            raise failure(answer)
        match = _LOCATION.search((answer.headers.get("location") or "").split("?")[0])
        if match is None:
            raise UnsafeAnswerError(f"the service started an export job without saying where it is (request id {answer.request_id})")
        job_id = match.group(1)
        log.info("export job %s: %d windows, %d sent with the ETag of a copy", job_id, len(windows), len(body.get("ifNoneMatch") or {}))
        give_up = time.monotonic() + (deadline_seconds if deadline_seconds is not None else DEFAULT_DEADLINE_SECONDS)
        time.sleep(_wait(answer))
        calls = 0
        while True:
            calls += 1
            manifest = _ask(transport, job_id, windows, labels, failure)
            if manifest is None:
                break  # gone: started again
            if manifest.get("status") == "completed":
                return manifest
            wait = max(MIN_POLL_SECONDS, manifest["_wait"])
            if calls >= MAX_STATUS_CALLS:
                raise UnavailableError(f"the export job {job_id} had not completed after {calls} status calls; load again later")
            if time.monotonic() + wait > give_up:
                raise UnavailableError(f"the export job {job_id} had not completed within SUMMARY_DEADLINE_SECONDS; load again later")
            time.sleep(wait)
        if attempt == 2:
            raise UnavailableError("the export job was gone twice before it completed (expired or cancelled); load again")
    raise AssertionError("unreachable")


def _wait(answer: Answer) -> float:
    asked = retry_after_seconds(answer.headers.get("retry-after"))
    return min(MAX_POLL_SECONDS, DEFAULT_POLL_SECONDS if asked is None else asked)


def _ask(transport: Transport, job_id: str, windows: Sequence[Window], labels: List[str], failure: Callable[[Answer], Exception]) -> Optional[dict]:
    """The job's manifest (checked) when completed; its progress with ``_wait`` while it runs; None when it is gone."""
    answer = transport.get(f"/v1/exports/{job_id}", MAX_DOCUMENT_BYTES, {"Prefer": f"wait={JOB_WAIT_SECONDS}"})
    if answer.status == 404 or (answer.status == 409 and answer.code == "EXPORT_VIEW_CHANGED"):
        return None
    if answer.status == 202:
        return {"status": "running", "_wait": _wait(answer)}
    if answer.status != 200:
        raise failure(answer)
    document = answer.document()  # its shape bounded before parsing
    _check_manifest(document, job_id, windows, labels)
    return document


def _check_manifest(document: dict, job_id: str, windows: Sequence[Window], labels: List[str]) -> None:
    def refuse(why: str) -> None:
        raise UnsafeAnswerError(f"the export job's manifest is refused ({why}); nothing of it was used (job {job_id})")

    if document.get("status") != "completed" or document.get("id") != job_id:
        refuse("it is not the completed job asked for")
    listed = document.get("windows")
    if not isinstance(listed, list) or len(listed) != len(windows):
        refuse("it lists other windows than the range's months")
    for window, label, entry in zip(windows, labels, listed):
        if not isinstance(entry, dict) or entry.get("label") != label or entry.get("from") != str(window.start) or entry.get("to") != str(window.end):
            refuse(f"its window for {label} is not {window.start}..{window.end}")
        if entry.get("status") not in ("exported", "unchanged", "failed"):
            refuse(f"{label} has no known status")
        if entry["status"] != "failed" and not (isinstance(entry.get("etag"), str) and entry["etag"]):
            refuse(f"{label} has no ETag")
        for file in entry.get("files") or []:
            if not (isinstance(file, dict) and isinstance(file.get("table"), str) and isinstance(file.get("url"), str)
                    and isinstance(file.get("bytes"), int) and file["bytes"] >= 0 and isinstance(file.get("records"), int) and file["records"] >= 0
                    and isinstance(file.get("sha256"), str) and _SHA256.fullmatch(file["sha256"])):
                refuse(f"{label} lists a file without its table, URL, size, rows or sha256")


def _download(storage: requests.Session, file: dict, cap: int, deadline_seconds: Optional[float]) -> bytes:
    """One file by its URL: https only, no credentials, no redirect, at most its declared size,
    spooled to a temporary file and hashed as it comes (memory holds a chunk, whatever the manifest
    declares), and read back only once its size and sha256 are the manifest's."""
    url = file["url"]
    if not url.startswith("https://") or "@" in url.split("/")[2]:
        raise UnsafeAnswerError("the export job lists a file URL that is not plain https: refused")
    declared = file["bytes"]
    if declared > cap:
        raise UnsafeAnswerError(f"the export job lists a file of {declared} bytes, more than SUMMARY_MAX_EXPORT_BYTES {cap}")
    where = "storage (" + printable(url.split("?")[0].split("/")[2]) + ")"
    with tempfile.TemporaryFile() as spool:
        digest = [hashlib.sha256()]

        def attempt(deadline: Optional[float]) -> Answer:
            # Each attempt starts the file again.
            spool.seek(0)
            spool.truncate()
            digest[0] = hashlib.sha256()

            def sink(chunk: bytes) -> None:
                spool.write(chunk)
                digest[0].update(chunk)

            return fetch(storage, "GET", url, declared, deadline, sink=sink, headers={"Accept-Encoding": "identity"})

        try:
            answer = with_retries(attempt, where, deadline_seconds)
        except BodyTooLarge:
            raise UnsafeAnswerError(f"{where} sent more than the {declared} bytes the manifest declares") from None
        if answer.status == 403:
            raise _UrlRefused()
        if answer.status != 200:
            raise UnsafeAnswerError(f"{where} answered {answer.status}" + (" (the job was cancelled or has expired, and its files are gone)" if answer.status == 404 else ""))
        received = spool.tell()
        if received != declared:
            raise UnsafeAnswerError(f"{where} sent {received} bytes, the manifest declares {declared}")
        if digest[0].hexdigest() != file["sha256"]:
            raise UnsafeAnswerError(f"a file from {where} is not the manifest's (its sha256 differs)")
        spool.seek(0)
        return spool.read()
