from __future__ import annotations

import time
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from scaledattn.errors import InvalidArgument
from scaledattn.kernel.expr import rebuild
from scaledattn.numeric.distributions import Coin, Die, Distribution, Gaussian
from scaledattn.numeric.exact import (
    BinomialLaw,
    combinations,
    lattice_law,
    power,
    power_by_squaring,
    product_pmf,
    score_law,
)
from scaledattn.numeric.witness import evaluate_closed_form, moment_values
from scaledattn.registry import find_derivation
from tests.profiles import bounded
from tests.strategies import dims, finite_distributions


def test_exercise_one_lists_four_combinations_with_mean_0_and_variance_2() -> None:
    listing = combinations(Coin(), Coin(), 2)
    assert len(listing.rows) == 4
    assert sorted(r.score for r in listing.rows) == [-2, 0, 0, 2]
    assert all(r.probability == Fraction(1, 4) for r in listing.rows)
    assert (listing.mean, listing.variance) == (0, 2)


def test_the_coin_model_at_d_k_4096_has_variance_exactly_4096() -> None:
    law = score_law(Coin(), Coin(), 4096)
    assert law.mean() == 0
    assert law.variance() == 4096
    assert law.support_size == 4097
    assert law.pmf()[Fraction(4096)] == Fraction(1, 2**4096)


def test_the_coin_model_at_d_k_4096_is_computed_well_under_a_second() -> None:
    # Not a timing assertion on this machine's speed: a guard against an
    # accidental quadratic-in-big-integers algorithm (those take minutes).
    start = time.perf_counter()
    score_law(Coin(), Coin(), 4096).variance()
    assert time.perf_counter() - start < 5


def test_the_coin_model_at_d_k_two_to_the_twenty_is_exact_in_closed_form() -> None:
    # A shifted binomial: q·k = −d + 2N, N ~ Binomial(d, 1/2); its moments are read off
    # the pmf (factorial moments), in microseconds (benchmarks/exact_convolution.py).
    d = 2**20
    law = score_law(Coin(), Coin(), d)
    assert isinstance(law, BinomialLaw)
    assert (law.mean(), law.variance(), law.support_size) == (0, d, d + 1)
    assert law.closed_form("q·k") == f"P(q·k = -{d} + 2j) = C({d}, j)/2^{d}, j = 0..{d}"
    with pytest.raises(InvalidArgument, match="would take about"):
        law.pmf()  # a million probabilities of a million bits each: refused up front


two_point_laws = st.builds(
    lambda a, gap, p: {Fraction(a): Fraction(p, 7), Fraction(a + gap): Fraction(7 - p, 7)},
    st.integers(-3, 3),
    st.integers(1, 3),
    st.integers(1, 6),
)


@settings(max_examples=40)
@given(two_point_laws, st.integers(1, 12))
def test_the_binomial_law_is_the_convolution_power_of_a_two_point_law(
    pmf: dict[Fraction, Fraction], d: int
) -> None:
    single = lattice_law(pmf)
    law = BinomialLaw(single.origin, single.step, Fraction(single.weights[1], single.total), d)
    reference = power_by_squaring(pmf, d)
    assert law.pmf() == reference
    mean = sum((v * p for v, p in reference.items()), Fraction(0))
    third = sum((v**3 * p for v, p in reference.items()), Fraction(0))
    assert law.mean() == mean
    assert law.variance() == sum((v * v * p for v, p in reference.items()), Fraction(0)) - mean**2
    assert law.raw_moments(3)[3] == third


@settings(max_examples=60)
@given(finite_distributions(), finite_distributions(), st.integers(1, 6))
def test_millers_recurrence_equals_repeated_squaring(
    q: Distribution, k: Distribution, d: int
) -> None:
    single = product_pmf(q, k)
    assert power(lattice_law(single), d).pmf() == power_by_squaring(single, d)


def _closed_form(q: Distribution, k: Distribution, d: int) -> object:
    rhs = rebuild(find_derivation("dot_product_variance_with_means").statement.rhs)
    return evaluate_closed_form(rhs, moment_values(q, k, d))


@bounded
@given(finite_distributions(), finite_distributions(), dims(4096))
def test_the_exact_variance_of_q_dot_k_equals_the_theorems_closed_form(
    q: Distribution, k: Distribution, d: int
) -> None:
    # Keep the exact law's size modest: cap d so that d · (lattice span) stays small.
    span = len(lattice_law(product_pmf(q, k)).weights)
    d = min(d, max(1, 20_000 // span))
    law = score_law(q, k, d)
    variance = law.variance()
    assert sympy.Rational(variance.numerator, variance.denominator) == _closed_form(q, k, d)
    mean = q.mean() * k.mean() * d
    assert sympy.Rational(law.mean().numerator, law.mean().denominator) == mean


def test_a_lattice_law_keeps_the_pmf() -> None:
    pmf = {Fraction(-1, 3): Fraction(1, 4), Fraction(1, 2): Fraction(3, 4)}
    assert lattice_law(pmf).pmf() == pmf


def test_exact_laws_refuse_non_finite_distributions_and_bad_sizes() -> None:
    with pytest.raises(InvalidArgument, match="not a finite distribution"):
        score_law(Gaussian(), Coin(), 3)
    with pytest.raises(InvalidArgument, match="at least 1"):
        score_law(Coin(), Coin(), 0)
    with pytest.raises(InvalidArgument, match=r"would take about .* past the limit of 3 s"):
        score_law(Die(), Die(), 10**6)
    with pytest.raises(InvalidArgument, match="too many to list"):
        combinations(Die(), Die(), 5)
