"""A scripted HTTP server on loopback standing in for a misbehaving service (and its token
endpoint): each POST to an operation takes the next scripted answer; every request is recorded."""
from __future__ import annotations

import io
import json
import ssl
import threading
import zipfile
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Dict, List, Optional, Tuple, Union

import pyarrow as pa
import pyarrow.parquet as pq

Reply = Tuple[int, Dict[str, str], bytes]
#: An answer written by hand, for a server that trickles or never answers: given the handler.
Writer = Callable[[BaseHTTPRequestHandler], None]


def parquet(rows: List[dict]) -> bytes:
    """A Parquet file of ``rows`` (at least the column ``id``)."""
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows, schema=pa.schema([("id", pa.string()), ("day", pa.string())])), sink)
    return sink.getvalue()


def zipped(entries: Dict[str, bytes], method: int = zipfile.ZIP_STORED) -> bytes:
    """A zip of ``entries``, stored as the service stores them unless ``method`` says otherwise."""
    sink = io.BytesIO()
    with zipfile.ZipFile(sink, "w", method) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return sink.getvalue()


def problem(status: int, code: str, detail: str = "detail") -> Reply:
    body = json.dumps({"type": "about:blank", "title": code, "status": status, "detail": detail, "code": code, "requestId": "rid-1"}).encode()
    return status, {"Content-Type": "application/problem+json", "X-Request-ID": "rid-1"}, body


def ok(data: bytes, content_type: str = "application/vnd.apache.parquet") -> Reply:
    return 200, {"Content-Type": content_type, "X-Request-ID": "rid-ok"}, data


@dataclass
class Recorded:
    path: str
    headers: Dict[str, str]
    body: dict
    method: str = "POST"


def is_delta_call(request: Recorded) -> bool:
    """A call of the delta operation: not the summary operation."""
    return request.path.endswith("/delta")


def is_job_call(request: Recorded) -> bool:
    """A call of the export jobs (a kick-off, a status): not the summary operation."""
    return request.path.endswith("/exports") or "/exports/" in request.path


@dataclass
class FakeServer:
    """``answer(request)`` scripts the operation's answers; ``requests`` records every call."""

    answer: Callable[[Recorded], Union[Reply, Writer, None]]
    token_reply: Reply = (200, {"Content-Type": "application/json"}, json.dumps({"access_token": "fake-token", "token_type": "Bearer", "expires_in": 3600}).encode())
    #: Answers each token request in turn when set (else token_reply).
    token_answer: Optional[Callable[[], Reply]] = None
    requests: List[Recorded] = field(default_factory=list)
    #: Answers the export jobs' calls when set; else they are 404 (a service without jobs: the loader reads month by month).
    jobs: Optional[Callable[[Recorded], Union[Reply, Writer, None]]] = None
    #: Answers the delta operation's calls when set; else they are 404 (a service without deltas: a cache is kept by ETags).
    deltas: Optional[Callable[[Recorded], Union[Reply, Writer, None]]] = None
    server: Optional[ThreadingHTTPServer] = None
    scheme: str = "http"

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"{self.scheme}://127.0.0.1:{self.server.server_address[1]}"

    def start(self, tls: Optional[Tuple[str, str]] = None) -> "FakeServer":
        """Serves on loopback; over TLS with ``tls`` = (certificate file, key file)."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                self.do_POST()

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw) if self.path != "/token" and raw else {}
                except ValueError:
                    body = {}
                recorded = Recorded(self.path, {name.lower(): value for name, value in self.headers.items()}, body, self.command)
                fake.requests.append(recorded)
                if self.path == "/token":
                    reply = fake.token_answer() if fake.token_answer is not None else fake.token_reply
                elif is_delta_call(recorded):
                    reply = fake.deltas(recorded) if fake.deltas is not None else problem(404, "NOT_FOUND", "no deltas here")
                elif is_job_call(recorded):
                    reply = fake.jobs(recorded) if fake.jobs is not None else problem(404, "NOT_FOUND", "no export jobs here")
                else:
                    reply = fake.answer(recorded)
                if reply is None:  # drop the connection without an answer
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if callable(reply):
                    self.close_connection = True
                    try:
                        reply(self)
                    except OSError:
                        pass  # the client gave up
                    return
                status, headers, data = reply
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                if "Content-Length" not in headers:
                    self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.scheme = "https"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def calls(self) -> List[Recorded]:
        """The summary operation's calls (the token requests and the export jobs' calls left out)."""
        return [request for request in self.requests if request.path != "/token" and not is_job_call(request) and not is_delta_call(request)]

    def job_calls(self) -> List[Recorded]:
        """The export jobs' calls: kick-offs and status calls."""
        return [request for request in self.requests if is_job_call(request)]

    def settings(self, **overrides: object) -> dict:
        base = dict(base_url=self.url, scope="api://app/.default", subscription_key="sub-key-fake", api_key="api-key-fake",
                    client_id="client-fake", client_secret="secret-fake", token_url=f"{self.url}/token")
        base.update(overrides)
        return base
