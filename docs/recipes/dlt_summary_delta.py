"""Contracts and invoices (with their lines) kept in DuckDB by the service's delta, with dlt's
declarative rest_api source.

- OAuth 2.0 client credentials (dlt's oauth2_client_credentials auth; the token request carries
  Entra's `scope` member), and the two keys as headers;
- the delta operation (POST /v1/{contracts|invoices}/delta), its pages followed by
  `pagination.nextLink`;
- the delta token as the resource's incremental state: read from the last page's
  `delta.deltaToken`, kept in dlt's resource state, sent as `deltaToken` on the next run. dlt keeps
  the state locally from the extract on and in the destination with the load, so a run that fails
  drops its local state: the next one takes the destination's, the token of the last load that
  landed, and asks again with it (a token answers again for its whole life);
- `merge` by the record id, the removal rows' `_removed` member as `hard_delete` (an invoice's lines
  go with it), and column hints: amounts decimal, dates date, instants timestamp.

    python docs/recipes/dlt_summary_delta.py            (every night; the first run loads the view)

With the settings `npm start` prints (SUMMARY_*); against the local stack also
REQUESTS_CA_BUNDLE=.local/ca.pem for this one command. The DuckDB file is summary_delta.duckdb in
the working folder (DLT_DESTINATION__DUCKDB__CREDENTIALS names another), dataset `summary`.
Run with dlt 1.26.0 (built from its source) and duckdb 1.5.6: docs/consuming.md, "dlt".
"""
import os
import sys

import dlt
from dlt.sources.rest_api import rest_api_source


def env(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"set {name} (npm start prints the dev values)")
    return value


# Column hints: amounts exact (DECIMAL as in the service's Parquet), dates typed.
KINDS = {
    "money": {"data_type": "decimal", "precision": 18, "scale": 2},
    "quantity": {"data_type": "decimal", "precision": 18, "scale": 4},
    "date": {"data_type": "date"},
    "instant": {"data_type": "timestamp", "timezone": True},
}
HINTS = {
    "contracts": {"contractAmount": "money", "effectiveDate": "date", "expirationDate": "date", "createdDate": "instant", "updatedDate": "instant"},
    "invoices": {"netAmount": "money", "taxAmount": "money", "totalAmount": "money", "invoiceDate": "date", "dueDate": "date", "createdDate": "instant", "updatedDate": "instant"},
    "lines": {"quantity": "quantity", "unitPrice": "quantity", "netAmount": "money", "taxAmount": "money"},
}


def columns(table):
    """A table's column hints, a dict of its own per column (dlt names the dicts it is given)."""
    return [{"name": name, **KINDS[kind]} for name, kind in HINTS[table].items()]


ID = {"contracts": "contractId", "invoices": "invoiceId"}


def keep_delta_token(response, *args, **kwargs):
    """A response hook: the last page's token becomes the resource's state."""
    if not response.ok:
        return response
    token = (response.json().get("delta") or {}).get("deltaToken")
    if token:
        dlt.current.resource_state()["deltaToken"] = token
    return response


def summary_delta(pipeline, tokens=True):
    """The rest_api source of both resources, each asking since the token its last load kept
    (``tokens=False``: the whole view)."""
    resources_state = pipeline.state.get("sources", {}).get("summary", {}).get("resources", {}) if tokens else {}

    def resource(name):
        token = resources_state.get(name, {}).get("deltaToken")
        return {
            "name": name,
            "primary_key": ID[name],
            "write_disposition": {"disposition": "merge", "strategy": "delete-insert"},
            "columns": [*columns(name), {"name": "_removed", "data_type": "text", "hard_delete": True}],
            "endpoint": {
                "path": f"v1/{name}/delta",
                "method": "POST",
                # No token yet: the whole view as of now, and a token.
                "json": {"deltaToken": token} if token else {},
                "data_selector": "data",
                "paginator": {"type": "json_link", "next_url_path": "pagination.nextLink"},
                "response_actions": [keep_delta_token],
            },
        }

    source = rest_api_source({
        "client": {
            "base_url": env("SUMMARY_BASE_URL") + "/",
            "auth": {
                "type": "oauth2_client_credentials",
                "access_token_url": f"{os.environ.get('SUMMARY_AUTHORITY_HOST', 'https://login.microsoftonline.com')}/{env('SUMMARY_TENANT_ID')}/oauth2/v2.0/token",
                "client_id": env("SUMMARY_CLIENT_ID"),
                "client_secret": env("SUMMARY_CLIENT_SECRET"),
                "access_token_request_data": {"scope": env("SUMMARY_SCOPE")},
            },
            "headers": {"Ocp-Apim-Subscription-Key": env("SUMMARY_SUBSCRIPTION_KEY"), "x-api-key": env("SUMMARY_API_KEY")},
        },
        "resources": [resource("contracts"), resource("invoices")],
    }, name="summary")
    source.resources["invoices"].apply_hints(nested_hints={"lines": dlt.mark.make_nested_hints(columns=columns("lines"))})
    return source


# The service's answers to a token it no longer continues: start again without one (docs/api.md, "Deltas").
START_AGAIN = {"DELTA_TOKEN_NOT_FOUND", "DELTA_TOKEN_EXPIRED", "DELTA_VIEW_CHANGED", "DELTA_FILTERS_CHANGED", "INVALID_DELTA_TOKEN"}


def refused_token(error):
    """The service's code when ``error`` (or what caused it) is its refusal of a kept token."""
    while error is not None:
        response = getattr(error, "response", None)
        if response is not None and response.status_code in (400, 409, 410):
            try:
                code = response.json().get("code")
            except ValueError:
                code = None
            if code in START_AGAIN:
                return code
        error = error.__cause__ or error.__context__
    return None


if __name__ == "__main__":
    pipeline = dlt.pipeline(pipeline_name="summary_delta", destination="duckdb", dataset_name="summary")
    # The tokens are in the destination too: a machine without the local pipeline folder takes them from there.
    pipeline.sync_destination()
    try:
        info = pipeline.run(summary_delta(pipeline))
    except Exception as failure:
        code = refused_token(failure)
        if code is None:
            # The tokens of an extract that did not land must not be asked from: without the local
            # state, the next run takes the destination's (and extracts again what did not land).
            pipeline.drop()
            raise
        # Expired, or another view: the tables are loaded again from the whole view (their rows and
        # the tokens dropped first), as the service says to.
        print(f"the service no longer continues the kept token ({code}): loading the whole view again", file=sys.stderr)
        info = pipeline.run(summary_delta(pipeline, tokens=False), refresh="drop_resources")
    print(info)
