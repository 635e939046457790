"""Runs manifest.yaml as an Airbyte source, as the CDK's source-declarative-manifest does:

    python docs/recipes/airbyte/main.py spec
    python docs/recipes/airbyte/main.py check --config config.json
    python docs/recipes/airbyte/main.py discover --config config.json
    python docs/recipes/airbyte/main.py read --config config.json --catalog catalog.json [--state state.json]

The custom components (components.py, next to this file) are imported as `components`. Against the
local stack its CA must be in the venv's certifi bundle (the CDK's requests read no
REQUESTS_CA_BUNDLE): docs/consuming.md, "Airbyte".
"""
import sys
from pathlib import Path

import yaml
from airbyte_cdk.entrypoint import launch
from airbyte_cdk.sources.declarative.manifest_declarative_source import ManifestDeclarativeSource

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    manifest = yaml.safe_load((HERE / "manifest.yaml").read_text(encoding="utf-8"))
    launch(ManifestDeclarativeSource(source_config=manifest), sys.argv[1:])
