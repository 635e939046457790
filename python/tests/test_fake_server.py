"""The loader against a misbehaving service: retries, fail-fast, halving and the safety rules of
the pull client, with a scripted HTTP server on loopback (fake_server.py) and no real waits."""
from __future__ import annotations

import datetime as dt
import zipfile
import gzip
import json
import time
import os
from typing import Iterator, List

import pytest

import summary_client
from summary_client import RefusedError, SettingsError, TokenError, TooLargeError, UnavailableError, UnsafeAnswerError
from summary_client import _transport

from fake_server import FakeServer, ok, parquet, problem, zipped


@pytest.fixture(autouse=True)
def no_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only what each test passes: none of the SUMMARY_* variables a run against the stack sets."""
    for name in list(os.environ):
        if name.startswith("SUMMARY_") or name in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"):
            monkeypatch.delenv(name)


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> List[float]:
    """The waits between retries, recorded instead of slept."""
    recorded: List[float] = []
    monkeypatch.setattr(_transport.time, "sleep", recorded.append)
    return recorded


@pytest.fixture
def servers() -> Iterator[List[FakeServer]]:
    started: List[FakeServer] = []
    yield started
    for server in started:
        server.stop()


def serve(servers: List[FakeServer], answer) -> FakeServer:  # type: ignore[no-untyped-def]
    server = FakeServer(answer).start()
    servers.append(server)
    return server


def rows_for(request) -> bytes:  # type: ignore[no-untyped-def]
    """One row per day of the asked window."""
    start = dt.date.fromisoformat(request.body["createdFrom"])
    end = dt.date.fromisoformat(request.body["createdTo"])
    days = [(start + dt.timedelta(days=offset)).isoformat() for offset in range((end - start).days + 1)]
    return parquet([{"id": f"r-{day}", "day": day} for day in days])


def test_reads_calendar_months_with_the_three_credentials_and_one_table(servers, waits):  # type: ignore[no-untyped-def]
    server = serve(servers, lambda request: ok(rows_for(request)))
    table = summary_client.load_as_arrow("contracts", "2025-01-15", "2025-03-10", **server.settings())
    assert [(call.body["createdFrom"], call.body["createdTo"]) for call in server.calls()] == [
        ("2025-01-15", "2025-01-31"), ("2025-02-01", "2025-02-28"), ("2025-03-01", "2025-03-10")]
    assert table.num_rows == 17 + 28 + 10
    assert len(set(table.column("id").to_pylist())) == table.num_rows
    call = server.calls()[0]
    assert call.headers["authorization"] == "Bearer fake-token"
    assert call.headers["ocp-apim-subscription-key"] == "sub-key-fake"
    assert call.headers["x-api-key"] == "api-key-fake"
    assert call.headers["accept"] == "application/vnd.apache.parquet"
    assert len([request for request in server.requests if request.path == "/token"]) == 1  # kept until it expires
    assert waits == []


def test_retries_429_and_5xx_honouring_retry_after(servers, waits):  # type: ignore[no-untyped-def]
    script = [problem(429, "RATE_LIMITED"), (503, {"Retry-After": "7"}, b""), None]

    def answer(request):  # type: ignore[no-untyped-def]
        return script.pop(0) if script else ok(rows_for(request))

    server = serve(servers, answer)
    table = summary_client.load_as_arrow("contracts", "2025-02-01", "2025-02-28", **server.settings())
    assert table.num_rows == 28
    assert len(server.calls()) == 4
    assert len(waits) == 3
    assert 1.0 <= waits[0] <= 1.25  # no Retry-After: exponential from 1 s, jitter up to +25 %
    assert 7.0 <= waits[1] <= 8.75  # Retry-After: 7
    assert 4.0 <= waits[2] <= 5.0  # no answer at all: the third wait


def test_gives_up_after_six_attempts_and_never_waits_past_a_long_retry_after(servers, waits):  # type: ignore[no-untyped-def]
    server = serve(servers, lambda request: problem(503, "STORE_UNAVAILABLE"))
    with pytest.raises(UnavailableError, match="503 STORE_UNAVAILABLE"):
        summary_client.load_as_arrow("contracts", "2025-02-01", "2025-02-28", **server.settings())
    assert len(server.calls()) == 6
    assert all(wait <= 60 for wait in waits)

    patient = serve(servers, lambda request: (429, {"Retry-After": "3600"}, b"{}"))
    waits.clear()
    with pytest.raises(UnavailableError):
        summary_client.load_as_arrow("contracts", "2025-02-01", "2025-02-28", **patient.settings())
    assert len(patient.calls()) == 1
    assert waits == []


@pytest.mark.parametrize("status, code, remedy", [
    (400, "INVALID_FILTER", "fix the filters= value"),
    (401, "INVALID_API_KEY", "check SUMMARY_API_KEY"),
    (403, "MISSING_ROLE", "Data.Read"),
    (404, "NOT_FOUND", "check SUMMARY_BASE_URL"),
])
def test_stops_at_the_first_permanent_refusal_of_a_long_range(servers, waits, status, code, remedy):  # type: ignore[no-untyped-def]
    server = serve(servers, lambda request: problem(status, code, "what was wrong"))
    with pytest.raises(RefusedError) as raised:
        summary_client.load_as_arrow("contracts", "2025-01-01", "2025-12-31", **server.settings())
    assert len(server.calls()) == 1  # not one call per month
    assert (raised.value.status, raised.value.code, raised.value.request_id) == (status, code, "rid-1")
    assert remedy in str(raised.value)
    assert "what was wrong" in str(raised.value)
    assert waits == []


def test_halves_a_window_too_large_for_one_export_down_to_days(servers, waits):  # type: ignore[no-untyped-def]
    def answer(request):  # type: ignore[no-untyped-def]
        days = (dt.date.fromisoformat(request.body["createdTo"]) - dt.date.fromisoformat(request.body["createdFrom"])).days + 1
        return problem(413, "RESULT_TOO_LARGE") if days > 8 else ok(rows_for(request))

    server = serve(servers, answer)
    table = summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-31", **server.settings())
    assert table.num_rows == 31
    assert sorted(table.column("day").to_pylist()) == [f"2025-03-{day:02d}" for day in range(1, 32)]
    assert [(c.body["createdFrom"], c.body["createdTo"]) for c in server.calls()][:3] == [
        ("2025-03-01", "2025-03-31"), ("2025-03-01", "2025-03-16"), ("2025-03-01", "2025-03-08")]


def test_a_single_day_too_large_stops_with_what_to_do(servers, waits):  # type: ignore[no-untyped-def]
    server = serve(servers, lambda request: problem(413, "RESULT_TOO_LARGE"))
    with pytest.raises(TooLargeError, match="filters="):
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-04", **server.settings())
    assert [(c.body["createdFrom"], c.body["createdTo"]) for c in server.calls()] == [
        ("2025-03-01", "2025-03-04"), ("2025-03-01", "2025-03-02"), ("2025-03-01", "2025-03-01")]


def test_caps_an_export_body_and_halves_past_the_cap(servers, waits):  # type: ignore[no-untyped-def]
    def answer(request):  # type: ignore[no-untyped-def]
        data = rows_for(request)
        return ok(data + b"\0" * 5000) if request.body["createdFrom"] != request.body["createdTo"] else ok(data)

    server = serve(servers, answer)
    # Without a cap that small, the padded two days are taken, and refused for what they are.
    with pytest.raises(UnsafeAnswerError, match="not a Parquet file"):
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-02", **server.settings())
    table = summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-02", **server.settings(max_export_bytes="4096"))
    assert table.num_rows == 2


def test_never_follows_a_redirect(servers, waits):  # type: ignore[no-untyped-def]
    elsewhere = serve(servers, lambda request: ok(rows_for(request)))
    server = serve(servers, lambda request: (307, {"Location": f"{elsewhere.url}/v1/contracts/summary"}, b""))
    with pytest.raises(UnsafeAnswerError, match="redirect"):
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-31", **server.settings())
    assert elsewhere.calls() == []


def test_takes_only_the_asked_table_of_the_zip_within_its_cap(servers, waits):  # type: ignore[no-untyped-def]
    good = zipped({"invoices.parquet": parquet([{"id": "i1", "day": "d"}]), "invoice_tables.parquet": parquet([{"id": "l1", "day": "d"}, {"id": "l2", "day": "d"}])})
    server = serve(servers, lambda request: ok(good, "application/zip"))
    assert summary_client.load_as_arrow("invoices", "2025-03-01", "2025-03-31", **server.settings()).num_rows == 1
    assert summary_client.load_as_arrow("invoices", "2025-03-01", "2025-03-31", table="invoice_tables", **server.settings()).num_rows == 2
    assert server.calls()[0].headers["accept"] == "application/zip"

    missing = serve(servers, lambda request: ok(zipped({"invoices.parquet": parquet([])}), "application/zip"))
    with pytest.raises(UnsafeAnswerError, match="no invoice_tables.parquet"):
        summary_client.load_as_arrow("invoices", "2025-03-01", "2025-03-31", table="invoice_tables", **missing.settings())

    import zlib

    lying = zip_of_one("invoices.parquet", 10_000_000, b"PAR1" + b"\0" * 500 + b"PAR1", zlib.crc32(b"PAR1" + b"\0" * 500 + b"PAR1"), method=0)
    lies = serve(servers, lambda request: ok(lying, "application/zip"))
    with pytest.raises(UnsafeAnswerError, match="declares 10000000 bytes .508 stored.*SUMMARY_MAX_EXPORT_BYTES 10000 or not what is stored"):
        summary_client.load_as_arrow("invoices", "2025-03-01", "2025-03-01", **lies.settings(max_export_bytes="10000"))


def test_quotes_server_text_without_control_characters_or_bidi_overrides(servers, waits):  # type: ignore[no-untyped-def]
    server = serve(servers, lambda request: problem(400, "INVALID_FILTER", "bad\x1b[31m value\u202e" + "x" * 5000))
    with pytest.raises(RefusedError) as raised:
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-31", **server.settings())
    message = str(raised.value)
    assert "\x1b" not in message and "\u202e" not in message
    assert "bad[31m value" in message
    assert len(raised.value.detail) <= 1000


def test_a_refused_token_stops_before_any_call(servers, waits):  # type: ignore[no-untyped-def]
    server = serve(servers, lambda request: ok(rows_for(request)))
    server.token_reply = (401, {"Content-Type": "application/json"}, json.dumps({"error": "invalid_client", "error_description": "AADSTS7000215: Invalid client secret"}).encode())
    with pytest.raises(TokenError, match="invalid_client.*SUMMARY_CLIENT_SECRET"):
        summary_client.load_as_arrow("contracts", "2025-01-01", "2025-12-31", **server.settings())
    assert server.calls() == []


def test_checks_what_was_asked_before_any_request(servers, waits):  # type: ignore[no-untyped-def]
    server = serve(servers, lambda request: ok(rows_for(request)))
    settings = server.settings()
    with pytest.raises(ValueError, match="unknown dataset"):
        summary_client.load_as_arrow("orders", "2025-01-01", "2025-01-31", **settings)
    with pytest.raises(ValueError, match="by created, updated"):
        summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", by="invoiceDate", **settings)
    with pytest.raises(ValueError, match="the date range is start/end"):
        summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", filters={"createdFrom": "2025-01-01"}, **settings)
    with pytest.raises(ValueError, match="has the tables invoices, invoice_tables"):
        summary_client.load_as_arrow("invoices", "2025-01-01", "2025-01-31", table="lines", **settings)
    with pytest.raises(ValueError, match="after end"):
        summary_client.load_as_arrow("contracts", "2025-02-01", "2025-01-31", **settings)
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        summary_client.load_as_arrow("contracts", "2025-02-30", "2025-03-31", **settings)
    with pytest.raises(TypeError, match="unknown setting"):
        summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", base_uri="x", **settings)
    assert server.requests == []


def test_settings_name_what_is_missing_and_refuse_plain_http_elsewhere(monkeypatch):  # type: ignore[no-untyped-def]
    with pytest.raises(SettingsError) as raised:
        summary_client.read_settings()
    for name in ("SUMMARY_BASE_URL", "SUMMARY_SCOPE", "SUMMARY_SUBSCRIPTION_KEY", "SUMMARY_API_KEY", "SUMMARY_CLIENT_SECRET", "SUMMARY_CLIENT_ID", "SUMMARY_TENANT_ID"):
        assert name in str(raised.value)
    env = {"SUMMARY_BASE_URL": "http://gateway.example.com/summary", "SUMMARY_SCOPE": "s", "SUMMARY_SUBSCRIPTION_KEY": "k", "SUMMARY_API_KEY": "a",
           "SUMMARY_CLIENT_ID": "c", "SUMMARY_CLIENT_SECRET": "never-shown", "SUMMARY_TENANT_ID": "t"}
    with pytest.raises(SettingsError, match="must be an https URL"):
        summary_client.read_settings(env)
    settings = summary_client.read_settings({**env, "SUMMARY_BASE_URL": "https://gateway.example.com/summary/"})
    assert settings.base_url == "https://gateway.example.com/summary"
    assert "never-shown" not in repr(settings) and "k'" not in repr(settings)
    assert summary_client.read_settings(env, base_url="http://127.0.0.1:7071/api").base_url == "http://127.0.0.1:7071/api"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):  # type: ignore[no-untyped-def]
    """A CA, a certificate it issued for 127.0.0.1 and one for another name (openssl)."""
    import subprocess

    folder = tmp_path_factory.mktemp("tls")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=folder)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=summary test CA")
    for name, san in (("loopback", "IP:127.0.0.1"), ("elsewhere", "DNS:wrong.example")):
        (folder / f"{name}.ext").write_text(f"subjectAltName={san}\n")
        run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}")
        run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", f"{name}.pem", "-days", "1", "-extfile", f"{name}.ext")
    return folder


def test_tls_trusts_summary_ca_file_or_ssl_cert_file_and_fails_at_once_otherwise(servers, waits, certificates, monkeypatch):  # type: ignore[no-untyped-def]
    loopback = FakeServer(lambda request: ok(rows_for(request))).start(tls=(str(certificates / "loopback.pem"), str(certificates / "loopback.key")))
    servers.append(loopback)
    token = {"token_provider": lambda scope: "t", "token_url": None, "client_secret": None}
    ca = str(certificates / "ca.pem")
    assert summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-02", **loopback.settings(ca_file=ca, **token)).num_rows == 2

    monkeypatch.setenv("SSL_CERT_FILE", ca)
    assert summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-02", **loopback.settings(**token)).num_rows == 2
    monkeypatch.delenv("SSL_CERT_FILE")

    calls = len(loopback.calls())
    with pytest.raises(UnsafeAnswerError, match="SUMMARY_CA_FILE"):
        summary_client.load_as_arrow("contracts", "2025-01-01", "2025-12-31", **loopback.settings(**token))
    assert len(loopback.calls()) == calls  # refused at the handshake, never retried

    elsewhere = FakeServer(lambda request: ok(rows_for(request))).start(tls=(str(certificates / "elsewhere.pem"), str(certificates / "elsewhere.key")))
    servers.append(elsewhere)
    with pytest.raises(UnsafeAnswerError, match="not for this host"):
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-02", **elsewhere.settings(ca_file=ca, **token))
    assert elsewhere.calls() == [] and waits == []


# Regressions of a review's probes: each failed on the first version of the loader.

def test_a_refusal_with_a_huge_body_is_still_the_refusal_it_is(servers, waits):  # type: ignore[no-untyped-def]
    huge = {"Content-Length": str(100 * 1024 * 1024), "X-Request-ID": "rid-huge"}
    refused = serve(servers, lambda request: (401, huge, b"{}"))
    with pytest.raises(RefusedError) as raised:
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-31", **refused.settings())
    assert (raised.value.status, len(refused.calls())) == (401, 1)
    busy = serve(servers, lambda request: (503, huge, b"{}"))
    with pytest.raises(UnavailableError):
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-31", **busy.settings())
    assert len(busy.calls()) == 6  # retried, never halved


def test_never_prints_a_line_break_or_escape_from_the_server(servers, waits):  # type: ignore[no-untyped-def]
    def answer(request):  # type: ignore[no-untyped-def]
        status, headers, body = problem(400, "INVALID_FILTER", "bad\nFORGED: line")
        return status, {**headers, "X-Request-ID": "rid\x1b[2J\x1b]0;title\x07"}, body

    server = serve(servers, answer)
    with pytest.raises(RefusedError) as raised:
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-31", **server.settings())
    assert "\n" not in str(raised.value) and "\x1b" not in str(raised.value) and "\x07" not in str(raised.value)


def test_odd_numbers_in_headers_are_unreadable_not_fatal(servers, waits):  # type: ignore[no-untyped-def]
    script = [(503, {"Retry-After": "\u00b2"}, b""), (503, {"Retry-After": "Sun Nov  6 08:49:37 1994"}, b"")]
    server = serve(servers, lambda request: script.pop(0) if script else ok(rows_for(request)))
    assert summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-02", **server.settings()).num_rows == 2
    assert waits[0] >= 1.0 and waits[1] == 0.0  # unreadable: the usual wait; a past date (read as UTC): none
    assert _transport.retry_after_seconds("Sun Nov  6 08:49:37 1994", now=784111777.0) == 0.0
    assert _transport.retry_after_seconds("Sun Nov  6 08:49:37 1994", now=784111777.0 - 5) == 5.0


def test_token_requests_are_retried_bounded_and_never_redirected(servers, waits):  # type: ignore[no-untyped-def]
    server = serve(servers, lambda request: ok(rows_for(request)))
    answers = [(503, {"Retry-After": "1"}, b""), server.token_reply]
    server.token_answer = lambda: answers.pop(0)
    assert summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-01", **server.settings()).num_rows == 1
    assert answers == [] and 1.0 <= waits[0] <= 1.25

    elsewhere = serve(servers, lambda request: ok(rows_for(request)))
    redirecting = serve(servers, lambda request: ok(rows_for(request)))
    redirecting.token_reply = (307, {"Location": f"{elsewhere.url}/token"}, b"")
    with pytest.raises(TokenError, match="redirect"):
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-01", **redirecting.settings())
    assert elsewhere.requests == []

    bloated = serve(servers, lambda request: ok(rows_for(request)))
    bloated.token_reply = (200, {"Content-Length": str(500 * 1024 * 1024)}, b"{}")
    with pytest.raises(TokenError):
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-01", **bloated.settings())
    assert bloated.calls() == []


def test_keys_that_would_break_a_header_are_refused_without_their_value(servers, waits):  # type: ignore[no-untyped-def]
    server = serve(servers, lambda request: ok(rows_for(request)))
    with pytest.raises(SettingsError) as raised:
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-01", **server.settings(api_key="SECRET-API-KEY\nsecond-line"))
    assert "SUMMARY_API_KEY" in str(raised.value) and "SECRET" not in str(raised.value)
    assert server.requests == []


def test_tls_failures_other_than_the_certificate_are_retried():  # type: ignore[no-untyped-def]
    import ssl

    import requests

    verify = requests.exceptions.SSLError(ssl.SSLCertVerificationError(1, "certificate verify failed"))
    assert _transport._certificate_failure(verify)
    record = requests.exceptions.SSLError(ssl.SSLError(1, "[SSL: DECRYPTION_FAILED_OR_BAD_RECORD_MAC] bad record mac"))
    assert not _transport._certificate_failure(record)


def test_windows_reach_the_last_representable_day():  # type: ignore[no-untyped-def]
    from summary_client._windows import Window, month_windows

    assert month_windows(dt.date(9999, 11, 15), dt.date(9999, 12, 31)) == [Window(dt.date(9999, 11, 15), dt.date(9999, 11, 30)), Window(dt.date(9999, 12, 1), dt.date(9999, 12, 31))]


class Versions:
    """A service whose results have ETags: each window's result is at a version; a request whose
    If-None-Match names the current one is answered 412 RESULT_UNCHANGED."""

    def __init__(self) -> None:
        self.version: dict = {}

    def answer(self, request):  # type: ignore[no-untyped-def]
        window = (request.body["createdFrom"], request.body["createdTo"])
        etag = f'W/"{window[0]}-{self.version.get(window[0][:7], 0)}"'
        if request.headers.get("if-none-match") == etag:
            return 412, {"Content-Type": "application/problem+json", "ETag": etag, "X-Request-ID": "rid-412"}, json.dumps({"status": 412, "code": "RESULT_UNCHANGED", "detail": "unchanged"}).encode()
        status, headers, data = ok(rows_for(request))
        return status, {**headers, "ETag": etag, "X-Summary-As-Of": "2026-11-28T01:00:00Z"}, data


def test_refuses_an_encoded_export_it_did_not_ask_for_before_inflating_it(servers, waits):  # type: ignore[no-untyped-def]
    # A few KB of gzip that inflate to 64 MiB: urllib3 would inflate it whatever the request asked.
    bomb = gzip.compress(bytes(64 * 1024 * 1024))

    def answer(request):  # type: ignore[no-untyped-def]
        return 200, {"Content-Type": "application/vnd.apache.parquet", "Content-Encoding": "gzip", "X-Request-ID": "rid-gz"}, bomb

    server = serve(servers, answer)
    started = time.monotonic()
    with pytest.raises(summary_client.UnsafeAnswerError, match="answered in the gzip coding, which this client did not ask for"):
        summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", **server.settings())
    assert time.monotonic() - started < 5
    assert [call.headers.get("accept-encoding") for call in server.calls()] == ["identity"]


def test_a_cache_folder_makes_a_second_call_with_nothing_changed_export_nothing(servers, waits, tmp_path):  # type: ignore[no-untyped-def]
    versions = Versions()
    server = serve(servers, versions.answer)
    first = summary_client.load_as_arrow("contracts", "2025-01-01", "2025-03-31", cache=tmp_path, **server.settings())
    assert all("if-none-match" not in call.headers for call in server.calls())
    before = len(server.calls())
    second = summary_client.load_as_arrow("contracts", "2025-01-01", "2025-03-31", cache=tmp_path, **server.settings())
    checks = server.calls()[before:]
    assert [call.headers.get("if-none-match") for call in checks] == ['W/"2025-01-01-0"', 'W/"2025-02-01-0"', 'W/"2025-03-01-0"']
    assert second.equals(first)
    # February changes: only February is exported again, and the table has its new rows.
    versions.version["2025-02"] = 1
    before = len(server.calls())
    third = summary_client.load_as_arrow("contracts", "2025-01-01", "2025-03-31", cache=tmp_path, **server.settings())
    assert third.num_rows == first.num_rows
    fourth = summary_client.load_as_arrow("contracts", "2025-01-01", "2025-03-31", cache=tmp_path, **server.settings())
    assert fourth.equals(third)
    assert sorted(os.listdir(tmp_path)) == sorted(["_cache.json", *[name for name in os.listdir(tmp_path) if name.endswith(".export")]])
    assert len([name for name in os.listdir(tmp_path) if name.endswith(".export")]) == 3
    assert len(server.calls()) - before == 6


def test_a_cache_returns_a_window_still_being_written_as_pulled_and_asks_for_it_again_next_call(servers, waits, tmp_path):  # type: ignore[no-untyped-def]
    # A busy tenant: March is written to all the time, so the service gives it an ETag of its own on
    # every answer (none ever matches). Each call returns March as exported, raises nothing, and
    # the next call asks for it again; the quiet months come from the cache.
    versions = Versions()
    moving = {"count": 0}

    def answer(request):  # type: ignore[no-untyped-def]
        if request.body["createdFrom"].startswith("2025-03"):
            moving["count"] += 1
            versions.version["2025-03"] = moving["count"]
        return versions.answer(request)

    server = serve(servers, answer)
    first = summary_client.load_as_arrow("contracts", "2025-01-01", "2025-03-31", cache=tmp_path, **server.settings())
    before = len(server.calls())
    second = summary_client.load_as_arrow("contracts", "2025-01-01", "2025-03-31", cache=tmp_path, **server.settings())
    calls = server.calls()[before:]
    assert [call.headers.get("if-none-match") for call in calls] == ['W/"2025-01-01-0"', 'W/"2025-02-01-0"', 'W/"2025-03-01-1"']
    assert second.num_rows == first.num_rows
    assert moving["count"] == 2
    index = json.loads((tmp_path / "_cache.json").read_text())
    assert sorted(entry["etag"] for entry in index["windows"].values()) == ['W/"2025-01-01-0"', 'W/"2025-02-01-0"', 'W/"2025-03-01-2"']
    assert {entry.get("asOf") for entry in index["windows"].values()} == {"2026-11-28T01:00:00Z"}


def test_a_cache_copy_that_was_tampered_with_is_fetched_again(servers, waits, tmp_path):  # type: ignore[no-untyped-def]
    versions = Versions()
    server = serve(servers, versions.answer)
    summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", cache=tmp_path, **server.settings())
    copy = next(name for name in os.listdir(tmp_path) if name.endswith(".export"))
    (tmp_path / copy).write_bytes(b"PAR1 not what the service sent PAR1")
    before = len(server.calls())
    table = summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", cache=tmp_path, **server.settings())
    assert table.num_rows == 31
    assert "if-none-match" not in server.calls()[before].headers


def test_a_cache_remembers_a_halved_window_and_asks_for_its_parts(servers, waits, tmp_path):  # type: ignore[no-untyped-def]
    versions = Versions()

    def answer(request):  # type: ignore[no-untyped-def]
        if request.body["createdFrom"] == "2025-01-01" and request.body["createdTo"] == "2025-01-31":
            return problem(413, "RESULT_TOO_LARGE")
        return versions.answer(request)

    server = serve(servers, answer)
    first = summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", cache=tmp_path, **server.settings())
    before = len(server.calls())
    second = summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", cache=tmp_path, **server.settings())
    assert [(call.body["createdFrom"], call.body["createdTo"]) for call in server.calls()[before:]] == [("2025-01-01", "2025-01-16"), ("2025-01-17", "2025-01-31")]
    assert second.equals(first)


def test_a_cache_keeps_one_copy_of_a_month_read_to_a_later_day_each_time(servers, waits, tmp_path):  # type: ignore[no-untyped-def]
    server = serve(servers, Versions().answer)
    for end in ("2025-01-10", "2025-01-11", "2025-01-12"):
        summary_client.load_as_arrow("contracts", "2025-01-01", end, cache=tmp_path, **server.settings())
    assert len([name for name in os.listdir(tmp_path) if name.endswith(".export")]) == 1


def delta_file(rows: List[dict]) -> bytes:
    """A contracts delta as the service answers it as Parquet: the view's columns, each nullable, then ``_removed``."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("contractId", pa.string()), ("title", pa.string()), ("_removed", pa.string())])
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist([{"title": None, "_removed": None, **row} for row in rows], schema=schema), sink)
    return sink.getvalue()


