"""The HTTP edge: one ``requests`` session trusting the system's CAs, SSL_CERT_FILE and
SUMMARY_CA_FILE; no redirect ever followed (the keys and the client secret would go with it);
every body read within a cap; retries of what can succeed when asked again (408, 429, 502-504,
no answer), honouring Retry-After with jitter, within bounds. The service calls and the token
requests (MSAL's included) all go through here."""
from __future__ import annotations

import datetime as dt
import email.utils
import json
import logging
import random
import re
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Union

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.ssl_ import create_urllib3_context

from ._errors import UnavailableError, UnsafeAnswerError, printable
from ._settings import Settings

log = logging.getLogger("summary_client")

#: Attempts in all (the first included) and the longest single wait, whatever Retry-After says.
ATTEMPTS = 6
MAX_WAIT_SECONDS = 60.0

#: The longest silence taken from a server: before its headers (the service answers within the 230 s
#: of an Azure Functions call) and between two pieces of a body.
READ_TIMEOUT_SECONDS = 240.0
#: The longest wait for a connection.
CONNECT_TIMEOUT_SECONDS = 10.0

#: The most a problem document or a token answer may take.
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024

_CHUNK = 1024 * 1024
_DIGITS = re.compile("[0-9]+")


class _TlsAdapter(HTTPAdapter):
    """Connections verified against one SSL context: the system's CAs (which honour SSL_CERT_FILE and SSL_CERT_DIR) plus SUMMARY_CA_FILE."""

    def __init__(self, context: ssl.SSLContext) -> None:
        self._context = context
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        kwargs["ssl_context"] = self._context
        super().init_poolmanager(*args, **kwargs)

    def proxy_manager_for(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["ssl_context"] = self._context
        return super().proxy_manager_for(*args, **kwargs)


def new_session(settings: Settings) -> requests.Session:
    """The session of every call, the token requests included."""
    # urllib3's own kind of context (it matches the host name itself, for IP addresses too, in
    # urllib3 1.26 and 2 alike), with the system's CAs: load_default_certs honours SSL_CERT_FILE.
    context = create_urllib3_context()
    context.load_default_certs()
    if settings.ca_file:
        context.load_verify_locations(cafile=settings.ca_file)
    session = requests.Session()
    session.mount("https://", _TlsAdapter(context))
    # Never a redirect, whoever asks (MSAL included): it would carry the keys or the secret along.
    session.max_redirects = 0
    return session


class BodyTooLarge(Exception):
    """A success's body was larger than the cap it was read with."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"larger than {limit} bytes")
        self.limit = limit


@dataclass(frozen=True)
class Answer:
    status: int
    headers: Mapping[str, str]
    #: The body (a bytearray: no second copy of a large export); empty when a refusal's was too large.
    body: Union[bytes, bytearray]

    @property
    def request_id(self) -> str:
        """The X-Request-ID the server gave, printable, or 'none'."""
        value = self.headers.get("x-request-id")
        return printable(value)[:128] if value else "none"

    def document(self) -> dict:
        """The body as a JSON object (a manifest, a problem document), or {} when it is none (or would
        cost far more to parse than it weighs: json_shape_ok)."""
        try:
            text = bytes(self.body).decode("utf-8")
            if not json_shape_ok(text):
                return {}
            document = json.loads(text)
        except (UnicodeDecodeError, ValueError):
            return {}
        return document if isinstance(document, dict) else {}

    def problem(self) -> dict:
        """The problem document (RFC 9457) of a refusal, or {} when it has none."""
        return self.document() if self.status >= 400 else {}

    @property
    def code(self) -> str:
        code = self.problem().get("code")
        return printable(code)[:64] if isinstance(code, str) else "no problem document"


#: The fewest characters per object or array a JSON document may spend before it is parsed (the
#: pull client's document-shape.ts): a problem spends hundreds, ``{}`` three.
MIN_BYTES_PER_CONTAINER = 16
_FREE_CONTAINERS = 1024
#: A string (to its closing quote, or to the end when it has none: matched once, never again) or an opening.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*(?:"|\Z)|[{\[]')


def json_shape_ok(text: str) -> bool:
    """Whether ``text`` holds few enough objects and arrays (outside strings) for its length to be
    parsed: one pass, linear in its length whatever the quotes and escapes."""
    allowed = max(_FREE_CONTAINERS, len(text) // MIN_BYTES_PER_CONTAINER)
    containers = 0
    for match in _JSON_TOKEN.finditer(text):
        if match.group()[0] != '"':
            containers += 1
            if containers > allowed:
                return False
    return True


#: The statuses asked again: a time-out, a rate limit, and the faults of what stands behind the service.
RETRIED_STATUSES = (408, 429, 502, 503, 504)


def is_retried(status: int) -> bool:
    """408, 429 (rate limit), 502, 503 (exports busy, store or identity provider unavailable), 504: worth another try.
    500 is not: the service failed on this very request, and asking again fails the same way."""
    return status in RETRIED_STATUSES


def whole_number(text: Optional[str]) -> Optional[int]:
    """ASCII digits as a number (``str.isdigit`` also takes ``²``); None otherwise."""
    return int(text) if text is not None and _DIGITS.fullmatch(text.strip()) else None


def retry_after_seconds(header: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds Retry-After asks for (seconds or an HTTP date, which is UTC); None when absent or unreadable."""
    if header is None:
        return None
    seconds = whole_number(header)
    if seconds is not None:
        return float(seconds)
    try:
        when = email.utils.parsedate_to_datetime(header.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:  # the asctime form and -0000: HTTP dates are GMT
        when = when.replace(tzinfo=dt.timezone.utc)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _certificate_failure(error: BaseException) -> bool:
    """Whether a TLS failure is about the certificate (not trusted, not for this host): asking again changes nothing."""
    seen: Optional[BaseException] = error
    for _ in range(8):
        if seen is None:
            break
        if isinstance(seen, ssl.SSLCertVerificationError) or type(seen).__name__ == "CertificateError":
            return True
        seen = seen.__cause__ or seen.__context__ or (seen.args[0] if seen.args and isinstance(seen.args[0], BaseException) else None)
    text = str(error)
    return "CERTIFICATE_VERIFY_FAILED" in text or "doesn't match" in text or "does not match" in text


class DeadlinePassed(Exception):
    """A request was still unanswered, or its body unfinished, at its deadline."""


def _shut(response: requests.Response, passed: threading.Event) -> None:
    """Ends a body being read in another thread: a socket shut down wakes its reader (closing it would not)."""
    passed.set()
    # The connection's socket; for a body that ends when the connection does, http.client has
    # handed the socket to the response's reader instead.
    sock = getattr(getattr(response.raw, "connection", None), "sock", None)
    if sock is None:
        reader = getattr(getattr(getattr(response.raw, "_fp", None), "fp", None), "raw", None)
        sock = getattr(reader, "_sock", None)
    try:
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _clock_failure(error: BaseException) -> Optional[str]:
    """'not valid yet' or 'expired' when the certificate failed on its dates (this machine's clock as likely as the certificate); else None."""
    text = str(error).lower()
    if "not yet valid" in text:
        return "not valid yet"
    if "has expired" in text or "certificate expired" in text:
        return "expired"
    return None


def fetch(session: requests.Session, method: str, url: str, cap: int, deadline: Optional[float] = None,
          sink: Optional[Callable[[bytes], None]] = None, **options: Any) -> Answer:
    """One request, its body read within ``cap`` (a success's; a refusal's within MAX_DOCUMENT_BYTES,
    dropped past it) and by ``deadline`` (``time.monotonic()``; raises DeadlinePassed): a server that
    trickles its body or never sends its headers holds it no longer. With ``sink``, a success's body
    is handed to it chunk by chunk as it comes (the answer's body is then empty): memory holds a chunk."""
    left = float("inf") if deadline is None else deadline - time.monotonic()
    if left <= 0:
        raise DeadlinePassed()
    options["timeout"] = (min(CONNECT_TIMEOUT_SECONDS, left), min(READ_TIMEOUT_SECONDS, left))
    try:
        response = session.request(method, url, stream=True, allow_redirects=False, **options)
    except requests.exceptions.ReadTimeout:
        if deadline is not None and time.monotonic() >= deadline:
            raise DeadlinePassed() from None
        raise
    passed = threading.Event()
    watchdog = threading.Timer(max(0.0, deadline - time.monotonic()), _shut, (response, passed)) if deadline is not None else None
    if watchdog is not None:
        watchdog.daemon = True
        watchdog.start()
    try:
        answer = _read(response, url, cap, sink)
    except (requests.exceptions.RequestException, OSError, ValueError):
        if passed.is_set():
            raise DeadlinePassed() from None
        raise
    finally:
        if watchdog is not None:
            watchdog.cancel()
        response.close()
    if passed.is_set():  # a body read to its connection's end: the end was the deadline's
        raise DeadlinePassed()
    return answer


def _read(response: requests.Response, url: str, cap: int, sink: Optional[Callable[[bytes], None]] = None) -> Answer:
    with response:
        status = response.status_code
        if 300 <= status < 400:
            raise UnsafeAnswerError(f"{printable(url.split('?')[0])} answered {status}, a redirect, which is never followed (the keys would go with it): set the URL the server serves")
        success = 200 <= status < 300
        limit = cap if success else MAX_DOCUMENT_BYTES
        headers = {name.lower(): value for name, value in response.headers.items()}
        # Asked for identity, an encoded answer is refused before a byte of it is read: urllib3
        # would inflate it (a few KB of gzip make gigabytes, counted only once inflated).
        coding = (headers.get("content-encoding") or "identity").strip().lower()
        asked = (response.request.headers.get("Accept-Encoding") or "") if response.request is not None else ""
        if coding != "identity" and asked.strip().lower() == "identity":
            raise UnsafeAnswerError(f"{printable(url.split('?')[0])} answered in the {printable(coding[:40])} coding, which this client did not ask for (it asks for identity: the exports are compressed already): refused before reading it")
        declared = whole_number(response.headers.get("content-length"))
        body = bytearray()
        received = 0
        if declared is None or declared <= limit:
            for chunk in response.iter_content(_CHUNK):
                received += len(chunk)
                if received > limit:
                    break
                if success and sink is not None:
                    sink(chunk)
                else:
                    body += chunk
        if (declared is not None and declared > limit) or received > limit:
            if success:
                raise BodyTooLarge(limit)
            body = bytearray()  # a refusal past the cap: its status still says what it is
        return Answer(status, headers, body)


def with_retries(send: Callable[[Optional[float]], Answer], what: str, deadline_seconds: Optional[float] = None, deadline_name: str = "SUMMARY_DEADLINE_SECONDS", attempts: int = ATTEMPTS) -> Answer:
    """``send(deadline)`` until it answers something not retried and no network failure, or the
    attempts or ``deadline_seconds`` (every attempt and wait included) run out: the last answer then."""
    deadline = None if deadline_seconds is None else time.monotonic() + deadline_seconds
    for attempt in range(1, attempts + 1):
        answer: Optional[Answer] = None
        failure: Optional[str] = None
        try:
            answer = send(deadline)
        except DeadlinePassed:
            raise UnavailableError(f"{what} did not answer in full within {deadline_seconds:g} s ({deadline_name}), attempts and waits included; try again later" + (", or raise it for a slow link" if deadline_name.startswith("SUMMARY_") else "")) from None
        except requests.exceptions.SSLError as error:
            if _certificate_failure(error):
                clock = _clock_failure(error)
                if clock is not None:
                    raise UnsafeAnswerError(f"the certificate of {what} is {clock} by this machine's clock (it reads {dt.datetime.now(dt.timezone.utc).isoformat(timespec='seconds')}): check the clock and its time zone, then the certificate's dates") from None
                raise UnsafeAnswerError(f"the certificate of {what} is not trusted here (or not for this host): set SUMMARY_CA_FILE to the CA that issued it, and the URL to the name in the certificate") from None
            failure = "TLS failure"
        except requests.exceptions.TooManyRedirects:
            raise UnsafeAnswerError(f"{what} answered with a redirect, which is never followed (the keys would go with it)") from None
        except (requests.exceptions.ConnectionError, requests.exceptions.Timeout, requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError) as error:
            failure = type(error).__name__
        if answer is not None and not is_retried(answer.status):
            return answer
        if attempt == attempts:
            if answer is not None:
                return answer
            raise UnavailableError(f"{what} gave no answer after {attempts} attempts ({failure}); check the URL, or try again later")
        asked = retry_after_seconds(answer.headers.get("retry-after")) if answer is not None else None
        if answer is not None and asked is not None and asked > MAX_WAIT_SECONDS:
            return answer  # never back before the server said
        wait = min(MAX_WAIT_SECONDS, (asked if asked is not None else 2.0 ** (attempt - 1)) * (1 + random.random() / 4))
        if deadline is not None and time.monotonic() + wait >= deadline:
            if answer is not None:
                return answer
            raise UnavailableError(f"{what} gave no answer within {deadline_seconds:g} s ({deadline_name}; {failure}); check the URL, or try again later")
        why = f"{answer.status} {answer.code}" if answer is not None else f"no answer: {failure}"
        log.info("retrying %s in %.1f s (%s)", what, wait, why)
        time.sleep(wait)
    raise AssertionError("unreachable")


class Transport:
    """POSTs to the service with the three credentials, retried and capped."""

    def __init__(self, settings: Settings, session: requests.Session, token: Callable[[], str]) -> None:
        self._settings = settings
        self._session = session
        self._token = token

    def post(self, path: str, body: Mapping[str, Any], accept: str, cap: int, if_none_match: Optional[str] = None, headers: Optional[Mapping[str, str]] = None, attempts: int = ATTEMPTS) -> Answer:
        """The answer to one request, after retries (at most ``attempts`` tries); a success's body capped at ``cap`` (raises BodyTooLarge).
        With ``if_none_match`` (an earlier answer's ETag) the service answers 412 RESULT_UNCHANGED while the result still has it."""
        return with_retries(lambda deadline: self._send(path, body, accept, cap, if_none_match, deadline, "POST", headers), "the service", self._settings.deadline_seconds, attempts=attempts)

    def get(self, path: str, cap: int, headers: Optional[Mapping[str, str]] = None) -> Answer:
        """The answer to one GET of the service (an export job's status), after retries, its body capped at ``cap``."""
        return with_retries(lambda deadline: self._send(path, None, "application/json", cap, None, deadline, "GET", headers), "the service", self._settings.deadline_seconds)

    def _send(self, path: str, body: Optional[Mapping[str, Any]], accept: str, cap: int, if_none_match: Optional[str], deadline: Optional[float], method: str = "POST", extra: Optional[Mapping[str, str]] = None) -> Answer:
        headers = {
            "Authorization": f"Bearer {self._token()}",
            "Ocp-Apim-Subscription-Key": self._settings.subscription_key,
            "x-api-key": self._settings.api_key,
            "Accept": accept,
            "Content-Type": "application/json",
            # The exports are compressed already; an encoded body would be inflated past the count.
            "Accept-Encoding": "identity",
        }
        if if_none_match is not None:
            headers["If-None-Match"] = if_none_match
        headers.update(extra or {})
        if body is None:
            del headers["Content-Type"]
            return fetch(self._session, method, f"{self._settings.base_url}{path}", cap, deadline, headers=headers)
        return fetch(self._session, method, f"{self._settings.base_url}{path}", cap, deadline, data=json.dumps(body), headers=headers)
