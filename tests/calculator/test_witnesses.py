"""The calculator's closed forms agree with independent numeric witnesses.

For random d_k, variances, means and correlations, the kernel-checked closed form is
compared with an exact enumeration (finite component laws, Fractions) or with a
Monte Carlo estimate of Gaussian pairs (fixed seed per example, tolerance of Z = 7
standard errors from the sample's fourth moment: a nominal false-alarm probability
of 2.6e-12 per check, below 1e-8 for a whole ``thorough`` run).
"""

from __future__ import annotations

from fractions import Fraction

import sympy
from hypothesis import given
from hypothesis import strategies as st

import scaledattn
from scaledattn.calculator import Answer
from tests.calculator.witness import (
    estimate_mean,
    estimate_variance,
    gaussian_dot_products,
    mean_and_variance,
    product_law_correlated,
    product_law_independent,
    seed_of,
    sum_law,
    two_point,
)
from tests.profiles import bounded
from tests.strategies import correlations, dims, means, pythagorean_correlations, skews, stds


def _at(answer: Answer, d: int) -> sympy.Expr:
    value: sympy.Expr = answer.expr.subs(answer.setting.d, d)
    return value


def _exact(x: Fraction) -> sympy.Rational:
    return sympy.Rational(x.numerator, x.denominator)


@bounded
@given(
    d=dims(4),
    symbolic=st.booleans(),
    mean_q=means(),
    mean_k=means(),
    std_q=stds(),
    std_k=stds(),
    skew_q=skews(),
    skew_k=skews(),
)
def test_independent_closed_forms_match_exact_enumeration(
    d: int,
    symbolic: bool,
    mean_q: Fraction,
    mean_k: Fraction,
    std_q: Fraction,
    std_k: Fraction,
    skew_q: tuple[int, int],
    skew_k: tuple[int, int],
) -> None:
    options = {
        "d_k": None if symbolic else d,
        "var_q": std_q**2,
        "var_k": std_k**2,
        "mean_q": mean_q,
        "mean_k": mean_k,
    }
    law = product_law_independent(
        two_point(mean_q, std_q, skew_q), two_point(mean_k, std_k, skew_k)
    )
    answers = (
        scaledattn.mean(**options),
        scaledattn.variance(**options),
        scaledattn.scale(**options),
    )
    # An answer for a symbolic d_k holds for every d_k: it is checked at each of 1..4.
    for n in range(1, 5) if symbolic else (d,):
        mean, var = mean_and_variance(sum_law(law, n))
        assert _at(answers[0], n) == _exact(mean)
        assert _at(answers[1], n) == _exact(var)
        c = _at(answers[2], n)
        assert sympy.simplify(_exact(var) / c**2) == 1


@bounded
@given(
    d=dims(3),
    symbolic=st.booleans(),
    mean_q=means(),
    mean_k=means(),
    std_q=stds(),
    std_k=stds(),
    correlation=pythagorean_correlations(),
)
def test_correlated_closed_forms_match_exact_enumeration_of_a_moment_matched_pair(
    d: int,
    symbolic: bool,
    mean_q: Fraction,
    mean_k: Fraction,
    std_q: Fraction,
    std_k: Fraction,
    correlation: tuple[Fraction, Fraction],
) -> None:
    # a, b take five values whose moments 1..4 are those of N(0, 1): every moment the
    # derivation declares (E[qᵢ], E[kᵢ], Cov, E[qᵢ²kᵢ²]) is then the Gaussian one.
    rho, tau = correlation
    options = {
        "d_k": None if symbolic else d,
        "var_q": std_q**2,
        "var_k": std_k**2,
        "mean_q": mean_q,
        "mean_k": mean_k,
        "corr": rho,
    }
    law = product_law_correlated(mean_q, std_q, mean_k, std_k, rho, tau)
    answers = scaledattn.mean(**options), scaledattn.variance(**options)
    # An answer for a symbolic d_k holds for every d_k: it is checked at each of 1..3.
    for n in range(1, 4) if symbolic else (d,):
        mean, var = mean_and_variance(sum_law(law, n))
        assert _at(answers[0], n) == _exact(mean)
        assert _at(answers[1], n) == _exact(var)


@bounded
@given(
    d=dims(16),
    mean_q=means(),
    mean_k=means(),
    std_q=stds(),
    std_k=stds(),
    rho=correlations(),
)
def test_correlated_closed_forms_match_monte_carlo_of_gaussian_pairs(
    d: int,
    mean_q: Fraction,
    mean_k: Fraction,
    std_q: Fraction,
    std_k: Fraction,
    rho: Fraction,
) -> None:
    options = {
        "d_k": d,
        "var_q": std_q**2,
        "var_k": std_k**2,
        "mean_q": mean_q,
        "mean_k": mean_k,
        "corr": rho,
    }
    sample = gaussian_dot_products(
        d, float(mean_q), float(std_q), float(mean_k), float(std_k), float(rho),
        n=20_000, seed=seed_of(d, mean_q, mean_k, std_q, std_k, rho),
    )  # fmt: skip
    mean_estimate, var_estimate = estimate_mean(sample), estimate_variance(sample)
    assert mean_estimate.agrees_with(float(scaledattn.mean(**options).expr))
    assert var_estimate.agrees_with(float(scaledattn.variance(**options).expr))


def test_the_monte_carlo_witness_rejects_the_independent_formula_under_correlation() -> None:
    # Its tolerance is tight enough to matter: Var(q·k) = 8(1 + ρ²) = 13.12 at ρ = 0.8,
    # and the formula for independent q, k (8) lies far outside it.
    sample = gaussian_dot_products(8, 0.0, 1.0, 0.0, 1.0, 0.8, n=20_000, seed=5)
    estimate = estimate_variance(sample)
    derived = float(scaledattn.variance(d_k=8, corr="4/5").expr)
    assert estimate.agrees_with(derived)
    assert not estimate.agrees_with(8.0)
    assert estimate.tolerance < 0.1 * derived


def test_the_exact_witness_tells_a_gaussian_fourth_moment_from_an_independent_one() -> None:
    # With ρ = 0 the pair is independent and E[q²k²] = 1; at ρ = 3/5 it is 1 + 2ρ².
    law = product_law_correlated(Fraction(0), Fraction(1), Fraction(0), Fraction(1),
                                 Fraction(3, 5), Fraction(4, 5))  # fmt: skip
    _, var = mean_and_variance(sum_law(law, 2))
    assert _exact(var) == scaledattn.variance(d_k=2, corr="3/5").expr == sympy.Rational(68, 25)
