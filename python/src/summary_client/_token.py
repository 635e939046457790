"""Access tokens by OAuth 2.0 client credentials, against Entra ID or any authority that speaks it
(the local stack's provider): through MSAL for Python when it is installed, else one plain token
request. Only ``access_token`` is used, never ``id_token``. Both go through the transport's rules
(no redirect, bounded answers, retries of 408, 429, 502-504 and no answer). Tokens are kept until a minute before
they expire."""
from __future__ import annotations

import json
import re
import time
from typing import Any, Callable, Dict, Optional

import requests

from ._errors import SummaryError, TokenError, printable
from ._settings import ENTRA, Settings
from ._transport import Answer, BodyTooLarge, fetch, whole_number, with_retries

#: The most one token request may take, its retries and waits included.
TOKEN_DEADLINE_SECONDS = 120.0

try:  # MSAL is optional (the `msal` extra, or Debian's python3-msal).
    import msal  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - which branch runs depends on the environment
    msal = None

_MARGIN_SECONDS = 60
#: The most a token answer (or an authority's metadata) may take.
_MAX_TOKEN_ANSWER = 1024 * 1024
#: An access token as a bearer header may carry it (RFC 6750 b64token): nothing that could break the header.
_B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


def token_source(settings: Settings, session: requests.Session) -> Callable[[], str]:
    """A function answering a valid access token for ``settings.scope``; ``.kind`` says how it gets them."""
    if settings.token_provider is not None:
        provider = settings.token_provider
        source: Any = lambda: _checked(provider(settings.scope), "token_provider")  # noqa: E731
        source.kind = "token_provider"
        return source
    if msal is not None and settings.token_url is None:
        return _msal_source(settings, session)
    return _plain_source(settings, session)


def _checked(token: object, source: str) -> str:
    if not isinstance(token, str) or not _B64TOKEN.fullmatch(token):
        raise TokenError(f"{source} gave no usable access token (a non-empty string of base64url characters)")
    return token


class _Response:
    """What MSAL reads of an answer (status_code, text, headers)."""

    def __init__(self, answer: Answer) -> None:
        self.status_code = answer.status
        self.headers = dict(answer.headers)
        self.text = bytes(answer.body).decode("utf-8", "replace")

    def raise_for_status(self) -> None:
        if self.status_code >= 400:
            raise requests.exceptions.HTTPError(f"HTTP {self.status_code}")


class _MsalHttp:
    """MSAL's http_client: every request through the transport (no redirect, bounded, retried)."""

    def __init__(self, session: requests.Session, authority: str) -> None:
        self._session = session
        self._authority = authority

    def _call(self, method: str, url: str, **options: Any) -> _Response:
        options.pop("allow_redirects", None)
        options.pop("timeout", None)  # the transport's own timeouts and deadline
        try:
            return _Response(with_retries(lambda deadline: fetch(self._session, method, url, _MAX_TOKEN_ANSWER, deadline, **options), f"the authority {self._authority}", TOKEN_DEADLINE_SECONDS, "the token request's own deadline"))
        except BodyTooLarge:
            raise TokenError(f"the authority {self._authority} answered more than {_MAX_TOKEN_ANSWER} bytes") from None

    def post(self, url: str, **options: Any) -> _Response:
        return self._call("POST", url, **options)

    def get(self, url: str, **options: Any) -> _Response:
        return self._call("GET", url, **options)

    def close(self) -> None:
        pass


def _msal_source(settings: Settings, session: requests.Session) -> Callable[[], str]:
    authority = f"{settings.authority_host}/{settings.tenant_id}"
    try:
        app = msal.ConfidentialClientApplication(
            settings.client_id,
            client_credential=settings.client_secret,
            authority=authority,
            # Instance discovery asks login.microsoftonline.com about the authority: only meaningful there.
            instance_discovery=settings.authority_host == ENTRA,
            http_client=_MsalHttp(session, settings.authority_host),
        )
    except SummaryError as error:
        raise TokenError(f"no access token: {error}") from None
    except ValueError as error:  # MSAL checks the authority's metadata here
        raise TokenError(f"the authority {authority} cannot be used: {printable(str(error))}; check SUMMARY_AUTHORITY_HOST and SUMMARY_TENANT_ID") from None

    def source() -> str:
        try:
            result = app.acquire_token_for_client(scopes=[settings.scope])  # MSAL caches it
        except SummaryError as error:
            raise TokenError(f"no access token: {error}") from None
        if "access_token" not in result:
            raise TokenError(_refusal(result.get("error"), result.get("error_description")))
        return _checked(result["access_token"], "the authority")

    source.kind = "msal"  # type: ignore[attr-defined]
    return source


def _plain_source(settings: Settings, session: requests.Session) -> Callable[[], str]:
    cached: Dict[str, Any] = {}
    endpoint = settings.token_endpoint

    def source() -> str:
        if cached.get("expires", 0) > time.monotonic():
            return str(cached["token"])
        form = {"grant_type": "client_credentials", "client_id": settings.client_id, "client_secret": settings.client_secret, "scope": settings.scope}
        try:
            answer = with_retries(lambda deadline: fetch(session, "POST", endpoint, _MAX_TOKEN_ANSWER, deadline, data=form), f"the token endpoint {endpoint}", TOKEN_DEADLINE_SECONDS, "the token request's own deadline")
        except SummaryError as error:
            raise TokenError(f"no access token: {error}; check SUMMARY_TOKEN_URL or SUMMARY_AUTHORITY_HOST and SUMMARY_TENANT_ID") from None
        except BodyTooLarge:
            raise TokenError(f"the token endpoint {endpoint} answered more than {_MAX_TOKEN_ANSWER} bytes") from None
        try:
            body = json.loads(bytes(answer.body).decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            body = {}
        if not isinstance(body, dict):
            body = {}
        if answer.status != 200 or not isinstance(body.get("access_token"), str):
            raise TokenError(_refusal(body.get("error") or f"HTTP {answer.status}", body.get("error_description")))
        lifetime = whole_number(str(body.get("expires_in", "")))
        token = _checked(body["access_token"], "the token endpoint")
        cached.update(token=token, expires=time.monotonic() + max(0, (lifetime if lifetime is not None else 300) - _MARGIN_SECONDS))
        return token

    source.kind = "plain"  # type: ignore[attr-defined]
    return source


def _refusal(error: Optional[object], description: Optional[object]) -> str:
    text = f"{error}: {description}" if description else str(error)
    return f"no access token: {printable(text)}; check SUMMARY_CLIENT_ID, SUMMARY_CLIENT_SECRET, SUMMARY_TENANT_ID and SUMMARY_SCOPE (api://<APP_ID>/.default)"
