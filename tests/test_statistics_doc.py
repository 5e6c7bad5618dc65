"""docs/statistics.md lists exactly the properties the ci profile bounds, with their bounds."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from tests.profiles import CI_BOUNDS

ROOT = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\| `(?P<name>test_\w+)` \| (?P<ci>\d+) \| (?P<default>\d+) \|$", re.M)


def test_the_table_of_bounded_properties_is_the_one_the_tests_use() -> None:
    text = (ROOT / "docs" / "statistics.md").read_text(encoding="utf-8")
    shown = {m["name"]: (int(m["ci"]), int(m["default"])) for m in ROW.finditer(text)}
    from hypothesis import settings

    default = settings.get_profile("ci").max_examples
    assert shown == {key.rsplit(".", 1)[1]: (n, default) for key, n in CI_BOUNDS.items()}


def test_every_bounded_property_is_decorated_and_bounded_below_the_profile() -> None:
    from hypothesis import settings

    for key, examples in CI_BOUNDS.items():
        module, name = key.rsplit(".", 1)
        test = getattr(importlib.import_module(module), name)
        assert test.ci_examples == examples, key
        assert 0 < examples < settings.get_profile("ci").max_examples
        assert examples < settings.get_profile("thorough").max_examples
