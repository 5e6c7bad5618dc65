"""The model search fits a correlated pair: Cov(qᵢ, kᵢ) = ρ with the jointly Gaussian E[qᵢ²kᵢ²].

Per index, X = μ_X + σ_X·U and Y = (c/σ_X²)·X + Y₀ (numeric/worlds.py, ``_pair_laws``):
a declared E[X²Y²] fixes U's fourth moment (3 for the Gaussian's 1 + 2ρ²), a free ρ takes
a correlation of ``CORRELATIONS``, and the semantics checks every assumption on the world.
"""

from __future__ import annotations

import importlib
from fractions import Fraction

import pytest
import sympy

from scaledattn.claims.verify import verify
from scaledattn.cli import main
from scaledattn.gate import model_of
from scaledattn.kernel import (
    Cov,
    Dot,
    E,
    Independent,
    IndependentPairs,
    Moment,
    RandomVector,
    Var,
    random_variables,
)
from scaledattn.numeric.semantics import check_world, equal, plus, value
from scaledattn.numeric.worlds import CORRELATIONS, RandomChooser, draw_world

Capture = pytest.CaptureFixture[str]
X, Y = random_variables("X Y")
d = sympy.Symbol("d_k", integer=True, positive=True)
i = sympy.Symbol("i", integer=True, positive=True)
rho = sympy.Symbol("rho", real=True)
q, k = RandomVector("q", d), RandomVector("k", d)


def _gaussian_pair(c: sympy.Expr) -> list[Moment | IndependentPairs]:
    """The verifier's context for Cov(qᵢ, kᵢ) = c: zero means, the Gaussian E[qᵢ²kᵢ²]."""
    return [
        IndependentPairs(q, k),
        Moment(E(q[i]), 0),
        Moment(E(k[i]), 0),
        Moment(Cov(q[i], k[i]), c),
        Moment(E(q[i] ** 2 * k[i] ** 2), 1 + 2 * c**2),
    ]


def test_a_rational_correlation_gets_a_model_with_exactly_that_covariance() -> None:
    assumptions = _gaussian_pair(sympy.Rational(3, 5))
    world = model_of([Var(Dot(q, k))], assumptions)
    assert world is not None
    assert check_world(world, tuple(assumptions)) == ""
    assert equal(value(Cov(q[1], k[1]), world), Fraction(3, 5))  # to 40 digits (√3 in the law)


def test_a_free_correlation_takes_a_value_within_its_bounds_and_every_draw_is_a_model() -> None:
    assumptions = _gaussian_pair(rho)
    chooser = RandomChooser(1)
    seen = set()
    for _ in range(12):
        world, why = draw_world([Var(Dot(q, k))], assumptions, chooser, shrink=True)
        assert world is not None, why
        assert check_world(world, tuple(assumptions)) == ""
        assert world.values[rho] in CORRELATIONS  # exact, |ρ| ≤ 1
        seen.add(world.values[rho])
    assert len(seen) > 1  # not only the independent pair ρ = 0


def test_a_correlation_at_its_bound_makes_one_a_copy_of_the_other() -> None:
    assumptions = _gaussian_pair(sympy.Integer(-1))
    world = model_of([Var(Dot(q, k))], assumptions)
    assert world is not None
    assert all(equal(plus(omega[("k", 1)], omega[("q", 1)]), 0) for _, omega in world.outcomes)


def test_declared_fourth_moments_of_both_are_fitted_with_the_cross_moment() -> None:
    r = Fraction(4, 5)
    assumptions = [
        Moment(E(X), 0),
        Moment(E(Y), 0),
        Moment(Var(X), 1),
        Moment(Var(Y), 1),
        Moment(E(X**4), 3),
        Moment(E(Y**4), 3),
        Moment(Cov(X, Y), sympy.Rational(4, 5)),
        Moment(E(X**2 * Y**2), 1 + 2 * sympy.Rational(4, 5) ** 2),
    ]
    world = model_of([Var(X * Y)], assumptions)
    assert world is not None
    assert check_world(world, tuple(assumptions)) == ""
    assert equal(value(Var(X * Y), world), 1 + r**2)