def test_a_cache_is_kept_by_the_delta_removals_included_and_starts_again_when_its_token_expires(servers, waits, tmp_path):  # type: ignore[no-untyped-def]
    answers = {
        None: [{"contractId": "CON-A", "title": "a"}, {"contractId": "CON-B", "title": "b"}, {"contractId": "CON-C", "title": "c"}],
        "d1.one": [{"contractId": "CON-B", "title": "b, renamed"}, {"contractId": "CON-D", "title": "d"}, {"contractId": "CON-A", "_removed": "deleted"}],
    }
    tokens = {None: "d1.one", "d1.one": "d1.two"}

    def delta(request):  # type: ignore[no-untyped-def]
        token = request.body.get("deltaToken")
        if token == "d1.two":
            return problem(410, "DELTA_TOKEN_EXPIRED", "start again without a token")
        status, headers, data = ok(delta_file(answers[token]))
        return status, {**headers, "X-Summary-Delta-Token": tokens[token], "X-Summary-Schema": "s" * 32}, data

    server = serve(servers, lambda request: ok(rows_for(request)))
    server.deltas = delta
    load = lambda: summary_client.load_as_arrow("contracts", "2025-01-01", "2025-03-31", cache=tmp_path, **server.settings())  # noqa: E731
    rows = lambda table: sorted((row["contractId"], row["title"]) for row in table.to_pylist())  # noqa: E731
    assert rows(load()) == [("CON-A", "a"), ("CON-B", "b"), ("CON-C", "c")]
    # The whole range, then what changed since its token: one request each, no summary call.
    assert rows(load()) == [("CON-B", "b, renamed"), ("CON-C", "c"), ("CON-D", "d")]
    assert server.calls() == []
    deltas = [request.body for request in server.requests if request.path.endswith("/delta")]
    assert deltas == [
        {"createdFrom": "2025-01-01", "createdTo": "2025-03-31"},
        {"createdFrom": "2025-01-01", "createdTo": "2025-03-31", "deltaToken": "d1.one"},
    ]
    assert all(request.headers["accept"] == "application/vnd.apache.parquet" for request in server.requests if request.path.endswith("/delta"))
    # The token expired: the whole range again, in the same call.
    assert rows(load()) == [("CON-A", "a"), ("CON-B", "b"), ("CON-C", "c")]
    assert [request.body.get("deltaToken") for request in server.requests if request.path.endswith("/delta")][2:] == ["d1.two", None]


