"""Numeric witnesses of the softmax theorems: scores, derivatives and limits on numbers.

The evaluator must agree with every kernel-accepted step of the real derivations,
and refute a wrong step that a fake rule makes the kernel accept: a Jacobian with
the wrong sign, the gradient y − p, a limit √2 replaced by 2.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import KroneckerDelta, S, Symbol

from scaledattn.cache import witness_of
from scaledattn.derive import audit_of, calc
from scaledattn.kernel import (
    Axiom,
    Deriv,
    Derivation,
    Equation,
    Lim,
    Rule,
    ZeroMean,
    axiom,
    random_variables,
)
from scaledattn.numeric.calculus import CalculusEvaluator
from scaledattn.numeric.evidence import derivation_evidence
from scaledattn.numeric.scores import default_score_settings, read_setting
from scaledattn.proofs import saturation_limits as sat
from scaledattn.proofs import shift_invariance as shift
from scaledattn.proofs import softmax_gradient as grad
from scaledattn.registry import theorem_modules
from tests.strategies import score_lists

MODULES = (grad, sat, shift)
SOFTMAX = [(m, d) for m in MODULES for d in m.derivations if d.name in m.evidence()]
#: The registry's entry of each proof module, for ``witness_of``.
REGISTERED = {t.module: t for t in theorem_modules()}


def module_witness(module: Any, derivation: Derivation) -> Any:
    """``derivation_evidence(derivation, module.evidence()[name])``, once per process.

    ``witness_of`` computes it the first time it is asked for and keeps it (fixed seeds:
    it is deterministic); `check` and the generated pages ask for the same.
    """
    return witness_of(REGISTERED[module], derivation)


delta = KroneckerDelta


def fake(name: str, rewrite: Any) -> Axiom:
    """A rule that is not a law, declared an axiom: the kernel accepts what it gives."""

    def local(e: Any, ctx: Any, env: Any) -> Any:
        out = rewrite(e)
        return None if out is None else (out, frozenset())

    return axiom(Rule(name, f"{name} (false)", local))


def refuted_steps(d: Derivation, settings_: Any) -> list[set[tuple[int, str]]]:
    """For each setting, the (number, rule) of the steps whose two sides differ."""
    assert audit_of(d).verified, "the kernel must accept the wrong step (that is the point)"
    w = derivation_evidence(d, settings_)
    assert w.tested
    return [{(s.number, s.label) for s in setting.disagreements()} for setting in w.settings]


# ----------------------------------------------------------- the real derivations


@pytest.mark.parametrize(("module", "derivation"), SOFTMAX, ids=lambda x: getattr(x, "name", ""))
def test_every_softmax_derivation_agrees_with_numbers_on_its_evidence(
    module: Any, derivation: Derivation
) -> None:
    w = module_witness(module, derivation)
    assert w.source == "evidence()"
    assert w.agrees, w.as_json()
    for s in w.settings:
        assert s.measurement is not None
        assert len(s.steps) == len(derivation.steps) + 1


@pytest.mark.parametrize(
    ("derivation", "method"),
    [
        (grad.softmax_gradient, "central-difference"),
        (grad.cross_entropy_gradient, "central-difference"),
        (sat.p_minus_y_limit, "growing-λ"),
        (shift.shift_invariance, "direct"),
    ],
    ids=lambda x: getattr(x, "name", x),
)
def test_the_statement_is_measured_by_a_route_that_fits_it(
    derivation: Derivation, method: str
) -> None:
    module = next(m for m in MODULES if derivation in m.derivations)
    w = module_witness(module, derivation)
    assert {s.measurement.method for s in w.settings if s.measurement} == {method}


@pytest.mark.parametrize(
    ("derivation", "a", "b"),
    [
        (grad.softmax_gradient, "i", "m"),
        (grad.cross_entropy_gradient, "m", "t"),
        (sat.saturation_limits, "i", "w"),
        (sat.backward_vanishes, "m", "w"),
        (shift.softmax_of_differences, "i", "w"),
    ],
    ids=lambda x: getattr(x, "name", x),
)
def test_the_evidence_covers_equal_and_different_indices(derivation: Any, a: str, b: str) -> None:
    module = next(m for m in MODULES if derivation in m.derivations)
    cases = {s[a] == s[b] for s in module.evidence()[derivation.name]}
    assert cases == {True, False}
    assert {s["n"] for s in module.evidence()[derivation.name]} >= {3, 8}


def test_settings_built_from_the_assumptions_agree_too() -> None:
    for _, d in SOFTMAX:
        w = derivation_evidence(d)
        assert w.source == "assumptions"
        assert w.agrees, w.as_json()


def test_default_settings_keep_declared_distinct_indices_apart() -> None:
    small, large = default_score_settings(sat.p_minus_y_limit)
    assert small["t"] != small["w"]
    assert (small["n"], large["n"]) == (3, 8)
    small, large = default_score_settings(grad.softmax_gradient)
    assert small["i"] == small["m"]
    assert large["i"] != large["m"]


# ------------------------------------------------------- independent of the kernel


def _softmax(scores: list[Fraction]) -> Any:
    x = np.array([float(v) for v in scores])
    e = np.exp(x - x.max())
    return e / e.sum()


@settings(max_examples=20)
@given(score_lists(), st.data())
def test_the_jacobian_from_sympy_diff_matches_diag_p_minus_p_p_transpose(
    scores: list[Fraction], data: st.DataObject
) -> None:
    n = len(scores)
    i, m = data.draw(st.integers(1, n)), data.draw(st.integers(1, n))
    setting = read_setting(grad.softmax_gradient, {"n": n, "i": i, "m": m, "s": scores})
    value = float(CalculusEvaluator(setting).value(grad.softmax_gradient.statement.lhs))
    p = _softmax(scores)
    jacobian = np.diag(p) - np.outer(p, p)
    # float64 weights of at most 6 scores in [−4, 4]: each within (2·4 + 6 + 3)·eps
    # relatively, so an entry of diag(p) − ppᵀ is within 4·17·eps ≈ 1.5e-14 absolutely.
    assert value == pytest.approx(jacobian[i - 1, m - 1], abs=1e-12)


@settings(max_examples=15)
@given(score_lists(), st.data())
def test_the_central_difference_agrees_with_sympy_diff(
    scores: list[Fraction], data: st.DataObject
) -> None:
    n = len(scores)
    m, t = data.draw(st.integers(1, n)), data.draw(st.integers(1, n))
    d = grad.cross_entropy_gradient
    setting = read_setting(d, {"n": n, "m": m, "t": t, "s": scores})
    exact = CalculusEvaluator(setting).value(d.statement.lhs)
    central = CalculusEvaluator(setting, difference=Fraction(1, 10**21)).value(d.statement.lhs)
    # h = 1e-21: the truncation error h²·|f‴|/6 is below 1e-41; the enclosures are
    # rigorous, so their difference is bounded below 1e-30 with a wide margin.
    gap = exact.last - central.last
    assert max(abs(gap.a), abs(gap.b)) < 1e-30
    y = np.eye(n)[t - 1]
    # float64 softmax on at most 6 scores in [−4, 4]: relative error below (2·4 + 6 + 3)·eps.
    assert float(exact) == pytest.approx((_softmax(scores) - y)[m - 1], abs=1e-12)


@settings(max_examples=15)
@given(score_lists(), st.data())
def test_every_step_of_the_gradients_agrees_on_random_scores(
    scores: list[Fraction], data: st.DataObject
) -> None:
    n = len(scores)
    i, m = data.draw(st.integers(1, n)), data.draw(st.integers(1, n))
    w = derivation_evidence(grad.softmax_gradient, [{"n": n, "i": i, "m": m, "s": scores}])
    assert w.agrees, w.as_json()
    w = derivation_evidence(grad.cross_entropy_gradient, [{"n": n, "m": m, "t": i, "s": scores}])
    assert w.agrees, w.as_json()


@settings(max_examples=10)
@given(score_lists(min_len=2), st.data())
def test_the_cross_entropy_gradient_tends_to_norm_root_two_on_random_scores(
    scores: list[Fraction], data: st.DataObject
) -> None:
    n = len(scores)
    t, w = data.draw(st.lists(st.integers(1, n), min_size=2, max_size=2, unique=True))
    witness = derivation_evidence(sat.p_minus_y_limit, [{"n": n, "t": t, "w": w, "s": scores}])
    assert witness.agrees, witness.as_json()


# ----------------------------------------------------- wrong steps, refuted


def test_a_jacobian_with_the_wrong_sign_is_refuted() -> None:
    p, s, i, m = grad.p, grad.s, grad.i, grad.m
    plus = p[i] * delta(i, m) + p[i] * p[m]
    rule = fake("jacobian_plus", lambda e: plus if isinstance(e, Deriv) else None)
    wrong = calc(
        "jacobian_plus", Deriv(p[i], s[m]), plus, assuming=grad.softmax_gradient.assumptions
    )
    wrong = wrong.eq(plus, by=rule).qed()
    settings_ = grad.evidence()["softmax_gradient"]
    assert refuted_steps(wrong, settings_) == [{(1, "jacobian_plus")}] * len(settings_)


def test_a_jacobian_without_its_diagonal_is_refuted_only_where_i_equals_m() -> None:
    p, s, i, m = grad.p, grad.s, grad.i, grad.m
    rule = fake("no_delta", lambda e: -p[i] * p[m] if isinstance(e, Deriv) else None)
    wrong = calc(
        "no_delta", Deriv(p[i], s[m]), -p[i] * p[m], assuming=grad.softmax_gradient.assumptions
    )
    wrong = wrong.eq(-p[i] * p[m], by=rule).qed()
    settings_ = grad.evidence()["softmax_gradient"]
    found = refuted_steps(wrong, settings_)
    for setting, steps in zip(settings_, found, strict=True):
        assert bool(steps) == (setting["i"] == setting["m"])


def test_the_gradient_y_minus_p_is_refuted() -> None:
    d = grad.cross_entropy_gradient
    y, p, m = grad.y, grad.p, grad.m
    rule = fake("y_minus_p", lambda e: y[m] - p[m] if isinstance(e, Deriv) else None)
    wrong = calc("y_minus_p", d.statement.lhs, y[m] - p[m], assuming=d.assumptions)
    wrong = wrong.eq(y[m] - p[m], by=rule).qed()
    settings_ = grad.evidence()["cross_entropy_gradient"]
    assert refuted_steps(wrong, settings_) == [{(1, "y_minus_p")}] * len(settings_)


def test_a_limit_of_two_instead_of_root_two_is_refuted_at_that_step() -> None:
    d = sat.p_minus_y_limit
    rule = fake("limit_is_two", lambda e: S(2) if isinstance(e, Lim) else None)
    steps = list(d.steps)
    steps[-1] = replace(steps[-1], rule=rule, claim=S(2))
    wrong = replace(d, steps=tuple(steps), statement=Equation(d.statement.lhs, S(2)))
    found = refuted_steps(wrong, sat.evidence()["p_minus_y_limit"])
    assert found == [{(len(steps), "limit_is_two")}] * 2
    w = derivation_evidence(wrong, sat.evidence()["p_minus_y_limit"][:1])
    assert not w.settings[0].measurement.agrees  # the statement itself, by growing λ


def test_a_wrong_rewrite_inside_a_limit_is_refuted() -> None:
    d = sat.saturation_limits
    uniform = Lim(1 / sat.n, sat.lam)
    rule = fake("uniform", lambda e: uniform if isinstance(e, Lim) and e != uniform else None)
    wrong = calc("uniform", d.statement.lhs, 1 / sat.n, assuming=d.assumptions)
    wrong = wrong.eq(uniform, by=rule).eq(1 / sat.n, by="limit_at_infinity").qed()
    found = refuted_steps(wrong, sat.evidence()["saturation_limits"])
    assert found == [{(1, "uniform")}] * 3


# ------------------------------------------------------- settings and their checks


@pytest.mark.parametrize(
    ("derivation", "setting", "words"),
    [
        (grad.softmax_gradient, {"n": 3, "i": 1, "m": 4, "s": [0, 0, 0]}, "m ∈ 1..n: m = 4"),
        (sat.p_minus_y_limit, {"n": 3, "t": 2, "w": 2, "s": [0, 1, 2]}, "t ≠ w: both are 2"),
        (
            grad.cross_entropy_gradient,
            {"n": 3, "m": 1, "t": 2, "s": [0, 1, 2], "y": [1, 0, 0]},
            "lists y_1 = 1, the definition gives 0",
        ),
        (
            shift.shift_invariance,
            {"n": 3, "i": 1, "a": 1, "s": [0, 1, 2], "r": [1, 2, 4]},
            "lists r_3 = 4, the definition gives 3",
        ),
        (
            sat.saturation_limits,
            {"n": 3, "i": 1, "w": 2, "s": [0, 1, 2], "r": [0, 1, 2]},
            "only a limit binds",
        ),
        (grad.softmax_gradient, {"n": 3, "i": 5, "m": 1, "s": [0, 0, 0]}, "i = 5 is outside 1..3"),
        (grad.softmax_gradient, {"n": 3, "i": 1, "m": 1, "s": [0, 0]}, "s has 2 entries"),
        (grad.softmax_gradient, {"n": 3, "i": 1, "m": 1, "s": "0,0,0"}, "list of 3 numbers"),
        (grad.softmax_gradient, {"n": 3, "i": 1, "m": 1}, "no values for s"),
        (grad.softmax_gradient, {"n": 3, "m": 1, "s": [0, 0, 0]}, "no value for i"),
        (grad.softmax_gradient, {"n": 3, "i": 1, "m": 1, "s": [0, 0, 0], "z": 1}, "lacks"),
        (grad.softmax_gradient, {"n": 3, "i": "1/2", "m": 1, "s": [0, 0, 0]}, "positive integer"),
        (grad.softmax_gradient, {"n": 3, "i": 1, "m": 1, "s": {"sed": 1}}, "'seed': S"),
        (grad.softmax_gradient, {"n": 3, "i": 1, "m": 1, "s": {"seed": 1, "scale": 0}}, "scale"),
        (
            shift.softmax_of_scaled_differences,
            {"n": 3, "i": 1, "w": 1, "c": -2, "s": [0, 1, 2]},
            "c is positive",
        ),
        (grad.softmax_gradient, {"n": 3, "i": 1, "m": 1, "s": [0, "nan", 0]}, "not a number"),
    ],
)
def test_settings_that_break_the_assumptions_or_the_shape_are_refused(
    derivation: Derivation, setting: dict[str, Any], words: str
) -> None:
    w = derivation_evidence(derivation, [setting])
    (s,) = w.settings
    assert not s.agrees
    assert not s.unsupported
    assert words in s.error


def test_a_vector_computed_from_its_definition_is_reported_with_the_setting() -> None:
    w = derivation_evidence(grad.cross_entropy_gradient, [{"n": 3, "m": 1, "t": 2, "s": [0, 1, 2]}])
    assert w.settings[0].values["y"] == ["0", "1", "0"]
    assert w.as_json()["settings"][0]["values"]["s"] == ["0", "1", "2"]


def test_seeded_scores_are_reproducible_exact_rationals() -> None:
    data = {"n": 8, "i": 1, "m": 2, "s": {"seed": 3, "scale": 2}}
    first = read_setting(grad.softmax_gradient, data).vectors["s"]
    assert first == read_setting(grad.softmax_gradient, data).vectors["s"]
    assert all(isinstance(x, Fraction) and (x * 1000).denominator == 1 for x in first)
    assert "s ~ N(0, 2²) seed 3" in read_setting(grad.softmax_gradient, data).describe()


def test_a_limit_that_converges_too_slowly_gets_no_witness_rather_than_a_refutation() -> None:
    lam = Symbol("lambda", real=True)
    slow = calc("slow", Lim(1 / lam, lam), S.Zero).qed()
    w = derivation_evidence(slow, [{}])
    assert not w.tested
    assert not w.refuted
    assert "neither settles at 0 nor stops shrinking" in w.settings[0].error


def test_what_the_evaluator_cannot_judge_is_no_witness_not_a_refutation() -> None:
    r, i, m = shift.r, shift.i, Symbol("m", integer=True, positive=True)
    p = shift.p_shifted
    by_r = calc("by_r", Deriv(p[i], r[m]), S.Zero, assuming=[*shift.shift_invariance.assumptions])
    (x,) = random_variables("X")
    mixed = calc("mixed", shift.p[i], shift.p[i], assuming=[ZeroMean(x)])
    for d, setting, words in (
        (by_r.qed(), {"n": 3, "i": 1, "m": 2, "a": 1, "s": [0, 1, 2]}, "which is defined"),
        (mixed.qed(), {"n": 3, "i": 1, "s": [0, 1, 2]}, "cannot check the assumption"),
    ):
        w = derivation_evidence(d, [setting])
        assert not w.tested, w.as_json()
        assert not w.refuted
        assert words in w.settings[0].error


def test_a_sample_too_coarse_for_its_cancellation_is_recomputed_with_more_bits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # ‖diag(p) − ppᵀ‖² ≈ e^{−256} at λ = 128, found by cancelling terms of size 1:
    # 256 bits cannot enclose it away from 0, so √ of it (the norm) is undecided at first.
    # The chain of jacobian_vanishes with each limit's body under √ (numbers only: the
    # kernel needs the squared norm, whose sign for large λ its form shows).
    from sympy import sqrt

    from scaledattn.kernel import Derivation, Equation, Lim, as_written

    squared = sat.jacobian_vanishes
    with as_written():
        steps = tuple(
            replace(t, claim=Lim(sqrt(t.claim.args[0]), t.claim.args[1]))
            if isinstance(t.claim, Lim)
            else t
            for t in squared.steps
        )
        lhs = squared.statement.lhs
        norm = Derivation(
            "jacobian_norm_vanishes",
            Equation(Lim(sqrt(lhs.args[0]), lhs.args[1]), S.Zero),
            steps,
            squared.assumptions,
        )
    monkeypatch.setattr("scaledattn.numeric.calculus.precision_for", lambda lam: 256)
    settings_ = sat.evidence()["jacobian_vanishes"]
    assert derivation_evidence(norm, settings_).agrees
    monkeypatch.setattr("scaledattn.numeric.calculus.MAX_PRECISION", 256)
    w = derivation_evidence(norm, settings_)
    assert not w.tested
    assert not w.refuted
    assert "straddles 0" in w.settings[0].error
