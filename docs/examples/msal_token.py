"""A token from the identity provider through MSAL for Python, then one page of contracts.

Against the local stack (npm start), trust its CA and read the dev settings `npm start` prints:
    REQUESTS_CA_BUNDLE=.local/ca.pem python3 docs/examples/msal_token.py
Against Azure, leave SUMMARY_AUTHORITY_HOST and REQUESTS_CA_BUNDLE unset (Entra's public cloud).
Needs msal (pip install msal, or Debian's python3-msal) and requests (a dependency of msal).
"""
import os
import sys

import msal
import requests


def env(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"set {name} (npm start prints the dev values)")
    return value


authority_host = os.environ.get("SUMMARY_AUTHORITY_HOST", "https://login.microsoftonline.com")
app = msal.ConfidentialClientApplication(
    env("SUMMARY_CLIENT_ID"),
    client_credential=env("SUMMARY_CLIENT_SECRET"),
    authority=f"{authority_host.rstrip('/')}/{env('SUMMARY_TENANT_ID')}",
    # Instance discovery asks login.microsoftonline.com about the authority: off for any other host.
    instance_discovery="SUMMARY_AUTHORITY_HOST" not in os.environ,
)
result = app.acquire_token_for_client(scopes=[env("SUMMARY_SCOPE")])
if "access_token" not in result:
    sys.exit(f"no token: {result.get('error')}: {result.get('error_description')}")

response = requests.post(
    f"{env('SUMMARY_BASE_URL')}/v1/contracts/summary",
    headers={
        "Authorization": f"Bearer {result['access_token']}",
        "Ocp-Apim-Subscription-Key": env("SUMMARY_SUBSCRIPTION_KEY"),
        "x-api-key": env("SUMMARY_API_KEY"),
        "Accept": "application/json",
    },
    json={"pageSize": 1},
    timeout=30,
)
if not response.ok:
    sys.exit(f"the service answered {response.status_code}: {response.text}")
page = response.json()
first = page["data"][0]["contractId"] if page["data"] else "none"
print(f"{page['pagination']['totalRecords']} contracts in the tenant; the first is {first}")