def test_a_delta_cache_goes_on_when_the_end_of_its_range_moves_on(servers, waits, tmp_path):  # type: ignore[no-untyped-def]
    answers = {
        None: [{"contractId": "CON-A", "title": "a"}, {"contractId": "CON-B", "title": "b"}],
        # The wider range's delta: what changed, and every record of the days added.
        "d1.one": [{"contractId": "CON-B", "_removed": "deleted"}, {"contractId": "CON-LATER", "title": "of the days added"}],
    }

    def delta(request):  # type: ignore[no-untyped-def]
        token = request.body.get("deltaToken")
        status, headers, data = ok(delta_file(answers[token]))
        return status, {**headers, "X-Summary-Delta-Token": "d1.one" if token is None else "d1.two", "X-Summary-Schema": "s" * 32}, data

    server = serve(servers, lambda request: ok(rows_for(request)))
    server.deltas = delta
    load = lambda end: summary_client.load_as_arrow("contracts", "2025-01-01", end, cache=tmp_path, **server.settings())  # noqa: E731
    rows = lambda table: sorted((row["contractId"], row["title"]) for row in table.to_pylist())  # noqa: E731
    assert rows(load("2025-03-10")) == [("CON-A", "a"), ("CON-B", "b")]
    assert rows(load("2025-03-11")) == [("CON-A", "a"), ("CON-LATER", "of the days added")]
    bodies = [request.body for request in server.requests if request.path.endswith("/delta")]
    assert bodies == [
        {"createdFrom": "2025-01-01", "createdTo": "2025-03-10"},
        {"createdFrom": "2025-01-01", "createdTo": "2025-03-11", "deltaToken": "d1.one"},
    ]
    # One copy is kept: the wider range's.
    states = [json.loads(path.read_text()) for path in tmp_path.iterdir() if path.name.endswith(".delta.json")]
    assert [(state["token"], state["range"]) for state in states] == [("d1.two", ["2025-01-01", "2025-03-11"])]
    # A shorter range has no copy to go on from: its whole view is asked.
    load("2025-03-05")
    assert [request.body.get("deltaToken") for request in server.requests if request.path.endswith("/delta")][2:] == [None]
    assert server.calls() == []


