"""The loader against the local stack (dev/local-stack.ts) through its gateway, with the dev
client's settings: `npm run test:system` starts the stack, passes the SUMMARY_* settings and what
the store holds (SUMMARY_TEST_EXPECTED), and runs these twice: in a virtual environment without
MSAL (the plain token request) and in one that sees Debian's python3-msal (SUMMARY_TEST_TOKEN_PATH
says which). Run alone, without the stack, they are skipped, and the run through npm fails on a skip."""
from __future__ import annotations

import datetime as dt
import json
import os
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import summary_client
from summary_client import TokenError, UnsafeAnswerError
from summary_client._settings import read_settings
from summary_client._token import token_source
from summary_client._transport import new_session

pytestmark = pytest.mark.skipif("SUMMARY_TEST_EXPECTED" not in os.environ, reason="needs the local stack: npm run test:system")

YEAR = ("2025-01-01", "2025-12-31")


@pytest.fixture(scope="module")
def expected() -> dict:
    return json.loads(os.environ["SUMMARY_TEST_EXPECTED"])


@pytest.fixture(scope="module")
def contracts() -> pa.Table:
    return summary_client.load_as_arrow("contracts", *YEAR)


def test_gets_its_token_the_way_this_environment_offers(monkeypatch):  # type: ignore[no-untyped-def]
    settings = read_settings()
    assert token_source(settings, new_session(settings)).kind == os.environ["SUMMARY_TEST_TOKEN_PATH"]  # type: ignore[attr-defined]


def test_a_year_of_contracts_is_every_row_once_with_exact_decimals(contracts, expected):  # type: ignore[no-untyped-def]
    assert contracts.num_rows == expected["contracts"]
    assert len(set(contracts.column("contractId").to_pylist())) == contracts.num_rows
    assert pa.types.is_decimal(contracts.schema.field("contractAmount").type)
    total = pc.sum(contracts.column("contractAmount")).as_py()
    assert isinstance(total, Decimal)
    assert str(total) == expected["amount"]


def test_invoices_and_their_lines_are_the_two_tables(expected):  # type: ignore[no-untyped-def]
    invoices = summary_client.load_as_arrow("invoices", *YEAR)
    lines = summary_client.load_as_arrow("invoices", *YEAR, table="invoice_tables")
    assert invoices.num_rows == expected["invoices"]
    assert lines.num_rows == expected["lines"]
    assert set(lines.column("invoiceId").to_pylist()) <= set(invoices.column("invoiceId").to_pylist())


def test_pandas_and_polars_hold_the_same_rows_and_exact_sum(expected):  # type: ignore[no-untyped-def]
    frame = summary_client.load_as_pandas("contracts", *YEAR)
    assert len(frame) == expected["contracts"]
    assert str(sum(frame["contractAmount"].dropna(), Decimal(0))) == expected["amount"]
    import polars as pl

    polars_frame = summary_client.load_as_polars("contracts", *YEAR)
    assert polars_frame.height == expected["contracts"]
    assert str(polars_frame.select(pl.col("contractAmount").sum()).item()) == expected["amount"]


def test_any_range_is_the_rows_of_its_days_and_filters_narrow_it(contracts):  # type: ignore[no-untyped-def]
    part = summary_client.load_as_arrow("contracts", dt.date(2025, 1, 15), "2025-03-10")
    days = [value.isoformat()[:10] for value in contracts.column("createdDate").to_pylist()]
    wanted = sorted(cid for cid, day in zip(contracts.column("contractId").to_pylist(), days) if "2025-01-15" <= day <= "2025-03-10")
    assert sorted(part.column("contractId").to_pylist()) == wanted

    workspace = contracts.column("contractWorkspaceID")[0].as_py()
    narrowed = summary_client.load_as_arrow("contracts", *YEAR, filters={"contractWorkspaceID": workspace})
    assert narrowed.num_rows == contracts.filter(pc.equal(contracts.column("contractWorkspaceID"), workspace)).num_rows
    assert narrowed.num_rows > 0


def test_trusts_the_ca_of_ssl_cert_file_too(monkeypatch):  # type: ignore[no-untyped-def]
    ca = os.environ["SUMMARY_CA_FILE"]
    monkeypatch.delenv("SUMMARY_CA_FILE")
    monkeypatch.setenv("SSL_CERT_FILE", ca)
    assert summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-31").num_rows > 0


