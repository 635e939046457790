"""The month windows of the Python loader, by the vectors the service and the pull client are held to
(test/vectors/month-windows.json; test/unit/facts/month-windows.test.ts asserts the TypeScript side)."""
import datetime as dt
import json
import pathlib

import pytest

from summary_client._windows import month_windows

VECTORS = json.loads((pathlib.Path(__file__).resolve().parents[2] / "test" / "vectors" / "month-windows.json").read_text())


@pytest.mark.parametrize("vector", VECTORS["ranges"], ids=lambda vector: f"{vector['from']}..{vector['to']}")
def test_cuts_each_range_as_the_vectors_say(vector):
    windows = month_windows(dt.date.fromisoformat(vector["from"]), dt.date.fromisoformat(vector["to"]))
    assert [[w.start.isoformat()[:7], w.start.isoformat(), w.end.isoformat()] for w in windows] == vector["windows"]


@pytest.mark.parametrize("vector", VECTORS["reversed"])
def test_refuses_a_reversed_range(vector):
    with pytest.raises(ValueError, match="after"):
        month_windows(dt.date.fromisoformat(vector["from"]), dt.date.fromisoformat(vector["to"]))