def test_a_delta_cache_that_was_tampered_with_or_outgrows_one_answer_asks_again_then_goes_by_windows(servers, waits, tmp_path):  # type: ignore[no-untyped-def]
    state = {"too_large": False}

    def delta(request):  # type: ignore[no-untyped-def]
        if state["too_large"]:
            return problem(413, "RESULT_TOO_LARGE", "ask for JSON pages")
        status, headers, data = ok(delta_file([{"contractId": "CON-A", "title": "a"}]))
        return status, {**headers, "X-Summary-Delta-Token": "d1.one", "X-Summary-Schema": "s" * 32}, data

    server = serve(servers, lambda request: ok(rows_for(request)))
    server.deltas = delta
    load = lambda: summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", cache=tmp_path, **server.settings())  # noqa: E731
    assert load().num_rows == 1
    # A copy changed by hand is no copy: the whole range is asked again.
    copy = next(path for path in tmp_path.iterdir() if path.name.endswith(".0.delta"))
    copy.write_bytes(copy.read_bytes()[:-8] + b"PAR1PAR1")
    assert load().num_rows == 1
    deltas = lambda: [request.body.get("deltaToken") for request in server.requests if request.path.endswith("/delta")]  # noqa: E731
    assert deltas() == [None, None]
    # Too large since its token, and as a whole: loaded month by month, and not asked again today.
    state["too_large"] = True
    assert load().num_rows == 31
    assert deltas() == [None, None, "d1.one", None]
    assert load().num_rows == 31
    assert deltas() == [None, None, "d1.one", None]


