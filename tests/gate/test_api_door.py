"""Review 30, finding 3 (02): the Python API's rendering passes the gate.

``calc(...)`` of 3 = E[2X] = 2E[X] = 2 under E[2X] = 3 and E[X] = 1 is accepted by the
kernel (it checks steps, not contexts; the kernel stays free of the gate). Its rendering
(text, Markdown, LaTeX, JSON) and ``render.run`` must not say VERIFIED: no model of the
assumptions exists.
"""

from __future__ import annotations

import json

import pytest
import sympy

import scaledattn.gate  # noqa: F401  (the gate installs the renderers' check of a model)
from scaledattn.derive import audit_of, calc
from scaledattn.kernel import E, Moment, random_variables
from scaledattn.kernel.rules import expectation_linear, substitute_moment
from scaledattn.render import render, run

Capture = pytest.CaptureFixture[str]


def _three_is_two():  # type: ignore[no-untyped-def]
    (x,) = random_variables("X")
    return (
        calc("three_is_two", sympy.Integer(3), sympy.Integer(2),
             assuming=[Moment(E(2 * x), 3), Moment(E(x), 1)])
        .eq(E(2 * x), by=substitute_moment)
        .eq(2 * E(x), by=expectation_linear)
        .eq(sympy.Integer(2), by=substitute_moment)
        .qed()
    )  # fmt: skip


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex"])
def test_the_rendering_withholds_a_verdict_without_a_model(fmt: str) -> None:
    audit = audit_of(_three_is_two())
    assert audit.verified  # the kernel's word on the steps
    shown = render(audit, fmt)
    assert "VERIFIED" not in shown
    if fmt != "latex":  # LaTeX shows the chain only, no verdict line
        assert "UNDECIDED three_is_two" in shown


def test_the_json_says_not_verified() -> None:
    data = json.loads(render(audit_of(_three_is_two()), "json"))
    assert data["verified"] is False
    assert "no model" in data["undecided"]


def test_run_exits_3(capsys: Capture) -> None:
    assert run([_three_is_two()]) == 3
    assert "Verdict: UNDECIDED" in capsys.readouterr().out


def test_a_derivation_with_a_model_is_still_verified() -> None:
    x, y = random_variables("X Y")
    d = (
        calc("lin", E(x + y), E(x) + E(y), assuming=[Moment(E(x), 1)])
        .eq(E(x) + E(y), by=expectation_linear)
        .qed()
    )
    assert "VERIFIED lin" in render(audit_of(d))


def test_the_notebook_display_of_the_theorem_withholds_it_too() -> None:
    from scaledattn.derive import prove
    from scaledattn.render.notebook import notebook_markdown

    shown = notebook_markdown(prove(_three_is_two()))
    assert "VERIFIED" not in shown
    assert "UNDECIDED three_is_two" in shown
