"""Defaults never contradict the user: a default is kept only while consistent with the lines."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

from scaledattn.automation.consistency import kept_defaults
from scaledattn.cli import main
from scaledattn.kernel import E, IndependentComponents, Moment, RandomVector, Var

Capture = pytest.CaptureFixture[str]
d = sympy.Symbol("d_k", integer=True, positive=True)
i = sympy.Symbol("i", integer=True, positive=True)
q, k = RandomVector("q", d), RandomVector("k", d)


def _header(tmp_path: Path, text: str, capsys: Capture) -> str:
    file = tmp_path / "t.proof"
    file.write_text(text, encoding="utf-8")
    main(["check-proof", str(file)])
    return capsys.readouterr().out.splitlines()[1]


def test_a_default_the_users_line_contradicts_is_dropped_and_named(
    tmp_path: Path, capsys: Capture
) -> None:
    # issue 30, example 2: E[qᵢkᵢ] = 1 against independent mean-0 components
    header = _header(
        tmp_path,
        "theorem bad: 1 = 0\nassume: E(q_i*k_i) = 1\n"
        "  1\n  = E(q_1*k_1)\n  = E(q_1)*E(k_1)\n  = 0\n",
        capsys,
    )
    assert "IndependentComponents(k, q) (default dropped: inconsistent" in header
    assert "E[qᵢ] = 0 for every i (default);" in header


def test_the_defaults_in_force_are_marked_as_defaults(tmp_path: Path, capsys: Capture) -> None:
    header = _header(
        tmp_path, "theorem t: Var(dot(q, k)) = d_k\n  = d_k  by dot_product_variance\n", capsys
    )
    assert "IndependentComponents(q, k) (default)" in header
    assert "Var(qᵢ) = 1 for every i (default)" in header
    assert "dropped" not in header


def test_kept_defaults_keeps_every_default_without_a_users_line() -> None:
    defaults = [IndependentComponents(q, k), Moment(E(q[i]), 0), Moment(Var(q[i]), 1)]
    assert kept_defaults([], defaults) == (defaults, [])


def test_kept_defaults_drops_the_variance_a_schematic_covariance_contradicts() -> None:
    j = sympy.Symbol("j", integer=True, positive=True)
    from scaledattn.kernel import Cov

    declared = [Moment(Cov(q[i], q[j]), 0)]
    defaults = [IndependentComponents(q), Moment(E(q[i]), 0), Moment(Var(q[i]), 1)]
    kept, dropped = kept_defaults(declared, defaults, [Var(q[1])])
    assert [a for a, _ in dropped] == [Moment(Var(q[i]), 1)]
    assert kept == defaults[:2]
