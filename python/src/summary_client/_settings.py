"""The loader's settings: the same ``SUMMARY_*`` environment variables as the Node pull client
(summary-client), each also a keyword argument (its name without ``SUMMARY_``, lower case).
Secrets stay in this object and are never printed (its repr hides them)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Mapping, Optional
from urllib.parse import urlsplit

from ._errors import SettingsError

ENTRA = "https://login.microsoftonline.com"

#: The default cap of one export body: the largest export the service can be configured for (2 GiB).
DEFAULT_MAX_EXPORT_BYTES = 2 * 1024**3

#: The most one call to the service may take, its retries and waits included (SUMMARY_DEADLINE_SECONDS).
DEFAULT_DEADLINE_SECONDS = 900.0

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}

#: A key as a header carries it: visible ASCII only (nothing that could end the header or need encoding).
_HEADER_VALUE = re.compile("[\x21-\x7e]+")


@dataclass(frozen=True)
class Settings:
    """Where the service is, how to get a token, the two keys.

    ``token_provider`` (keyword only, no variable) gives tokens some other way, for example a
    notebook platform's own credential: a callable answering an access token for ``scope``.
    """

    base_url: str
    scope: str
    subscription_key: str = field(repr=False)
    api_key: str = field(repr=False)
    client_id: Optional[str] = None
    client_secret: Optional[str] = field(default=None, repr=False)
    tenant_id: Optional[str] = None
    token_url: Optional[str] = None
    authority_host: str = ENTRA
    ca_file: Optional[str] = None
    max_export_bytes: int = DEFAULT_MAX_EXPORT_BYTES
    deadline_seconds: float = DEFAULT_DEADLINE_SECONDS
    token_provider: Optional[Callable[[str], str]] = field(default=None, repr=False)

    @property
    def token_endpoint(self) -> str:
        """The OAuth token endpoint: SUMMARY_TOKEN_URL, else the authority host and tenant."""
        if self.token_url:
            return self.token_url
        return f"{self.authority_host.rstrip('/')}/{self.tenant_id}/oauth2/v2.0/token"


#: Keyword name -> environment variable, for every setting read from the environment.
VARIABLES = {f.name: f"SUMMARY_{f.name.upper()}" for f in fields(Settings) if f.name != "token_provider"}


def read_settings(env: Optional[Mapping[str, str]] = None, **overrides: Any) -> Settings:
    """Reads the settings: keyword arguments first, then ``SUMMARY_*`` variables of ``env`` (default ``os.environ``)."""
    unknown = sorted(set(overrides) - set(VARIABLES) - {"token_provider"})
    if unknown:
        raise TypeError(f"unknown setting {', '.join(unknown)}; the settings are {', '.join(sorted(VARIABLES))} and token_provider")
    source = os.environ if env is None else env

    def get(name: str) -> Optional[str]:
        value = overrides.get(name)
        if value is None:
            value = source.get(VARIABLES[name])
        text = None if value is None else str(value).strip()
        return text or None

    missing = [VARIABLES[name] for name in ("base_url", "scope", "subscription_key", "api_key") if get(name) is None]
    token_provider = overrides.get("token_provider")
    secret = get("client_secret")
    if token_provider is None:
        if secret is None:
            missing.append(f"{VARIABLES['client_secret']} (or pass token_provider=)")
        if get("client_id") is None:
            missing.append(VARIABLES["client_id"])
        if get("token_url") is None and get("tenant_id") is None:
            missing.append(f"{VARIABLES['tenant_id']} (or {VARIABLES['token_url']})")
    if missing:
        raise SettingsError(f"missing settings: {', '.join(missing)} (environment variables, or keyword arguments named without SUMMARY_ in lower case)")

    for name in ("subscription_key", "api_key"):
        if not _HEADER_VALUE.fullmatch(get(name) or ""):
            raise SettingsError(f"{VARIABLES[name]} must be printable ASCII without spaces (it is sent as a header); check its value")
    base_url = get("base_url").rstrip("/")  # type: ignore[union-attr]
    _check_url(base_url, "SUMMARY_BASE_URL", "https://<gateway>/summary")
    authority_host = (get("authority_host") or ENTRA).rstrip("/")
    _check_url(authority_host, "SUMMARY_AUTHORITY_HOST", ENTRA)
    token_url = get("token_url")
    if token_url:
        _check_url(token_url, "SUMMARY_TOKEN_URL", f"{ENTRA}/<tenant id>/oauth2/v2.0/token")
    ca_file = get("ca_file")
    if ca_file and not os.path.isfile(ca_file):
        raise SettingsError(f"SUMMARY_CA_FILE {ca_file} is not a readable file: the PEM file of the CA to trust besides the system's")
    return Settings(
        base_url=base_url,
        scope=get("scope"),  # type: ignore[arg-type]
        subscription_key=get("subscription_key"),  # type: ignore[arg-type]
        api_key=get("api_key"),  # type: ignore[arg-type]
        client_id=get("client_id"),
        client_secret=secret,
        tenant_id=get("tenant_id"),
        token_url=token_url,
        authority_host=authority_host,
        ca_file=ca_file,
        max_export_bytes=_max_export_bytes(get("max_export_bytes")),
        deadline_seconds=_deadline_seconds(get("deadline_seconds")),
        token_provider=token_provider,
    )


def _check_url(value: str, name: str, example: str) -> None:
    """https, or http on this machine only: the token and both keys travel with every request."""
    try:
        parts = urlsplit(value)
        host = parts.hostname or ""
    except ValueError:
        parts, host = None, ""
    if parts is None or not host or parts.scheme not in ("https", "http") or (parts.scheme == "http" and host not in _LOOPBACK):
        raise SettingsError(f"{name} must be an https URL (http only on this machine: 127.0.0.1, localhost, [::1]), for example {example}")


def _max_export_bytes(value: Optional[str]) -> int:
    if value is None:
        return DEFAULT_MAX_EXPORT_BYTES
    if not re.fullmatch("[0-9]+", value) or int(value) < 1024:
        raise SettingsError("SUMMARY_MAX_EXPORT_BYTES must be a whole number of bytes, at least 1024 (default 2147483648, 2 GiB)")
    return int(value)


def _deadline_seconds(value: Optional[str]) -> float:
    if value is None:
        return DEFAULT_DEADLINE_SECONDS
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not (0 < seconds <= 86400):
        raise SettingsError("SUMMARY_DEADLINE_SECONDS must be a number of seconds, more than 0 and at most 86400 (default 900: one call, its retries included)")
    return seconds
