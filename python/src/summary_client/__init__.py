"""summary-data-client: the Contracts & Invoices Summary Data Service as one table in a notebook.

    import summary_client
    contracts = summary_client.load_as_pandas("contracts", "2025-01-01", "2025-12-31")

Settings come from the same ``SUMMARY_*`` environment variables as the summary-client CLI, or from
keyword arguments (README.md).
"""
from ._errors import (
    RefusedError,
    ServiceFailedError,
    SettingsError,
    SummaryError,
    TokenError,
    TooLargeError,
    UnavailableError,
    UnsafeAnswerError,
)
from ._load import load_as_arrow, load_as_pandas, load_as_polars
from ._settings import Settings, read_settings

__version__ = "0.1.0"

__all__ = [
    "load_as_arrow",
    "load_as_pandas",
    "load_as_polars",
    "read_settings",
    "Settings",
    "SummaryError",
    "SettingsError",
    "TokenError",
    "RefusedError",
    "ServiceFailedError",
    "UnavailableError",
    "TooLargeError",
    "UnsafeAnswerError",
]