def test_a_declared_variance_sets_the_covariance_scale() -> None:
    # Var(qᵢ) = 4: Cov = 2 is a correlation of 1 only if Var(kᵢ) is 1; the variance of kᵢ,
    # undeclared, is the one the Gaussian E[qᵢ²kᵢ²] = σ_q²σ_k² + 2c² = 12 gives
    assumptions = [
        IndependentPairs(q, k),
        Moment(E(q[i]), 0),
        Moment(E(k[i]), 0),
        Moment(Var(q[i]), 4),
        Moment(Cov(q[i], k[i]), 2),
        Moment(E(q[i] ** 2 * k[i] ** 2), 12),
    ]
    world = model_of([Var(Dot(q, k))], assumptions)
    assert world is not None
    assert check_world(world, tuple(assumptions)) == ""
    assert equal(value(Var(k[1]), world), Fraction(1))


def test_no_model_breaks_cauchy_schwarz_or_a_declared_independence() -> None:
    beyond = [Moment(Var(X), 1), Moment(Var(Y), 1), Moment(Cov(X, Y), 2)]
    assert model_of([Var(X + Y)], beyond) is None
    # independent(X, Y) with Cov(X, Y) = ρ: the only models have ρ = 0
    world = model_of([Var(X + Y)], [Independent(X, Y), Moment(Cov(X, Y), rho)])
    assert world is not None
    assert world.values[rho] == 0


def test_a_true_correlated_claim_is_proved_with_a_model_shown(capsys: Capture) -> None:
    result = verify("Var(q·k) = d_k*(1 + rho**2)", ["Cov(q_i, k_i) = rho"])
    assert result.verdict.name == "VERIFIED"
    (model,) = [e.summary for e in result.evidence if e.kind == "model"]
    assert model.startswith("a model of the assumptions: ")
    assert model.endswith("(each assumption checked on it)")
    assert main(["verify", "Var(q·k) = d_k*(1 + rho**2)", "--assume", "Cov(q_i, k_i) = rho"]) == 0
    assert "a model of the assumptions: " in capsys.readouterr().out


def test_a_false_correlated_claim_is_refuted_by_a_confirmed_counterexample() -> None:
    result = verify("Var(q·k) = d_k", ["Cov(q_i, k_i) = rho"])
    assert result.verdict.name == "REFUTED"
    assert result.counterexample is not None
    assert set(result.counterexample) == {"model", "left", "right"}
    (line,) = [e.summary for e in result.evidence if e.kind == "counterexample"]
    assert "(a model of every assumption, each checked by the semantics)" in line
    assert "rho = " in line
    assert "rho = 0," not in line  # a correlated model: ρ ≠ 0 there


def test_the_counterexample_of_the_gates_search_satisfies_every_assumption() -> None:
    verify_module = importlib.import_module("scaledattn.claims.verify")
    parsed = verify_module.parse_claim("Var(q·k) = d_k")
    setup = verify_module.prepare(parsed, [verify_module.parse_assumption("Cov(q_i, k_i) = rho")])
    from scaledattn.gate import counterexample_world

    fixed = {d: Fraction(1), rho: Fraction(-1)}
    world = counterexample_world(Var(Dot(q, k)), d, setup.assumptions, fixed=fixed)
    assert world is not None
    assert check_world(world, tuple(setup.assumptions)) == ""
    assert equal(value(Var(Dot(q, k)), world), Fraction(2))  # d_k(1 + ρ²) at d_k = 1, ρ = −1


@pytest.mark.parametrize("assume", [["Cov(q_i, k_i) = 2"], ["Cov(q_i, k_i) = rho", "rho = -3/2"]])
def test_a_correlation_beyond_one_is_refused_in_one_line(
    assume: list[str], capsys: Capture
) -> None:
    argv = ["verify", "E(q·k) = d_k*rho"]
    for a in assume:
        argv += ["--assume", a]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "a correlation lies in [-1, 1] (Cauchy–Schwarz)" in err


@pytest.mark.parametrize("c", [sympy.Integer(0), sympy.Rational(1, 2), rho])
def test_a_variance_declared_zero_beside_a_covariance_is_judged_not_divided_by(
    c: sympy.Expr,
) -> None:
    # Var(X) = 0 with Cov(X, Y) = c and Y's variance free: the fit divided by Var(X)
    # (a ZeroDivisionError the fuzzer drew); a model only where c = 0 allows one
    assumptions = [Moment(Var(X), 0), Moment(Cov(X, Y), c)]
    chooser = RandomChooser(3)
    for _ in range(4):
        world, _why = draw_world([Var(X + Y)], assumptions, chooser, shrink=True)
        if world is not None:
            assert check_world(world, tuple(assumptions)) == ""
            assert equal(value(Cov(X, Y), world), 0)