def test_via_delta_on_a_service_without_deltas_is_refused(servers, waits, tmp_path):  # type: ignore[no-untyped-def]
    server = serve(servers, lambda request: ok(rows_for(request)))
    with pytest.raises(RefusedError, match="offers no delta"):
        summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", cache=tmp_path, via="delta", **server.settings())


def test_a_cache_without_deltas_on_the_service_is_kept_by_etags(servers, waits, tmp_path):  # type: ignore[no-untyped-def]
    server = serve(servers, lambda request: ok(rows_for(request)))
    summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", cache=tmp_path, **server.settings())
    assert [request.path for request in server.requests if request.path.endswith("/delta")] == ["/v1/contracts/delta"]
    assert len(server.calls()) == 1
    with pytest.raises(ValueError, match="via='delta' keeps a cache"):
        summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", via="delta", **server.settings())


def test_a_cache_index_that_names_a_file_outside_its_folder_is_not_followed(servers, waits, tmp_path):  # type: ignore[no-untyped-def]
    server = serve(servers, Versions().answer)
    summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", cache=tmp_path, **server.settings())
    outside = tmp_path.parent / "outside.export"
    outside.write_bytes(b"keep me")
    index = json.loads((tmp_path / "_cache.json").read_text())
    for entry in index["windows"].values():
        entry["file"] = "../outside.export"
    (tmp_path / "_cache.json").write_text(json.dumps(index))
    before = len(server.calls())
    table = summary_client.load_as_arrow("contracts", "2025-01-01", "2025-01-31", cache=tmp_path, **server.settings())
    assert table.num_rows == 31
    assert "if-none-match" not in server.calls()[before].headers
    assert outside.read_bytes() == b"keep me"


def zip_of_one(name: str, declared: int, data: bytes, crc: int, method: int = 8) -> bytes:
    """A zip of one entry (deflated unless ``method`` says otherwise) that declares ``declared`` bytes, whatever ``data`` holds."""
    import struct

    encoded = name.encode()
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, len(data), declared, len(encoded), 0) + encoded
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0, crc, len(data), declared, len(encoded), 0, 0, 0, 0, 0, 0) + encoded
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), len(local) + len(data), 0)
    return local + data + central + end


def test_a_zip_bomb_is_refused_before_anything_is_inflated(servers, waits):  # type: ignore[no-untyped-def]
    import resource
    import zlib

    # The red team's High: an entry declaring 10,000,000 bytes that inflates to 512 MiB of zeros.
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
    zero = bytes(1024 * 1024)
    deflated = b"".join(squeeze.compress(zero) for _ in range(512)) + squeeze.flush()
    assert len(deflated) < 1024 * 1024
    bomb = zip_of_one("invoices.parquet", 10_000_000, deflated, 0)
    server = serve(servers, lambda request: ok(bomb, "application/zip"))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(UnsafeAnswerError, match="is compressed .* inflates none"):
        summary_client.load_as_arrow("invoices", "2025-03-01", "2025-03-01", **server.settings())
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mib < 64, f"the bomb took {grown_mib:.0f} MiB"

    # Deflated entries are refused however honest: the service stores its entries.
    honest = zipped({"invoices.parquet": parquet([{"id": "i1", "day": "d"}]), "invoice_tables.parquet": parquet([])}, zipfile.ZIP_DEFLATED)
    deflating = serve(servers, lambda request: ok(honest, "application/zip"))
    with pytest.raises(UnsafeAnswerError, match="is compressed"):
        summary_client.load_as_arrow("invoices", "2025-03-01", "2025-03-01", **deflating.settings())


