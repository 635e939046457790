"""One table of a completed export job, read straight from its manifest's file URLs.

    python docs/recipes/read_manifest.py MANIFEST.json TABLE READER

MANIFEST.json is the job's status answer once it is 200 (the README's curl walkthrough saves it as
pulls/job.json; docs/recipes/azure-sdk-poller.mjs and azure_sdk_poller.py print it). TABLE is
`contracts`, `invoices` or `invoice_tables`; READER one of pandas, polars, pyarrow, duckdb. The URLs
are the only credential (read-only, one file each, until the job expires): nothing of the service's
is sent. Against the local stack, trust its CA for this one command: SSL_CERT_FILE=.local/ca.pem
(it stands for the system's CAs in that process, which Azure's storage does not need). Prints the
rows read and the sum of the table's first amount column, an exact Decimal.

What each reader needs (docs/consuming.md, "Reading a manifest's files"):
- pandas: pyarrow (HTTP by Python's urllib); dtype_backend="pyarrow" keeps the decimals;
- polars: nothing more (its own HTTP);
- pyarrow: fsspec and aiohttp (pyarrow's own filesystems have no https);
- duckdb: its httpfs extension, which DuckDB downloads on `INSTALL httpfs` (once per machine).

pandas and pyarrow read each file from a copy in Arrow's memory, not from the URL: given a URL
(or Python bytes), pyarrow's threads hold Python objects, and a script that has done its work can
then abort as it exits, now and then (status 134, "terminate called without an active exception",
apache/arrow#34314), failing the job that ran it.
"""
import json
import sys

AMOUNTS = {"contracts": "contractAmount", "invoices": "totalAmount", "invoice_tables": "netAmount"}

manifest_file, table, reader = sys.argv[1:4]
with open(manifest_file, encoding="utf-8") as handle:
    manifest = json.load(handle)
if manifest.get("status") != "completed":
    sys.exit(f"the job is {manifest.get('status')}: read its manifest once its status answers 200")
# `files` lists every file of every window in order (a month of many records may be in several parts).
urls = [file["url"] for file in manifest["files"] if file["table"] == table]


def in_arrow_memory(data):
    """A reader of a copy of ``data`` (a file's bytes) in Arrow's memory."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    sink.write(data)
    return pa.BufferReader(sink.getvalue())


if reader == "pandas":
    import urllib.request

    import pandas as pd

    def fetched(url):
        with urllib.request.urlopen(url) as answer:
            return answer.read()

    frame = pd.concat([pd.read_parquet(in_arrow_memory(fetched(url)), dtype_backend="pyarrow") for url in urls], ignore_index=True)
    rows, total = len(frame), frame[AMOUNTS[table]].sum()
elif reader == "polars":
    import polars as pl

    frame = pl.concat([pl.read_parquet(url) for url in urls])
    rows, total = frame.height, frame[AMOUNTS[table]].sum()
elif reader == "pyarrow":
    import fsspec
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    https = fsspec.filesystem("https")
    data = pa.concat_tables([pq.read_table(in_arrow_memory(https.cat_file(url))) for url in urls])
    rows, total = data.num_rows, pc.sum(data[AMOUNTS[table]]).as_py()
elif reader == "duckdb":
    import duckdb

    duckdb.sql("INSTALL httpfs")
    duckdb.sql("LOAD httpfs")
    rows, total = duckdb.execute(f"SELECT count(*), sum({AMOUNTS[table]}) FROM read_parquet(?)", [urls]).fetchone()
else:
    sys.exit("READER is one of pandas, polars, pyarrow, duckdb")
print(json.dumps({"rows": rows, "total": str(total)}))
