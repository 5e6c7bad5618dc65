"""The gate's first half: a verdict only with a model of every assumption in force."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from scaledattn.cli import main
from scaledattn.gate import NO_MODEL, confirmed_counterexample, model_line, model_of
from scaledattn.kernel import (
    Cov,
    Dot,
    E,
    Independent,
    IndependentComponents,
    Moment,
    RandomVector,
    Var,
    random_variables,
)
from scaledattn.numeric.semantics import World, check_world

Capture = pytest.CaptureFixture[str]
X, Y = random_variables("X Y")
d = sympy.Symbol("d_k", integer=True, positive=True)
i = sympy.Symbol("i", integer=True, positive=True)
q, k = RandomVector("q", d), RandomVector("k", d)
DEFAULTS = [
    IndependentComponents(q, k),
    Moment(E(q[i]), 0),
    Moment(E(k[i]), 0),
    Moment(Var(q[i]), 1),
    Moment(Var(k[i]), 1),
]


def test_the_model_found_satisfies_every_assumption_by_the_semantics() -> None:
    for assumptions in (DEFAULTS, [Independent(X, Y), Moment(Var(X), 4), Moment(E(Y), 1)]):
        world = model_of([Var(Dot(q, k)), Var(X + Y)], assumptions)
        assert world is not None
        assert check_world(world, tuple(assumptions)) == ""


def test_a_dependent_model_is_found_for_a_declared_product_moment() -> None:
    # E[qᵢkᵢ] = 1 with mean-0, variance-1 components: kᵢ = qᵢ is a model
    assumptions = [Moment(E(q[i] * k[i]), 1), *DEFAULTS[1:]]
    world = model_of([Var(Dot(q, k))], assumptions)
    assert world is not None
    assert check_world(world, tuple(assumptions)) == ""


def test_no_model_is_found_where_none_exists() -> None:
    # E[X⁴] ≥ E[X²]² = 4 > 1: no law has these moments
    assert model_of([E(X**4)], [Moment(E(X**4), 1), Moment(Var(X), 2), Moment(E(X), 0)]) is None
    assert model_of([E(X)], [Moment(E(2 * X), 3), Moment(E(X), 1)]) is None


def test_the_model_line_shows_the_law_and_hides_schematic_indices() -> None:
    world = model_of([Var(Dot(q, k))], DEFAULTS)
    assert world is not None
    line = model_line(world, DEFAULTS)
    assert line.startswith("a model of the assumptions: d_k = ")
    assert "q_1 ∈ {-1, 1}" in line
    assert " i = " not in line


def test_a_counterexample_is_confirmed_only_in_a_model_of_every_assumption() -> None:
    half = Fraction(1, 2)
    same = World(
        outcomes=((half, {("X", 0): 1, ("Y", 0): 1}), (half, {("X", 0): -1, ("Y", 0): -1}))
    )
    lhs, rhs = Var(X + Y), Var(X) + Var(Y)
    assert confirmed_counterexample(lhs, rhs, same, [])  # 4 ≠ 2 where Y = X
    assert not confirmed_counterexample(lhs, rhs, same, [Independent(X, Y)])
    assert not confirmed_counterexample(Cov(X, Y), Cov(Y, X), same, [])


def test_verify_withholds_its_verdict_without_a_model(capsys: Capture) -> None:
    argv = ["verify", "E(X**4) = 1", "--assume", "E(X**4) = 1", "--assume", "Var(X) = 2",
            "--assume", "E(X) = 0"]  # fmt: skip
    assert main(argv) == 3
    out = capsys.readouterr().out
    assert "UNDECIDED" in out
    assert NO_MODEL in out


def test_verify_shows_the_model_in_one_line(capsys: Capture) -> None:
    assert main(["verify", "Var(X + Y) = Var(X) + Var(Y)", "--assume", "independent(X, Y)"]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if "a model of the assumptions" in x]
    assert len(lines) == 1
    assert lines[0].split()[0] == "model"


def test_check_proof_withholds_its_verdict_without_a_model(tmp_path: Path, capsys: Capture) -> None:
    file = tmp_path / "t.proof"
    file.write_text(
        "theorem t: E(X**4) = 1\nassume: E(X**4) = 1\nassume: Var(X) = 2\nassume: E(X) = 0\n"
        "  = 1\n",
        encoding="utf-8",
    )
    assert main(["check-proof", str(file)]) == 3
    out = capsys.readouterr().out
    assert f"UNDECIDED t: {NO_MODEL}" in out


def test_check_proof_shows_the_model_under_the_assumptions(tmp_path: Path, capsys: Capture) -> None:
    file = tmp_path / "t.proof"
    file.write_text(
        "theorem t: Var(X + Y) = Var(X) + Var(Y)\nassume: independent(X, Y)\n  = Var(X) + Var(Y)\n",
        encoding="utf-8",
    )
    assert main(["check-proof", str(file)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("  assuming: Independent(X, Y)")
    assert lines[2].startswith("  a model of the assumptions: X ∈ ")


def test_a_verify_counterexample_says_it_is_a_model_of_every_assumption(capsys: Capture) -> None:
    argv = ["verify", "Var(X + Y + Z) = Var(X) + Var(Y) + Var(Z)", "--assume", "independent(X, Y)"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.lstrip().startswith("counterexample"))
    assert line.endswith("(a model of every assumption, each checked by the semantics)")


def test_a_check_proof_counterexample_says_it_is_a_model_of_every_assumption(
    tmp_path: Path, capsys: Capture
) -> None:
    file = tmp_path / "t.proof"
    file.write_text(
        "theorem t: Var(X + Y) = Var(X) + Var(Y)\n  = Var(X) + Var(Y)\n", encoding="utf-8"
    )
    assert main(["check-proof", str(file)]) == 1
    assert "a model of every assumption where the two sides differ: " in capsys.readouterr().out
