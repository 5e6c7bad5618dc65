from __future__ import annotations

import contextlib
import io
from types import SimpleNamespace
from typing import Any

import pytest
from sympy import KroneckerDelta

from scaledattn.cli import main
from scaledattn.cli.theorems import METHODS
from scaledattn.derive import calc
from scaledattn.kernel import Deriv, Rule, axiom
from scaledattn.proofs import softmax_gradient as grad
from scaledattn.registry import TheoremModule, theorem_modules
from tests.numeric.test_evidence import WRONG


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


@pytest.fixture
def check_text(check_output: dict[str, Any]) -> str:
    """The output of ``scaledattn check`` (run once per session: tests/conftest.py)."""
    assert check_output["code"] == 0
    text: str = check_output["text"]
    return text


@pytest.fixture
def check_json(check_output: dict[str, Any]) -> Any:
    """The parsed output of ``scaledattn check --json`` (run once per session)."""
    assert check_output["json_code"] == 0
    return check_output["json"]


def test_check_shows_each_theorems_numeric_witnesses(check_text: str) -> None:
    assert "q ~ coin, k ~ coin, dₖ = 64: Var(q·k) expected 64, measured 64 (exact)" in check_text
    assert "(Monte Carlo, n = " in check_text
    assert "Numbers agree:" in check_text


def test_check_json_carries_the_witness_data(check_json: Any) -> None:
    assert check_json["verified"] is True
    assert check_json["agrees"] is True
    for theorem in check_json["theorems"]:
        numeric = theorem["numeric"]
        assert numeric["agrees"] is True
        assert numeric["settings"]
        for s in numeric["settings"]:
            assert s["steps"]
            assert all(step["agrees"] for step in s["steps"])
            assert s["measurement"]["method"] in METHODS


def test_every_theorem_has_a_numeric_witness(check_json: Any) -> None:
    assert all(t["numeric"]["tested"] for t in check_json["theorems"])
    assert all(t["numeric"]["agrees"] for t in check_json["theorems"])


def test_check_shows_the_softmax_witnesses(check_text: str) -> None:
    assert (
        "n = 3, i = 1, m = 3, s = (1/2, -1, 2): pᵢ·δᵢₘ - pᵢ·pₘ = -0.137707612257204;" in check_text
    )
    assert "central difference of ∂pᵢ/∂sₘ (h = 1e-21): -0.137707612257204 ± " in check_text
    assert "from √2 = 1.4142135623731 at λ = 16, 32, 64, 128" in check_text
    assert "r = (4, 5/2, 11/2): softmax(r, i, n, p') = pᵢ = 0.0391125732706874" in check_text
    assert "evaluated directly" in check_text
    assert "No numeric witness yet" not in check_text


def test_check_fails_when_numbers_refute_a_step_the_kernel_accepted(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = SimpleNamespace(evidence=lambda: {"wrong_variance": ({"X": "bernoulli:p=1/3"},)})
    fake = TheoremModule("wrong", "a false rule", (WRONG,), module)  # type: ignore[arg-type]
    monkeypatch.setattr(
        "scaledattn.cli.theorems.theorem_modules", lambda: (*theorem_modules(), fake)
    )
    assert main(["check"]) == 1
    out = capsys.readouterr().out
    assert "wrong_variance" in out
    assert "VERIFIED  UNREAD   DIFFER" in out  # an axiom: the checker never checks it
    assert "step 1 (by variance_is_second_moment) changes the value from 2/9 to 1/3" in out
    assert "Numbers DIFFER for: wrong_variance" in out


def test_check_fails_when_numbers_refute_a_softmax_step_the_kernel_accepted(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    p, s, i, m = grad.p, grad.s, grad.i, grad.m
    plus = p[i] * KroneckerDelta(i, m) + p[i] * p[m]
    rule = axiom(
        Rule(
            "jacobian_plus",
            "false",
            lambda e, c, env: (plus, frozenset()) if isinstance(e, Deriv) else None,
        )
    )
    wrong = (
        calc("wrong_jacobian", Deriv(p[i], s[m]), plus, assuming=grad.softmax_gradient.assumptions)
        .eq(plus, by=rule)
        .qed()
    )
    module = SimpleNamespace(
        evidence=lambda: {"wrong_jacobian": ({"n": 3, "i": 1, "m": 3, "s": [0, 1, 2]},)}
    )
    fake = TheoremModule("wrong", "a false rule", (wrong,), module)  # type: ignore[arg-type]
    monkeypatch.setattr("scaledattn.cli.theorems.theorem_modules", lambda: (fake,))
    assert main(["check"]) == 1
    out = capsys.readouterr().out
    assert "wrong_jacobian" in out
    assert "VERIFIED  UNREAD   DIFFER" in out  # an axiom: the checker never checks it
    assert (
        "step 1 (by jacobian_plus) changes the value from -0.0598920245448189 to 0.0598920245448189"
        in out
    )
    assert "Numbers DIFFER for: wrong_jacobian" in out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_check_that_has_work_to_do_shows_its_progress_on_a_terminal(
    check_output: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The session's theorems are checked already (check_output); the progress of a cold
    # check is what checked_all reports, counted here, and what cmd_check shows of it.
    import scaledattn.cache

    original, told = scaledattn.cache.checked_all, []

    def counted(pairs: Any, progress: Any = None) -> Any:
        for done in range(1, 2 * len(pairs) + 1):  # as a cold cache would report
            progress(done, 2 * len(pairs))
            told.append(done)
        return original(pairs, progress)

    stream = _Terminal()
    monkeypatch.setattr("sys.stderr", stream)
    monkeypatch.setattr(scaledattn.cache, "checked_all", counted)
    code, out = _run(["check", "--brief"])
    assert code == 0
    assert "check: the kernel, then the numbers" in stream.getvalue()
    assert "check: the kernel" not in out
    assert told[-1] == 2 * sum(len(m.derivations) for m in theorem_modules())


def test_checked_all_reports_an_audit_and_a_witness_for_each_derivation_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import scaledattn.cache

    module = next(m for m in theorem_modules() if m.name == "variance_of_sum")
    pairs = [(module, d) for d in module.derivations]
    monkeypatch.setattr(scaledattn.cache, "_known", lambda m, d: None)
    told: list[tuple[int, int]] = []
    scaledattn.cache.checked_all(pairs, lambda done, total: told.append((done, total)))
    total = 2 * len(pairs)
    assert told == [(n, total) for n in range(1, total + 1)]
