"""``scaledattn check`` passes the gate: a model of each theorem's assumptions, steps on models.

The gate's results are computed with the kernel's verdict and kept with it in the theorem
cache (scaledattn/cache.py): a warm ``check`` reads them, a cold one computes them once.
"""

from __future__ import annotations

import contextlib
import io
import re
from types import SimpleNamespace
from typing import Any

import pytest
import sympy

from scaledattn.cli import main
from scaledattn.derive import calc
from scaledattn.gate import NO_MODEL
from scaledattn.kernel import E, Moment, random_variables
from scaledattn.kernel.rules import substitute_moment
from scaledattn.registry import TheoremModule, theorem_modules


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def test_check_says_a_model_was_found_for_every_theorem_with_assumptions(
    check_output: dict[str, Any],
) -> None:
    text = check_output["text"]
    assert check_output["code"] == 0
    found = re.search(r"A model of the assumptions was found for (\d+) of the (\d+) verified", text)
    assert found is not None
    assert found.group(1) == found.group(2)
    assert int(found.group(1)) > 30
    assert "\n    a model of the assumptions: " in text  # each theorem's own line
    assert "UNDECIDED" not in text


def test_check_json_carries_each_theorems_model(check_output: dict[str, Any]) -> None:
    theorems = check_output["json"]["theorems"]
    assert all(t["model"].startswith("a model of the assumptions") for t in theorems if t["model"])
    assert sum(1 for t in theorems if t["model"]) > 30


def _vacuous() -> Any:
    # E[X] = 1 by E[X] = 1, under E[2X] = 3 as well: the kernel accepts the step (it checks
    # steps, not contexts), and no model has both moments (E is linear)
    (x,) = random_variables("X")
    return (
        calc("vacuous_mean", E(x), sympy.Integer(1),
             assuming=[Moment(E(2 * x), 3), Moment(E(x), 1)])
        .eq(sympy.Integer(1), by=substitute_moment)
        .qed()
    )  # fmt: skip


def test_a_theorem_whose_assumptions_have_no_model_is_not_verified_by_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = SimpleNamespace(evidence=dict)
    derivations = (_vacuous(),)
    fake = TheoremModule("vacuous", "no model", derivations, module)  # type: ignore[arg-type]
    monkeypatch.setattr(
        "scaledattn.cli.theorems.theorem_modules", lambda: (*theorem_modules()[:1], fake)
    )
    code, out = _run(["check", "--brief"])
    assert code != 0  # 3, or 1 when its numeric witnesses (which ignore E[2X] = 3) differ
    (row,) = [line for line in out.splitlines() if line.startswith("vacuous_mean")]
    assert "UNDECIDED" in row
    assert "VERIFIED" not in row
    assert f"UNDECIDED, {NO_MODEL}: vacuous_mean." in out
    assert "theorems verified" not in out


def test_the_calculators_answer_needs_a_model_of_its_derivations_assumptions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out = _run(["variance", "--corr", "1/2"])  # a correlated pair: a model is found
    assert code == 0
    assert out.strip() == "5*d_k/4 = 1.25*d_k"
    monkeypatch.setattr("scaledattn.gate.context_withheld", lambda d: NO_MODEL)
    code, out = _run(["variance", "--corr", "1/2"])
    assert code == 3
    assert out.startswith(f"UNDECIDED variance(corr=1/2): {NO_MODEL}, so no answer is given")
