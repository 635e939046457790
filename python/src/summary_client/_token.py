"""Access tokens by OAuth 2.0 client credentials, against Entra ID or any authority that speaks it
(the local stack's provider): through MSAL for Python when it is installed, else one plain token
request. Only ``access_token`` is used, never ``id_token``. Tokens are kept until a minute before
they expire."""
from __future__ import annotations

import json
import time
from typing import Any, Callable, Optional

import requests

from ._errors import TokenError, printable
from ._settings import ENTRA, Settings

try:  # MSAL is optional (the `msal` extra, or Debian's python3-msal).
    import msal  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - which branch runs depends on the environment
    msal = None

_MARGIN_SECONDS = 60


def token_source(settings: Settings, session: requests.Session) -> Callable[[], str]:
    """A function answering a valid access token for ``settings.scope``; ``.kind`` says how it gets them."""
    if settings.token_provider is not None:
        provider = settings.token_provider
        source: Any = lambda: _checked(provider(settings.scope))  # noqa: E731
        source.kind = "token_provider"
        return source
    if msal is not None and settings.token_url is None:
        return _msal_source(settings, session)
    return _plain_source(settings, session)


def _checked(token: object) -> str:
    if not isinstance(token, str) or not token:
        raise TokenError("token_provider gave no token (it must answer the access token as a non-empty string)")
    return token


def _msal_source(settings: Settings, session: requests.Session) -> Callable[[], str]:
    try:
        app = msal.ConfidentialClientApplication(
            settings.client_id,
            client_credential=settings.client_secret,
            authority=f"{settings.authority_host}/{settings.tenant_id}",
            # Instance discovery asks login.microsoftonline.com about the authority: only meaningful there.
            instance_discovery=settings.authority_host == ENTRA,
            # Our session: the same trusted CAs (SUMMARY_CA_FILE) as the service calls.
            http_client=session,
        )
    except ValueError as error:  # MSAL checks the authority's metadata here
        raise TokenError(f"the authority {settings.authority_host}/{settings.tenant_id} cannot be used: {printable(str(error))}; check SUMMARY_AUTHORITY_HOST and SUMMARY_TENANT_ID") from None
    except requests.exceptions.SSLError:
        raise TokenError(f"the authority {settings.authority_host} has a certificate this machine does not trust: set SUMMARY_CA_FILE to the CA that issued it") from None
    except requests.exceptions.RequestException as error:
        raise TokenError(f"the authority {settings.authority_host} cannot be reached ({type(error).__name__}): check SUMMARY_AUTHORITY_HOST") from None

    def source() -> str:
        try:
            result = app.acquire_token_for_client(scopes=[settings.scope])  # MSAL caches it
        except requests.exceptions.SSLError:
            raise TokenError(f"the authority {settings.authority_host} has a certificate this machine does not trust: set SUMMARY_CA_FILE") from None
        except requests.exceptions.RequestException as error:
            raise TokenError(f"the authority {settings.authority_host} cannot be reached ({type(error).__name__})") from None
        if "access_token" not in result:
            raise TokenError(_refusal(result.get("error"), result.get("error_description")))
        return str(result["access_token"])

    source.kind = "msal"  # type: ignore[attr-defined]
    return source


def _plain_source(settings: Settings, session: requests.Session) -> Callable[[], str]:
    cached: dict = {}

    def source() -> str:
        if cached.get("expires", 0) > time.monotonic():
            return str(cached["token"])
        form = {"grant_type": "client_credentials", "client_id": settings.client_id, "client_secret": settings.client_secret, "scope": settings.scope}
        try:
            response = session.post(settings.token_endpoint, data=form, timeout=(10, 60), allow_redirects=False)
        except requests.exceptions.SSLError:
            raise TokenError(f"the token endpoint {settings.token_endpoint} has a certificate this machine does not trust: set SUMMARY_CA_FILE to the CA that issued it") from None
        except requests.exceptions.RequestException as error:
            raise TokenError(f"the token endpoint {settings.token_endpoint} cannot be reached ({type(error).__name__}): check SUMMARY_TOKEN_URL or SUMMARY_AUTHORITY_HOST and SUMMARY_TENANT_ID") from None
        try:
            body = response.json() if len(response.content) <= 1024 * 1024 else {}
        except (ValueError, json.JSONDecodeError):
            body = {}
        if response.status_code != 200 or not isinstance(body, dict) or not isinstance(body.get("access_token"), str):
            error = body.get("error") if isinstance(body, dict) else None
            description = body.get("error_description") if isinstance(body, dict) else None
            raise TokenError(_refusal(error or f"HTTP {response.status_code}", description))
        lifetime = body.get("expires_in")
        seconds = int(lifetime) if isinstance(lifetime, (int, str)) and str(lifetime).isdigit() else 300
        cached.update(token=body["access_token"], expires=time.monotonic() + max(0, seconds - _MARGIN_SECONDS))
        return str(body["access_token"])

    source.kind = "plain"  # type: ignore[attr-defined]
    return source


def _refusal(error: Optional[object], description: Optional[object]) -> str:
    text = f"{error}: {description}" if description else str(error)
    return f"no access token: {printable(text)}; check SUMMARY_CLIENT_ID, SUMMARY_CLIENT_SECRET, SUMMARY_TENANT_ID and SUMMARY_SCOPE (api://<APP_ID>/.default)"
