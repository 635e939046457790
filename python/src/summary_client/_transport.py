"""The HTTP edge: one ``requests`` session trusting the system's CAs, SSL_CERT_FILE and
SUMMARY_CA_FILE; the three credentials on every call; no redirect ever followed (the keys would go
with it); every body capped; retries of what can succeed when asked again (408, 429, 5xx, no
answer), honouring Retry-After with jitter, within bounds."""
from __future__ import annotations

import email.utils
import json
import logging
import random
import ssl
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.ssl_ import create_urllib3_context

from ._errors import UnavailableError, UnsafeAnswerError, printable
from ._settings import Settings

log = logging.getLogger("summary_client")

#: Attempts in all (the first included) and the longest single wait, whatever Retry-After says.
ATTEMPTS = 6
MAX_WAIT_SECONDS = 60.0

#: The most a problem document may take.
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024

_CHUNK = 1024 * 1024


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
    return session


class BodyTooLarge(Exception):
    """An answer's body was larger than the cap of its kind."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"larger than {limit} bytes")
        self.limit = limit


@dataclass(frozen=True)
class Answer:
    status: int
    headers: Mapping[str, str]
    body: bytes

    @property
    def request_id(self) -> Optional[str]:
        return self.headers.get("x-request-id")

    def problem(self) -> dict:
        """The problem document (RFC 9457) of a refusal, or {} when the body is none."""
        try:
            document = json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return {}
        return document if isinstance(document, dict) else {}

    @property
    def code(self) -> str:
        code = self.problem().get("code")
        return printable(code) if isinstance(code, str) else "no problem document"


def is_retried(status: int) -> bool:
    """429 (rate limit), 5xx (503: exports busy, store or identity provider unavailable) and 408: worth another try."""
    return status == 408 or status == 429 or status >= 500


def retry_after_seconds(header: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds Retry-After asks for (seconds or an HTTP date); None when absent or unreadable."""
    if header is None:
        return None
    text = header.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class Transport:
    """POSTs to the service with the three credentials, retried and capped."""

    def __init__(self, settings: Settings, session: requests.Session, token: Callable[[], str]) -> None:
        self._settings = settings
        self._session = session
        self._token = token

    def post(self, path: str, body: Mapping[str, Any], accept: str, cap: int) -> Answer:
        """The answer to one request, after retries; a success's body capped at ``cap`` (raises BodyTooLarge)."""
        for attempt in range(1, ATTEMPTS + 1):
            answer: Optional[Answer] = None
            failure: Optional[str] = None
            try:
                answer = self._send(path, body, accept, cap)
            except requests.exceptions.SSLError:
                # Not trusted, not for this host, or no TLS agreed: asking again changes none of it.
                raise UnsafeAnswerError("the service's certificate is not trusted here (or not for this host): set SUMMARY_CA_FILE to the CA that issued it, and SUMMARY_BASE_URL to the name in the certificate") from None
            except (requests.exceptions.ConnectionError, requests.exceptions.Timeout, requests.exceptions.ChunkedEncodingError) as error:
                failure = type(error).__name__
            if answer is not None and not is_retried(answer.status):
                return answer
            if attempt == ATTEMPTS:
                if answer is not None:
                    return answer
                raise UnavailableError(f"the service gave no answer after {ATTEMPTS} attempts ({failure}): check SUMMARY_BASE_URL, or try again later")
            asked = retry_after_seconds(answer.headers.get("retry-after")) if answer is not None else None
            if asked is not None and asked > MAX_WAIT_SECONDS:
                return answer  # type: ignore[return-value]  # never back before the server said
            wait = min(MAX_WAIT_SECONDS, (asked if asked is not None else 2.0 ** (attempt - 1)) * (1 + random.random() / 4))
            why = f"{answer.status} {answer.code}" if answer is not None else f"no answer: {failure}"
            log.info("retrying in %.1f s (%s)", wait, why)
            time.sleep(wait)
        raise AssertionError("unreachable")

    def _send(self, path: str, body: Mapping[str, Any], accept: str, cap: int) -> Answer:
        headers = {
            "Authorization": f"Bearer {self._token()}",
            "Ocp-Apim-Subscription-Key": self._settings.subscription_key,
            "x-api-key": self._settings.api_key,
            "Accept": accept,
            "Content-Type": "application/json",
        }
        with self._session.post(
            f"{self._settings.base_url}{path}", data=json.dumps(body), headers=headers, stream=True, allow_redirects=False, timeout=(10, 600)
        ) as response:
            status = response.status_code
            if 300 <= status < 400:
                raise UnsafeAnswerError(f"the service answered {status}, a redirect, which is never followed (the keys would go with it): set SUMMARY_BASE_URL to the URL the gateway serves")
            limit = cap if 200 <= status < 300 else MAX_DOCUMENT_BYTES
            declared = response.headers.get("content-length")
            if declared is not None and declared.isdigit() and int(declared) > limit:
                raise BodyTooLarge(limit)
            chunks = []
            seen = 0
            for chunk in response.iter_content(_CHUNK):
                seen += len(chunk)
                if seen > limit:
                    raise BodyTooLarge(limit)
                chunks.append(chunk)
            return Answer(status, {name.lower(): value for name, value in response.headers.items()}, b"".join(chunks))
