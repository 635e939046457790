"""An export job driven to its manifest by the Azure SDK for Python's own parts, as their docs show.

- azure-core's PipelineClient: the SDKs' standard pipeline, with BearerTokenCredentialPolicy (which
  sends a token over https only, which is why the local stack is https) and the two keys as headers;
- azure-identity's ClientSecretCredential for the token (client credentials);
- azure-core's LROPoller with LROBasePolling: the long-running-operation poller of every Azure SDK,
  which follows the kick-off's Location and its Retry-After until the status answers 200.

    python3 docs/recipes/azure_sdk_poller.py contracts 2025-01-01 2025-12-31    (prints the manifest)

With the settings `npm start` prints (SUMMARY_*); against the local stack also
REQUESTS_CA_BUNDLE=.local/ca.pem for this one command (azure-core sends through requests). Against
Azure leave SUMMARY_AUTHORITY_HOST and REQUESTS_CA_BUNDLE unset. Debian's python3-azure carries both
packages for /usr/bin/python3 (or pip install azure-core azure-identity). Run by `npm run test:system`
(test/system/azure-sdk-python.test.ts).
"""
import json
import os
import sys

from azure.core import PipelineClient
from azure.core.configuration import Configuration
from azure.core.exceptions import AzureError
from azure.core.pipeline.policies import BearerTokenCredentialPolicy, HeadersPolicy, RetryPolicy
from azure.core.polling import LROPoller
from azure.core.polling.base_polling import LROBasePolling
from azure.core.rest import HttpRequest
from azure.identity import ClientSecretCredential, __version__ as identity_version


def env(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"set {name} (npm start prints the dev values)")
    return value


if len(sys.argv) != 4 or sys.argv[1] not in ("contracts", "invoices"):
    sys.exit("usage: azure_sdk_poller.py contracts|invoices FROM TO (YYYY-MM-DD)")
dataset, created_from, created_to = sys.argv[1:]

authority = os.environ.get("SUMMARY_AUTHORITY_HOST")
# Instance discovery asks login.microsoftonline.com about the authority: off for any other host.
# The 1.13 betas (Debian's python3-azure) named the keyword instance_discovery=False.
no_discovery = {"instance_discovery": False} if identity_version.startswith("1.13.0b") else {"disable_instance_discovery": True}
credential = ClientSecretCredential(
    env("SUMMARY_TENANT_ID"), env("SUMMARY_CLIENT_ID"), env("SUMMARY_CLIENT_SECRET"),
    **({"authority": authority, **no_discovery} if authority else {}),
)
config = Configuration()
config.headers_policy = HeadersPolicy({"Ocp-Apim-Subscription-Key": env("SUMMARY_SUBSCRIPTION_KEY"), "x-api-key": env("SUMMARY_API_KEY")})
config.authentication_policy = BearerTokenCredentialPolicy(credential, env("SUMMARY_SCOPE"))
config.retry_policy = RetryPolicy()
client = PipelineClient(env("SUMMARY_BASE_URL"), config=config)

try:
    kickoff = client.send_request(
        HttpRequest("POST", f"{env('SUMMARY_BASE_URL')}/v1/{dataset}/exports", json={"createdFrom": created_from, "createdTo": created_to}),
        _return_pipeline_response=True,
    )
    if kickoff.http_response.status_code >= 300:
        problem = kickoff.http_response.json()
        sys.exit(f"the service answered {kickoff.http_response.status_code} {problem.get('code')}: {problem.get('detail')}")
    # timeout: the wait between polls when an answer has no Retry-After (ours always has one).
    poller = LROPoller(client, kickoff, lambda pipeline_response: pipeline_response.http_response.json(), LROBasePolling(timeout=1))
    manifest = poller.result()
except AzureError as error:
    sys.exit(f"the job did not complete: {error.message}")
print(json.dumps(manifest))
