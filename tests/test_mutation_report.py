"""scripts/mutation_report.py: what it may count as an equivalent mutant.

An argument names a mutant by mutmut's number, which moves when its function changes,
so it must also quote the mutated text; and the display rule must never excuse a
mutant that changes code, even on a line that holds a message or a label.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "mutation_report.py"


@pytest.fixture(scope="module")
def report() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_report", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_an_argument_excuses_only_the_mutant_whose_text_it_quotes(report: ModuleType) -> None:
    argument = report.Argument("hash(None)", "a constant hash keeps the contract")
    assert argument.fits(["-    return hash((self.label, self.dim))", "+    return hash(None)"])
    # the same number on a changed function names another mutant: stale
    assert not argument.fits(["-    return hash((self.label, self.dim))", "+    return 0"])
    dropped = report.Argument(")", "a step's note", old='note="declared')
    assert dropped.fits(['-   note="declared moments",', "-   )", "+   )"])
    assert not dropped.fits(["-   value,", "-   )", "+   )"])


def test_every_argument_quotes_the_text_it_argues_about(report: ModuleType) -> None:
    assert all(a.new and a.reason for a in report.ARGUED.values())


LABELLED = '-    Entries(y, d(j, t), j, f"one-hot at {t}")'
MESSAGE = '-    raise InvalidArgument(f"bad {x}")'


@pytest.mark.parametrize(
    ("lines", "display"),
    [
        ([MESSAGE, "+    raise InvalidArgument(None)"], True),
        ([MESSAGE, '+    raise InvalidArgument(f"XXbad {x}XX")'], True),
        (['-    Step(ring, e, note="by parts")', "+    Step(ring, e, note=None)"], True),
        ([LABELLED, "+    Entries(y, d(j, t), j, )"], True),
        # code changed on a line that also holds a label: not display
        ([LABELLED, '+    Entries(y, d(j, None), j, f"one-hot at {t}")'], False),
        ([LABELLED, '+    Entries(y, d(t, j), j, "")'], False),
        # a string that is not a message (no display word): not display
        (
            ['-    v |= getattr(v, "free_symbols", set())', "+    v |= getattr(v, None, set())"],
            False,
        ),
        ([MESSAGE, "-    if a:", "+    if not a:"], False),
    ],
)
def test_display_means_only_a_message_note_title_or_label_changed(
    report: ModuleType, lines: list[str], display: bool
) -> None:
    assert report.display_only(lines) is display