def test_a_parquet_file_that_decodes_to_far_more_than_it_weighs_is_refused(servers, waits):  # type: ignore[no-untyped-def]
    import io as _io

    import pyarrow as pa
    import pyarrow.parquet as pq

    def refused(table, match: str, **options) -> bytes:  # type: ignore[no-untyped-def]
        """The Parquet file of ``table``, served as an export, which the loader refuses with ``match``."""
        sink = _io.BytesIO()
        pq.write_table(table, sink, **options)
        data = sink.getvalue()
        server = serve(servers, lambda request: ok(data))
        with pytest.raises(UnsafeAnswerError, match=match):
            summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-01", **server.settings())
        return data

    # One 1 MiB dictionary value and 400 run-length indices: a few kB sent, 400 MiB decoded.
    value = pa.DictionaryArray.from_arrays(pa.array([0] * 400, pa.int32()), pa.array(["x" * (1024 * 1024)]))
    dictionary_bomb = refused(pa.table({"id": value, "day": pa.array(["d"] * 400)}), "refused before it is decoded: its pages decode to more than", compression="zstd", store_schema=False)
    assert len(dictionary_bomb) < 64 * 1024

    # Nine million zeros: their pages say they decode to 72 MB, from a file of kilobytes.
    refused(pa.table({"id": pa.array(["r"] * 9_000_000, pa.dictionary(pa.int8(), pa.string())), "n": pa.array(bytes(9_000_000), pa.uint8()).cast(pa.int64())}),
            "its pages decode to more than", compression="zstd")

    # A page that says it holds 8,000 values where the footer says 1,000: the footer is not trusted.
    sink = _io.BytesIO()
    pq.write_table(pa.table({"n": pa.array([0] * 1000, pa.int64())}), sink, compression="none", use_dictionary=False, data_page_version="1.0", write_statistics=False)
    honest = sink.getvalue()
    at = honest.index(b"\x15\xd0\x0f")  # the data page header's num_values, 1000 (zigzag varint)
    lying = honest[:at] + b"\x15\x80\x7d" + honest[at + 3:]
    served = serve(servers, lambda request: ok(lying))
    with pytest.raises(UnsafeAnswerError, match="pages hold 8000 values where its footer says 1000"):
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-01", **served.settings())

    # Strings inside a list (or a struct) would be decoded past the dictionary check: refused by type.
    big = ["y" * 10_000] * 10
    nested = refused(pa.table({"id": pa.array([big] * 2000, pa.list_(pa.string())), "day": pa.array(["d"] * 2000)}), "of type list<.*which the service never sends|its pages decode to more than", compression="zstd")
    assert len(nested) < 64 * 1024

    # A column named twice is no export of the service's either.
    refused(pa.Table.from_arrays([pa.array(["a"]), pa.array(["b"])], names=["id", "id"]), "names a column twice|not a readable Parquet file")

    # What the service sends reads as it did: a dictionary column of a thousand repeated names.
    sink = _io.BytesIO()
    pq.write_table(pa.table({"id": [f"r{n}" for n in range(1000)], "day": ["2025-03-01"] * 1000}), sink)
    plain = serve(servers, lambda request: ok(sink.getvalue()))
    table = summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-01", **plain.settings())
    assert table.schema.field("day").type == pa.string() and table.num_rows == 1000


#: The real sleep, for the fake server's own waits (the waits fixture records the loader's instead).
_sleep = __import__("time").sleep


def trickle(headers: dict, first: bytes, every: float):  # type: ignore[no-untyped-def]
    """A reply that sends its headers and ``first``, then one byte every ``every`` seconds (for at most a minute)."""

    def write(handler) -> None:  # type: ignore[no-untyped-def]
        handler.send_response(200)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(first)
        handler.wfile.flush()
        for _ in range(int(60 / every)):
            _sleep(every)
            handler.wfile.write(b"\0")
            handler.wfile.flush()

    return write


def silent(handler) -> None:  # type: ignore[no-untyped-def]
    """Never a byte back, until the client hangs up (or a minute passes)."""
    handler.connection.settimeout(60)
    handler.rfile.read(1)


@pytest.mark.parametrize("reply", [
    trickle({"Content-Type": "application/vnd.apache.parquet"}, b"PAR1", 0.3),  # chunked, never ending
    trickle({"Content-Type": "application/vnd.apache.parquet", "Content-Length": "100000"}, b"PAR1", 5.0),  # four bytes of 100000, then almost nothing
    silent,  # headers never sent
], ids=["trickle", "short-body", "silent"])
def test_a_server_that_trickles_or_never_answers_ends_at_the_deadline(servers, waits, reply):  # type: ignore[no-untyped-def]
    import time as _time

    server = serve(servers, lambda request: reply)
    started = _time.monotonic()
    with pytest.raises(UnavailableError, match="within 1.5 s .SUMMARY_DEADLINE_SECONDS"):
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-01", **server.settings(deadline_seconds="1.5"))
    assert _time.monotonic() - started < 4
    assert len(server.calls()) == 1


def test_a_deadline_that_is_not_a_number_of_seconds_is_refused_by_name():  # type: ignore[no-untyped-def]
    for value in ("0", "-1", "soon", "nan", "1e9"):
        with pytest.raises(SettingsError, match="SUMMARY_DEADLINE_SECONDS"):
            summary_client.read_settings(base_url="https://gw.example/summary", scope="s", subscription_key="k", api_key="k", token_provider=lambda scope: "t", deadline_seconds=value)


def test_a_service_failure_is_reported_at_once_not_retried_as_unavailable(servers, waits):  # type: ignore[no-untyped-def]
    server = serve(servers, lambda request: problem(500, "INTERNAL", "An unexpected error occurred."))
    with pytest.raises(summary_client.ServiceFailedError, match="500 INTERNAL.*request id rid-1.*report"):
        summary_client.load_as_arrow("contracts", "2025-01-01", "2025-03-31", **server.settings())
    assert len(server.calls()) == 1
    assert waits == []


def test_a_certificate_refused_for_its_dates_names_the_clock_not_the_ca_file():  # type: ignore[no-untyped-def]
    import ssl as _ssl

    from summary_client._transport import with_retries

    def refused(message: str):  # type: ignore[no-untyped-def]
        def send(deadline):  # type: ignore[no-untyped-def]
            error = _ssl.SSLCertVerificationError(1, f"[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: {message} (_ssl.c:1000)")
            raise __import__("requests").exceptions.SSLError(error)
        return send

    with pytest.raises(UnsafeAnswerError, match=r"is not valid yet by this machine's clock \(it reads 20\d\d-.*check the clock") as raised:
        with_retries(refused("certificate is not yet valid"), "the service")
    assert "SUMMARY_CA_FILE" not in str(raised.value)
    with pytest.raises(UnsafeAnswerError, match="is expired by this machine's clock"):
        with_retries(refused("certificate has expired"), "the service")
    with pytest.raises(UnsafeAnswerError, match="set SUMMARY_CA_FILE"):
        with_retries(refused("unable to get local issuer certificate"), "the service")


def test_a_missing_frame_library_says_what_to_install_by_its_own_name(monkeypatch):  # type: ignore[no-untyped-def]
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None if name == "polars" else real(name, *args))
    with pytest.raises(ImportError, match=r"needs polars, which is not installed here: pip install polars \("):
        summary_client.load_as_polars("contracts", "2025-01-01", "2025-01-31")


