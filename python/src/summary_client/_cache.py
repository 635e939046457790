"""A local copy of exported windows (``cache="DIR"``): each window's export body as the service sent
it, with the result's ETag. A call asks the service for each window with ``If-None-Match``: 412
RESULT_UNCHANGED means the copy is current and no export is made; a 200 is the new export, which
replaces the copy. A window that was halved remembers its parts, so the next call asks for those.

Layout: ``DIR/_cache.json`` (the index) and one file per window part, named by a digest of what was
asked (service, client, dataset, date pair, filters, days): several loads may share one folder.
Writes go to a hidden temporary file first and are renamed into place, so a stopped call leaves
the last good copy."""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Tuple, Union

from ._errors import SettingsError
from ._windows import Window

_INDEX = "_cache.json"
_VERSION = 1
#: The only names a copy may have: a key and the extension (nothing an index could point elsewhere with).
_COPY = re.compile(r"[0-9a-f]{32}\.export")


@dataclass(frozen=True)
class Cached:
    """A window's copy: its ETag and where its body is."""

    etag: str
    path: str


class WindowCache:
    """The copies of one load's windows in ``folder`` (made when missing)."""

    def __init__(self, folder: Union[str, "os.PathLike[str]"], request: Mapping[str, Any]) -> None:
        self._folder = os.path.expanduser(os.fspath(folder))
        if os.path.exists(self._folder) and not os.path.isdir(self._folder):
            raise SettingsError(f"cache={self._folder!r} is a file, not a folder")
        os.makedirs(self._folder, exist_ok=True)
        self._request = json.dumps(request, sort_keys=True)
        self._load = hashlib.sha256(self._request.encode()).hexdigest()[:32]
        self._index = self._read_index()

    def _read_index(self) -> Dict[str, Any]:
        path = os.path.join(self._folder, _INDEX)
        try:
            with open(path, encoding="utf-8") as file:
                index = json.load(file)
        except FileNotFoundError:
            return {"version": _VERSION, "windows": {}}
        except (OSError, ValueError):
            # An index that cannot be read is no copy: every window is fetched again.
            return {"version": _VERSION, "windows": {}}
        if not isinstance(index, dict) or index.get("version") != _VERSION or not isinstance(index.get("windows"), dict):
            return {"version": _VERSION, "windows": {}}
        return index

    def _key(self, window: Window) -> str:
        return hashlib.sha256(f"{self._request}|{window.start}|{window.end}".encode()).hexdigest()[:32]

    def get(self, window: Window) -> Union[Cached, List[Window], None]:
        """The window's copy (intact), the parts it was halved into (tiling it), or None."""
        entry = self._index["windows"].get(self._key(window))
        if not isinstance(entry, dict):
            return None
        parts = entry.get("parts")
        if isinstance(parts, list):
            try:
                windows = [Window(*(_day(day) for day in part)) for part in parts]
            except (TypeError, ValueError):
                return None
            return windows if _tiles(windows, window) else None
        etag, name, digest = entry.get("etag"), entry.get("file"), entry.get("sha256")
        if not (isinstance(etag, str) and etag and isinstance(name, str) and _COPY.fullmatch(name) and isinstance(digest, str)):
            return None
        path = os.path.join(self._folder, name)
        if not os.path.isfile(path) or _sha256_file(path) != digest:
            return None
        return Cached(etag, path)

    def put(self, window: Window, etag: str, body: Union[bytes, bytearray], as_of: str = "") -> None:
        """Keeps ``body`` as the window's copy with its ETag (none kept without an ETag) and the time
        it reflects (the service's X-Summary-As-Of, kept for support). Copies of this load's windows
        that overlap it (yesterday's month so far, say) are removed. A window still being written
        when it was exported has an ETag no later check matches: it is exported again next call."""
        key = self._key(window)
        self._forget_overlapping(window, key)
        if not etag:
            self._forget(key)
            return
        name = f"{key}.export"
        _write_atomically(os.path.join(self._folder, name), bytes(body))
        self._index["windows"][key] = {"load": self._load, "from": str(window.start), "to": str(window.end), "etag": etag, "file": name, "sha256": hashlib.sha256(body).hexdigest(), **({"asOf": as_of} if as_of else {})}
        self._save()

    def split(self, window: Window, parts: Tuple[Window, Window]) -> None:
        """Records that ``window`` is read as ``parts``."""
        key = self._key(window)
        self._forget(key, save=False)
        self._index["windows"][key] = {"load": self._load, "from": str(window.start), "to": str(window.end), "parts": [[str(part.start), str(part.end)] for part in parts]}
        self._save()

    def _forget_overlapping(self, window: Window, keep: str) -> None:
        for key, entry in list(self._index["windows"].items()):
            if key == keep or not isinstance(entry, dict) or entry.get("load") != self._load:
                continue
            if str(entry.get("from", "")) <= str(window.end) and str(entry.get("to", "")) >= str(window.start) and "parts" not in entry:
                self._forget(key, save=False)

    def _forget(self, key: str, save: bool = True) -> None:
        entry = self._index["windows"].pop(key, None)
        if isinstance(entry, dict) and isinstance(entry.get("file"), str) and _COPY.fullmatch(entry["file"]):
            try:
                os.remove(os.path.join(self._folder, entry["file"]))
            except FileNotFoundError:
                pass
        if save:
            self._save()

    def _save(self) -> None:
        """Writes this load's entries into the index as it is on disk now: the other loads sharing
        the folder (another table of the same job, another call) keep theirs."""
        on_disk = self._read_index()["windows"]

        def mine(entry: Any) -> bool:
            return isinstance(entry, dict) and entry.get("load") == self._load

        windows = {key: entry for key, entry in on_disk.items() if not mine(entry)}
        windows.update({key: entry for key, entry in self._index["windows"].items() if mine(entry)})
        self._index = {"version": _VERSION, "windows": windows}
        _write_atomically(os.path.join(self._folder, _INDEX), json.dumps(self._index, indent=1).encode())


def _day(text: Any) -> Any:
    import datetime as dt

    return dt.date.fromisoformat(text)


def _tiles(parts: List[Window], window: Window) -> bool:
    """Whether ``parts`` cover ``window`` exactly, in order, without gap or overlap."""
    import datetime as dt

    expected = window.start
    for part in parts:
        if part.start != expected or part.end < part.start:
            return False
        expected = part.end + dt.timedelta(days=1)
    return bool(parts) and expected == window.end + dt.timedelta(days=1)


def _sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _write_atomically(path: str, data: Union[bytes, memoryview]) -> None:
    folder = os.path.dirname(path)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".", suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.remove(temporary)
        except FileNotFoundError:
            pass
        raise