def test_refuses_the_identity_provider_when_its_ca_is_not_trusted(monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.delenv("SUMMARY_CA_FILE")
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    with pytest.raises((TokenError, UnsafeAnswerError), match="SUMMARY_CA_FILE"):
        summary_client.load_as_arrow("contracts", "2025-03-01", "2025-03-31")


def test_a_cache_folder_exports_nothing_the_second_time(tmp_path, caplog, contracts):  # type: ignore[no-untyped-def]
    import logging

    with caplog.at_level(logging.INFO, logger="summary_client"):
        first = summary_client.load_as_arrow("contracts", *YEAR, cache=tmp_path, via="windows")
        caplog.clear()
        second = summary_client.load_as_arrow("contracts", *YEAR, cache=tmp_path, via="windows")
    messages = [record.getMessage() for record in caplog.records]
    assert len([message for message in messages if message.endswith("unchanged, read from the cache")]) == 12
    assert [message for message in messages if message.endswith(" bytes")] == []
    assert second.equals(first)
    assert second.num_rows == contracts.num_rows


def test_a_cache_is_kept_by_the_delta_of_the_service(tmp_path, caplog, contracts):  # type: ignore[no-untyped-def]
    import logging

    with caplog.at_level(logging.INFO, logger="summary_client"):
        first = summary_client.load_as_arrow("contracts", *YEAR, cache=tmp_path)
        caplog.clear()
        second = summary_client.load_as_arrow("contracts", *YEAR, cache=tmp_path)
    messages = [record.getMessage() for record in caplog.records]
    # The second load asked only what changed since the first's token: nothing.
    assert "kept by the delta: 0 rows changed or removed" in messages
    # The same records and values as a load month by month (the delta's columns are nullable).
    rows = lambda table: table.sort_by("contractId").to_pylist()  # noqa: E731
    assert first.schema.names == contracts.schema.names
    assert rows(first) == rows(contracts)
    assert rows(second) == rows(first)
    invoices = summary_client.load_as_arrow("invoices", *YEAR, table="invoice_tables", cache=tmp_path)
    again = summary_client.load_as_arrow("invoices", *YEAR, table="invoice_tables", cache=tmp_path)
    assert again.num_rows == invoices.num_rows > 0


def test_a_cache_kept_by_the_delta_goes_on_when_its_range_ends_later(tmp_path, caplog, contracts):  # type: ignore[no-untyped-def]
    import logging

    rows = lambda table: table.sort_by("contractId").to_pylist()  # noqa: E731
    in_days = lambda end: contracts.filter(pc.less_equal(pc.strftime(contracts.column("createdDate"), "%Y-%m-%d"), end))  # noqa: E731
    with caplog.at_level(logging.INFO, logger="summary_client"):
        first = summary_client.load_as_arrow("contracts", YEAR[0], "2025-06-10", cache=tmp_path)
        assert rows(first) == rows(in_days("2025-06-10"))
        caplog.clear()
        # A nightly range that ends later: its delta goes on from the token, the days added in it whole.
        later = summary_client.load_as_arrow("contracts", *YEAR, cache=tmp_path)
    messages = [record.getMessage() for record in caplog.records]
    assert "the cache's copy of 2025-01-01..2025-06-10 goes on to 2025-01-01..2025-12-31" in messages
    assert not [message for message in messages if "cannot go on" in message or "whole range" in message]
    assert rows(later) == rows(contracts)


def test_one_job_serves_both_invoice_tables_of_a_cache(tmp_path, caplog):  # type: ignore[no-untyped-def]
    import logging

    with caplog.at_level(logging.INFO, logger="summary_client"):
        invoices = summary_client.load_as_arrow("invoices", *YEAR, cache=tmp_path, via="job")
        caplog.clear()
        # The job that answered the invoices kept the lines of every window too: nothing is exported or downloaded for them.
        lines = summary_client.load_as_arrow("invoices", *YEAR, table="invoice_tables", cache=tmp_path, via="job")
        messages = [record.getMessage() for record in caplog.records]
        assert len([message for message in messages if message.endswith("unchanged, read from the cache")]) == 12
        assert [message for message in messages if message.endswith(" bytes")] == []
        # And the invoices' own copies are still there: the two loads share the cache's index.
        caplog.clear()
        again = summary_client.load_as_arrow("invoices", *YEAR, cache=tmp_path, via="job")
        assert len([record for record in caplog.records if record.getMessage().endswith("unchanged, read from the cache")]) == 12
    assert again.equals(invoices)
    assert lines.equals(summary_client.load_as_arrow("invoices", *YEAR, table="invoice_tables", via="windows"))


def test_a_range_through_an_export_job_is_the_same_table_as_month_by_month(contracts):  # type: ignore[no-untyped-def]
    # The fixture's year went through a job (the default for more than one month).
    assert contracts.equals(summary_client.load_as_arrow("contracts", *YEAR, via="windows"))
    by_job = summary_client.load_as_arrow("invoices", *YEAR, table="invoice_tables", via="job")
    assert by_job.equals(summary_client.load_as_arrow("invoices", *YEAR, table="invoice_tables", via="windows"))
    assert by_job.num_rows > 0