def test_refuses_a_zip_listing_thousands_of_junk_entries_before_reading_them(servers, waits):  # type: ignore[no-untyped-def]
    table = parquet([{"contractId": "C-1"}])
    entries = {"invoices.parquet": table, **{f"junk-{index}": b"" for index in range(5000)}, "invoice_tables.parquet": table}
    server = serve(servers, lambda request: ok(zipped(entries), "application/zip"))
    with pytest.raises(UnsafeAnswerError, match="its central directory lists 5002 entries"):
        summary_client.load_as_arrow("invoices", "2025-01-01", "2025-01-31", **server.settings())


def test_parses_no_problem_document_of_empty_objects():  # type: ignore[no-untyped-def]
    assert _transport.json_shape_ok('{"status": 400, "code": "INVALID_FILTER", "detail": "' + "{[" * 5000 + '"}')
    assert not _transport.json_shape_ok("[" + "{}," * 100_000 + "{}]")
    answer = _transport.Answer(400, {}, ("[" + "{}," * 100_000 + "{}]").encode())
    assert answer.problem() == {} and answer.code == "no problem document"


def test_checks_json_shape_in_linear_time_whatever_the_quotes():  # type: ignore[no-untyped-def]
    started = time.monotonic()
    assert _transport.json_shape_ok('"' + '\\"' * 200_000)
    assert time.monotonic() - started < 2


def test_refuses_a_zip_whose_directory_is_larger_than_its_count_says(servers, waits):  # type: ignore[no-untyped-def]
    table = parquet([{"contractId": "C-1"}])
    entries = {"invoices.parquet": table, **{f"junk-{index}": b"" for index in range(3000)}, "invoice_tables.parquet": table}
    body = bytearray(zipped(entries))
    end = body.rindex(b"PK\x05\x06")
    body[end + 8:end + 12] = (2).to_bytes(2, "little") * 2  # the counts say two; the directory holds 3002
    server = serve(servers, lambda request: ok(bytes(body), "application/zip"))
    with pytest.raises(UnsafeAnswerError, match="its central directory takes \\d+ bytes"):
        summary_client.load_as_arrow("invoices", "2025-01-01", "2025-01-31", **server.settings())


def test_takes_a_dictionary_column_whose_one_long_value_is_rare_and_lz4_files(servers, waits):  # type: ignore[no-untyped-def]
    import io as _io

    import pyarrow as pa
    import pyarrow.parquet as pq

    titles = [("x" * 40_000) if index == 7 else f"title {index % 50}" for index in range(50_000)]
    for compression in ("snappy", "lz4"):
        sink = _io.BytesIO()
        pq.write_table(pa.table({"contractId": [f"C-{index}" for index in range(50_000)], "title": titles}), sink, compression=compression, row_group_size=50_000)
        data = sink.getvalue()
        server = serve(servers, lambda request, data=data: ok(data))
        table = summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-01", **server.settings())
        assert (compression, table.num_rows) == (compression, 50_000)


# Through an export job (via="job"): the fake service answers the kick-off and the manifest, a
# storage of the test's own (https, the test CA) serves the files the manifest lists.

JOB = "b" * 32
JOB_RANGE = ("2025-01-01", "2025-02-28")
JOB_MONTHS = (("2025-01", "2025-01-01", "2025-01-31"), ("2025-02", "2025-02-01", "2025-02-28"))


def month_file(label: str) -> bytes:
    return parquet([{"id": f"c-{label}-{index}", "day": f"{label}-0{index + 1}"} for index in range(3)])


