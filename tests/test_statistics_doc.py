"""docs/statistics.md lists exactly the properties the repeatable profile bounds, and how."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from tests.profiles import REPEATABLE_BOUNDS

ROOT = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\| `(?P<name>test_\w+)` \| (?P<repeatable>\d+) \| (?P<default>\d+) \|$", re.M)


def test_the_table_of_bounded_properties_is_the_one_the_tests_use() -> None:
    text = (ROOT / "docs" / "statistics.md").read_text(encoding="utf-8")
    shown = {m["name"]: (int(m["repeatable"]), int(m["default"])) for m in ROW.finditer(text)}
    from hypothesis import settings

    default = settings.get_profile("repeatable").max_examples
    assert shown == {key.rsplit(".", 1)[1]: (n, default) for key, n in REPEATABLE_BOUNDS.items()}


def test_every_bounded_property_is_decorated_and_bounded_below_the_profile() -> None:
    from hypothesis import settings

    for key, examples in REPEATABLE_BOUNDS.items():
        module, name = key.rsplit(".", 1)
        test = getattr(importlib.import_module(module), name)
        assert test.repeatable_examples == examples, key
        assert 0 < examples < settings.get_profile("repeatable").max_examples
        assert examples < settings.get_profile("thorough").max_examples
