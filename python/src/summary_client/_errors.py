"""What can go wrong, as exceptions a notebook can catch: every one says what to change."""
from __future__ import annotations

import re

#: Control characters and bidirectional overrides: never printed from a server's text.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")

#: The most of a server's text an error message quotes.
_MAX_QUOTED = 1000


def printable(text: str) -> str:
    """A server's text as an error may quote it: no control characters (line breaks included) or bidi overrides, at most 1,000 characters."""
    cleaned = _UNPRINTABLE.sub("", text)
    return cleaned if len(cleaned) <= _MAX_QUOTED else cleaned[: _MAX_QUOTED - 1] + "…"


class SummaryError(Exception):
    """Base of every error of this package."""


class SettingsError(SummaryError):
    """A setting is missing or wrong; the message names it and what to set."""


class TokenError(SummaryError):
    """No access token could be had (wrong secret, unknown tenant, unreachable or untrusted authority): nothing else can work."""


class RefusedError(SummaryError):
    """The service refused the request in a way no retry and no other window can change (a 4xx but 408/429).

    Attributes: ``status``, ``code`` (the problem's stable code, docs/errors.md), ``detail`` and
    ``request_id`` (quote it to support), and ``remedy`` (what to change).
    """

    def __init__(self, status: int, code: str, detail: str, request_id: str, remedy: str) -> None:
        self.status = status
        self.code = code
        self.detail = detail
        self.request_id = request_id
        self.remedy = remedy
        super().__init__(f"the service refused the request: {status} {code}: {detail} (request id {request_id}); {remedy}")


class UnavailableError(SummaryError):
    """The service stayed unavailable (408, 429, 502-504 or no answer) through every retry or past SUMMARY_DEADLINE_SECONDS; try again later."""


class ServiceFailedError(SummaryError):
    """The service failed on this request (500): not retried, since asking again fails alike; report the request id to the service owners."""


class TooLargeError(SummaryError):
    """A single day's export is larger than the service (413) or this client (SUMMARY_MAX_EXPORT_BYTES) takes."""


class UnsafeAnswerError(SummaryError):
    """The service answered something this client will not take (a redirect, a body past the cap, a broken export)."""