def job_service(servers, certificates, storage_answer=None, file_of=None, unchanged=None):  # type: ignore[no-untyped-def]
    """The fake service with export jobs, and its storage; ``file_of(label, entry, asked)`` changes a file's entry, ``unchanged`` (a set, changed as a test goes) the windows the job says are."""
    unchanged = set() if unchanged is None else unchanged
    import hashlib

    def serve_file(request):  # type: ignore[no-untyped-def]
        label = request.path.split("/")[2]
        return 200, {"Content-Type": "application/octet-stream"}, month_file(label)

    storage = FakeServer(storage_answer or serve_file).start(tls=(str(certificates / "loopback.pem"), str(certificates / "loopback.key")))
    servers.append(storage)
    asked = [0]

    def jobs(request):  # type: ignore[no-untyped-def]
        if request.method == "POST":
            return 202, {"Content-Type": "application/json", "Location": f"../exports/{JOB}", "Retry-After": "0"}, b"{}"
        asked[0] += 1
        windows = []
        for label, start, end in JOB_MONTHS:
            data = month_file(label)
            entry = {"table": "contracts", "url": f"{storage.url}/files/{label}/contracts-000.parquet?sig={asked[0]}", "records": 3, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            if file_of is not None:
                entry = file_of(label, entry, asked[0])
            status = "unchanged" if label in unchanged else "exported"
            windows.append({"label": label, "from": start, "to": end, "status": status, "etag": f'W/"{label}"', "records": 0 if status == "unchanged" else 3, "files": [] if status == "unchanged" else [entry]})
        manifest = {"id": JOB, "resource": "contracts", "status": "completed", "request": {}, "transactionTime": "2026-11-28T01:00:00Z", "expires": "2026-11-29T01:00:00Z",
                    "schema": "fake", "progress": {"windows": 2, "done": 2}, "windows": windows}
        return 200, {"Content-Type": "application/json"}, json.dumps(manifest).encode()

    service = FakeServer(lambda request: problem(500, "INTERNAL", "the summary operation was not to be asked"), jobs=jobs).start()
    servers.append(service)
    return service, storage


def job_settings(service, certificates, **overrides):  # type: ignore[no-untyped-def]
    return service.settings(ca_file=str(certificates / "ca.pem"), **overrides)


def test_a_range_through_an_export_job_downloads_each_file_once_without_the_keys(servers, waits, certificates, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    # A ~/.netrc login for every host: requests would send it along; storage gets none.
    (tmp_path / "netrc").write_text("default login someone password not-for-storage\n")
    monkeypatch.setenv("NETRC", str(tmp_path / "netrc"))
    service, storage = job_service(servers, certificates)
    table = summary_client.load_as_arrow("contracts", *JOB_RANGE, **job_settings(service, certificates))
    assert table.column("id").to_pylist() == [f"c-2025-0{month}-{index}" for month in (1, 2) for index in range(3)]
    kick_off, status = service.job_calls()
    assert (kick_off.method, kick_off.path, kick_off.body) == ("POST", "/v1/contracts/exports", {"createdFrom": "2025-01-01", "createdTo": "2025-02-28"})
    assert (status.method, status.path) == ("GET", f"/v1/exports/{JOB}")
    assert kick_off.headers["prefer"] == status.headers["prefer"] == "wait=20"
    assert status.headers["x-api-key"] == "api-key-fake"
    assert sorted(request.path for request in storage.requests) == ["/files/2025-01/contracts-000.parquet?sig=1", "/files/2025-02/contracts-000.parquet?sig=1"]
    for request in storage.requests:
        assert not {"authorization", "x-api-key", "ocp-apim-subscription-key"} & set(request.headers)
    assert service.calls() == []


def test_a_cache_is_revalidated_through_the_jobs_if_none_match(servers, waits, certificates, tmp_path):  # type: ignore[no-untyped-def]
    unchanged: set = set()
    service, storage = job_service(servers, certificates, unchanged=unchanged)
    first = summary_client.load_as_arrow("contracts", *JOB_RANGE, cache=tmp_path, **job_settings(service, certificates))
    assert "ifNoneMatch" not in service.job_calls()[0].body and len(storage.requests) == 2
    unchanged.update({"2025-01", "2025-02"})
    second = summary_client.load_as_arrow("contracts", *JOB_RANGE, cache=tmp_path, **job_settings(service, certificates))
    assert second.equals(first)
    assert service.job_calls()[2].body["ifNoneMatch"] == {"2025-01": 'W/"2025-01"', "2025-02": 'W/"2025-02"'}
    assert len(storage.requests) == 2
    # The month-by-month path keeps its own copies: a job's are one table's files.
    windows = serve(servers, lambda request: ok(month_file(request.body["createdFrom"][:7])))
    assert summary_client.load_as_arrow("contracts", *JOB_RANGE, cache=tmp_path, via="windows", **windows.settings()).num_rows == 6
    assert all("if-none-match" not in request.headers for request in windows.calls())


def _flipped(label, entry, asked):  # type: ignore[no-untyped-def]
    return {**entry, "sha256": "0" * 64} if label == "2025-01" else entry


@pytest.mark.parametrize("storage_answer, file_of, message", [
    (None, _flipped, "sha256 differs"),
    (lambda request: (200, {}, month_file(request.path.split("/")[2]) + b"more"), None, "more than the \\d+ bytes the manifest declares"),
    (lambda request: (200, {}, month_file(request.path.split("/")[2])[:50]), None, "sent 50 bytes, the manifest declares"),
    (lambda request: (302, {"Location": "https://127.0.0.1:9/elsewhere"}, b""), None, "a redirect, which is never followed"),
    (None, lambda label, entry, asked: {**entry, "url": entry["url"].replace("https://", "http://")}, "not plain https"),
    (None, lambda label, entry, asked: {**entry, "bytes": 10 ** 12}, "more than SUMMARY_MAX_EXPORT_BYTES"),
    (lambda request: (404, {}, b""), None, "answered 404 \\(the job was cancelled or has expired"),
])
def test_a_file_is_taken_only_as_the_manifest_vouches_for_it(servers, waits, certificates, storage_answer, file_of, message):  # type: ignore[no-untyped-def]
    service, _ = job_service(servers, certificates, storage_answer=storage_answer, file_of=file_of)
    with pytest.raises(UnsafeAnswerError, match=message):
        summary_client.load_as_arrow("contracts", *JOB_RANGE, **job_settings(service, certificates))


def test_an_exported_month_without_a_file_of_the_table_is_refused(servers, waits, certificates):  # type: ignore[no-untyped-def]
    service, _ = job_service(servers, certificates, file_of=lambda label, entry, asked: {**entry, "table": "invoices"} if label == "2025-02" else entry)
    with pytest.raises(UnsafeAnswerError, match="lists no file of contracts for 2025-02"):
        summary_client.load_as_arrow("contracts", *JOB_RANGE, **job_settings(service, certificates))


def test_a_manifest_with_other_windows_than_the_range_is_refused(servers, waits, certificates):  # type: ignore[no-untyped-def]
    service, storage = job_service(servers, certificates)
    with pytest.raises(UnsafeAnswerError, match="other windows than the range's months"):
        summary_client.load_as_arrow("contracts", "2025-01-01", "2025-03-31", **job_settings(service, certificates))
    assert storage.requests == []


def test_a_url_storage_refused_is_asked_for_again_once(servers, waits, certificates):  # type: ignore[no-untyped-def]
    def expired_first(request):  # type: ignore[no-untyped-def]
        if request.path.endswith("sig=1"):
            return 403, {"Content-Type": "application/xml"}, b"<Error><Code>AuthenticationFailed</Code></Error>"
        return 200, {}, month_file(request.path.split("/")[2])

    service, _ = job_service(servers, certificates, storage_answer=expired_first)
    assert summary_client.load_as_arrow("contracts", *JOB_RANGE, **job_settings(service, certificates)).num_rows == 6
    assert [request.method for request in service.job_calls()] == ["POST", "GET", "GET"]


def test_via_job_where_the_service_offers_none_is_refused_and_the_default_reads_month_by_month(servers, waits):  # type: ignore[no-untyped-def]
    server = serve(servers, lambda request: ok(month_file(request.body["createdFrom"][:7])))
    with pytest.raises(RefusedError, match="via='windows'"):
        summary_client.load_as_arrow("contracts", *JOB_RANGE, via="job", **server.settings())
    assert summary_client.load_as_arrow("contracts", *JOB_RANGE, **server.settings()).num_rows == 6
    assert len(server.calls()) == 2 and [request.method for request in server.job_calls()] == ["POST", "POST"]
    with pytest.raises(ValueError, match="via must be"):
        summary_client.load_as_arrow("contracts", *JOB_RANGE, via="jobs", **server.settings())


def test_a_job_that_stays_running_with_retry_after_0_is_asked_once_a_second_at_most_and_given_up(servers, waits, certificates):  # type: ignore[no-untyped-def]
    from summary_client import _job

    service, storage = job_service(servers, certificates)
    running = FakeServer(lambda request: problem(500, "INTERNAL", "not asked"), jobs=lambda request: (
        (202, {"Content-Type": "application/json", "Location": f"../exports/{JOB}", "Retry-After": "0"}, b"{}") if request.method == "POST"
        else (202, {"Content-Type": "application/json", "Retry-After": "0"}, json.dumps({"id": JOB, "status": "running", "progress": {"windows": 2, "done": 0}}).encode()))).start()
    servers.append(running)
    with pytest.raises(UnavailableError, match=f"after {_job.MAX_STATUS_CALLS} status calls"):
        summary_client.load_as_arrow("contracts", *JOB_RANGE, **job_settings(running, certificates))
    status_calls = [request for request in running.job_calls() if request.method == "GET"]
    assert len(status_calls) == _job.MAX_STATUS_CALLS
    # Every wait between two status calls (recorded, not slept) is at least the floor, whatever Retry-After said.
    poll_waits = waits[1:]
    assert len(poll_waits) == _job.MAX_STATUS_CALLS - 1 and min(poll_waits) >= _job.MIN_POLL_SECONDS
    assert storage.requests == []


def test_a_large_file_goes_to_disk_as_it_comes_and_is_refused_by_its_digest_without_being_held(servers, certificates):  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    size = 256 * 1024 * 1024
    big = bytes(size)
    service, storage = job_service(servers, certificates, storage_answer=lambda request: (200, {}, big),
                                   file_of=lambda label, entry, asked: {**entry, "bytes": size, "sha256": "0" * 64})
    # The loader in a process of its own, so that its peak memory is its own: VmHWM, the high-water
    # mark of its own memory (ru_maxrss would count this process's, which a vfork'ed child inherits).
    script = "\n".join([
        "import json, re, sys, summary_client",
        "try:",
        "    summary_client.load_as_arrow('contracts', '2025-01-01', '2025-02-28', **json.loads(sys.argv[1]))",
        "except summary_client.UnsafeAnswerError as error:",
        "    print(error, file=sys.stderr)",
        "print(int(re.search(r'VmHWM:\\s+(\\d+) kB', open('/proc/self/status').read()).group(1)) * 1024)",
    ])
    run = subprocess.run([sys.executable, "-c", script, json.dumps(job_settings(service, certificates))], capture_output=True, text=True, timeout=300)
    assert "sha256 differs" in run.stderr, run.stderr
    # Both months' 256 MiB came whole (two downloads at once), and the process never held one.
    assert len(storage.requests) == 2
    assert int(run.stdout.strip()) < 300 * 1024 * 1024
