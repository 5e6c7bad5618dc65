from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given
from sympy import stats

from scaledattn.errors import InvalidArgument
from scaledattn.numeric.distributions import (
    Bernoulli,
    Cauchy,
    Coin,
    Die,
    Distribution,
    Finite,
    Gaussian,
    Laplace,
    StudentT,
    Uniform,
    distribution,
)
from tests.moments import check_mean, check_variance, cumulants
from tests.strategies import catalogue_distributions, finite_distributions

h = sympy.Rational


@pytest.mark.parametrize(
    ("ours", "oracle"),
    [
        (Gaussian(1, 2), stats.Normal("x", 1, sympy.sqrt(2))),
        (Uniform(-1, 3), stats.Uniform("x", -1, 3)),
        (Laplace(h(1, 2), 2), stats.Laplace("x", h(1, 2), 2)),
        (Die(), stats.DiscreteUniform("x", [h(2 * f - 7, 2) for f in range(1, 7)])),
        (Bernoulli(h(1, 3)), stats.Bernoulli("x", h(1, 3))),
        (Coin(), stats.FiniteRV("x", {-1: h(1, 2), 1: h(1, 2)})),
        (
            Finite([0, 1, 5], [h(1, 2), h(1, 4), h(1, 4)]),
            stats.FiniteRV("x", {0: h(1, 2), 1: h(1, 4), 5: h(1, 4)}),
        ),
    ],
)
def test_catalogue_moments_equal_sympy_stats(ours: Distribution, oracle: object) -> None:
    assert sympy.simplify(ours.mean() - stats.E(oracle)) == 0
    assert sympy.simplify(ours.variance() - stats.variance(oracle)) == 0
    for n in (3, 4):
        assert sympy.simplify(ours.central_moment(n) - stats.cmoment(oracle, n)) == 0


def test_student_t_moments_equal_integrals_of_its_density() -> None:
    z = sympy.Symbol("z", real=True)
    density = stats.density(stats.StudentT("x", 7))(z)
    moments = [sympy.integrate(z**n * density, (z, -sympy.oo, sympy.oo)) for n in (1, 2, 3, 4)]
    ours = StudentT(7)
    assert [
        sympy.gammasimp((m - o).rewrite(sympy.gamma))
        for m, o in zip(
            moments,
            [ours.mean(), ours.variance(), ours.central_moment(3), ours.fourth_moment()],
            strict=True,
        )
    ] == [0, 0, 0, 0]


def test_cauchy_and_student_t_with_nu_at_most_2_refuse_variance_checks() -> None:
    for dist in (Cauchy(), StudentT(2), StudentT(1), StudentT(h(3, 2))):
        assert not dist.has_variance
        with pytest.raises(InvalidArgument, match="variance check is refused"):
            dist.require_variance()


def test_student_t_with_nu_in_2_to_4_has_a_variance_but_no_fourth_moment() -> None:
    for nu in (3, 4, h(5, 2)):
        dist = StudentT(nu)
        assert dist.has_variance
        assert not dist.has_fourth_moment
        assert dist.fourth_moment() == sympy.oo
    assert StudentT(5).has_fourth_moment


@given(finite_distributions())
def test_a_finite_pmf_sums_to_one_and_gives_the_moments(dist: Distribution) -> None:
    pmf = dist.pmf()
    assert sum(pmf.values()) == 1
    mean = sum(p * v for v, p in pmf.items())
    assert dist.mean() == sympy.Rational(mean.numerator, mean.denominator)
    second = sum(p * (v - mean) ** 2 for v, p in pmf.items())
    assert dist.variance() == sympy.Rational(second.numerator, second.denominator)


def test_non_finite_laws_have_no_pmf() -> None:
    with pytest.raises(InvalidArgument, match="not a finite distribution"):
        Gaussian().pmf()


@given(catalogue_distributions())
def test_samplers_are_seeded_and_shaped(dist: Distribution) -> None:
    a = dist.sample(np.random.default_rng(7), (3, 5))
    b = dist.sample(np.random.default_rng(7), (3, 5))
    assert a.shape == (3, 5)
    assert a.dtype == np.float64
    assert np.array_equal(a, b)


SAMPLED = [
    "gaussian:mean=1,var=2",
    "uniform:low=-1,high=3",
    "laplace:mean=-1,scale=1/2",
    "student-t:nu=9",
    "coin",
    "die",
    "bernoulli:p=1/5",
    "finite:values=-2|0|7,probs=1/8|3/4|1/8",
]


@pytest.mark.parametrize("spec", SAMPLED)
def test_samplers_draw_the_catalogue_law(spec: str) -> None:
    # Median-of-batches checks: false alarm below 1e-12 each (docs/statistics.md).
    dist = distribution(spec)
    x = dist.sample(np.random.default_rng(sum(map(ord, spec))), 53 * 400)
    c = cumulants(dist)
    assert check_mean(x, dist.mean(), c).agrees
    assert check_variance(x, dist.variance(), c).agrees


def test_a_float_parameter_is_taken_at_its_exact_binary_value() -> None:
    assert Gaussian(0, 0.1).var == Fraction(0.1) != Fraction(1, 10)
