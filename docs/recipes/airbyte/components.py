"""The service's delta token as an Airbyte stream's state: the two custom components of
manifest.yaml (docs/consuming.md, "Airbyte").

The low-code CDK's cursors (DatetimeBasedCursor, and later IncrementingCountCursor) follow a field of
the records; a delta's token is the answer's, on its last page (`delta.deltaToken`), and the CDK
hands a cursor the records only. So two small parts share it within one run:

- DeltaRows, the stream's record extractor, reads every page: it yields the page's `data` rows, and
  the last page's token it gives to the stream's DeltaTokenCursor;
- DeltaTokenCursor sends the state's token as `deltaToken` (none on the first sync: the whole view
  and a token), and when the stream's one slice is read whole, makes the new token the state. A sync
  that fails before its last page keeps the old state, and the next asks again with it (a token
  answers again for its whole life).
"""
from dataclasses import InitVar, dataclass
from typing import Any, Iterable, Mapping, MutableMapping, Optional

import requests
from airbyte_cdk.sources.declarative.extractors.record_extractor import RecordExtractor
from airbyte_cdk.sources.declarative.incremental import DeclarativeCursor
from airbyte_cdk.sources.declarative.types import Record, StreamSlice, StreamState

# The token of the last page each stream read in this run, by stream name: what DeltaRows hands to
# DeltaTokenCursor (the CDK builds the two apart and gives neither the other).
_READ_TOKENS: MutableMapping[str, str] = {}


@dataclass
class DeltaRows(RecordExtractor):
    """A delta page's rows (`data`), and its token when it is the last page."""

    parameters: InitVar[Mapping[str, Any]]

    def __post_init__(self, parameters: Mapping[str, Any]) -> None:
        self._stream = parameters["name"]

    def extract_records(self, response: requests.Response) -> Iterable[MutableMapping[Any, Any]]:
        page = response.json()
        delta = page.get("delta") or {}
        if (page.get("pagination") or {}).get("hasNext") and not delta.get("nextPage"):
            # The paginator would stop here, and the sync end without the rest of the delta.
            raise ValueError(f"a page of the {self._stream} delta says there is more but names no next page")
        if delta.get("deltaToken"):
            _READ_TOKENS[self._stream] = delta["deltaToken"]
        yield from page.get("data") or []


@dataclass
class DeltaTokenCursor(DeclarativeCursor):
    """The stream's state is ``{"deltaToken": …}``: sent with the next sync, replaced when a sync
    has read its delta whole."""

    parameters: InitVar[Mapping[str, Any]]

    def __post_init__(self, parameters: Mapping[str, Any]) -> None:
        self._stream = parameters["name"]
        self._state: StreamState = {}

    def set_initial_state(self, stream_state: StreamState) -> None:
        self._state = dict(stream_state or {})
        _READ_TOKENS.pop(self._stream, None)

    def get_stream_state(self) -> StreamState:
        return self._state

    def select_state(self, stream_slice: Optional[StreamSlice] = None) -> Optional[StreamState]:
        return self._state

    def stream_slices(self) -> Iterable[StreamSlice]:
        # One delta per sync: its pages are the paginator's.
        yield StreamSlice(partition={}, cursor_slice={})

    def observe(self, stream_slice: StreamSlice, record: Record) -> None:
        pass

    def close_slice(self, stream_slice: StreamSlice, *args: Any) -> None:
        # Called once every page is read: the last page's token is the next sync's.
        token = _READ_TOKENS.pop(self._stream, None)
        if token:
            self._state = {"deltaToken": token}

    def should_be_synced(self, record: Record) -> bool:
        return True

    def is_greater_than_or_equal(self, first: Record, second: Record) -> bool:
        # A delta's rows are merged by id and come in no order.
        return False

    def get_request_body_json(
        self,
        *,
        stream_state: Optional[StreamState] = None,
        stream_slice: Optional[StreamSlice] = None,
        next_page_token: Optional[Mapping[str, Any]] = None,
    ) -> Mapping[str, Any]:
        token = self._state.get("deltaToken")
        return {"deltaToken": token} if token else {}

    def get_request_params(self, **kwargs: Any) -> Mapping[str, Any]:
        return {}

    def get_request_headers(self, **kwargs: Any) -> Mapping[str, Any]:
        return {}

    def get_request_body_data(self, **kwargs: Any) -> Mapping[str, Any]:
        return {}
