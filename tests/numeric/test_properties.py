"""Property tests: each theorem's closed form against exact laws and Monte Carlo.

Finite laws are checked by exact equality. Other laws are checked by the
median-of-batches test of tests/moments.py, whose false-alarm probability is
below 1e-12 per check (BatchCheck().false_alarm()); with at most
CHECKS_PER_EXAMPLE checks per example in FAMILIES families, a whole run of the
thorough profile (2000 examples) stays below 1e-6 (docs/statistics.md). Each
example's numpy seed is derived from the example itself.
"""

from __future__ import annotations

import itertools
import math
import zlib
from fractions import Fraction
from functools import cache

import numpy as np
import sympy
from hypothesis import example, given
from hypothesis import strategies as st

from scaledattn.kernel.expr import rebuild
from scaledattn.numeric.distributions import Bernoulli, Coin, Distribution, Finite
from scaledattn.numeric.evaluate import Evaluator
from scaledattn.numeric.exact import (
    MAX_EXACT_SECONDS,
    estimated_seconds,
    lattice_law,
    product_pmf,
    score_law,
)
from scaledattn.numeric.model import Signature, build_model, signature
from scaledattn.numeric.montecarlo import sample_scores
from scaledattn.numeric.witness import evaluate_closed_form, moment_values
from scaledattn.registry import find_derivation
from tests.moments import (
    check_mean,
    check_variance,
    cumulants,
    linear_cumulants,
    product_cumulants,
    samples_for,
)
from tests.profiles import bounded
from tests.strategies import (
    catalogue_distributions,
    centred,
    dims,
    finite_distributions,
    rationals,
)

#: Two point masses whose float sum (1 + 0.3) is not exactly representable: the sum's
#: variance and its tolerance are both exactly 0, so rounding noise must not count.
POINT_MASSES = (Bernoulli(Fraction(1)), Finite([Fraction(3, 10)], [Fraction(1)]))


def seed_of(*example: object) -> int:
    return zlib.crc32(repr(example).encode())


# What does not depend on the drawn example is looked up once per process: the
# theorems are module constants, and the registry imports every proof module per lookup.
derivation = cache(find_derivation)


@cache
def rhs(name: str) -> sympy.Expr:
    return rebuild(derivation(name).statement.rhs)


@cache
def signature_of(name: str) -> Signature:
    return signature(derivation(name))


def to_fraction(x: object) -> Fraction:
    v = sympy.Rational(x)
    return Fraction(int(v.p), int(v.q))


# ------------------------------------------------------------- variance_of_sum


def pair_model(x: Distribution, a: Fraction, z: Distribution, name: str) -> Evaluator:
    y = {"X": a, "noise": z.spec} if a else z.spec
    return Evaluator(build_model(signature_of(name), {"X": x.spec, "Y": y}))


@given(finite_distributions(), rationals(-2, 2), finite_distributions())
def test_variance_of_sum_holds_exactly_for_dependent_pairs(
    x: Distribution, a: Fraction, z: Distribution
) -> None:
    # Y = aX + Z: the covariance a·Var X is not zero unless a = 0.
    ev = pair_model(x, a, z, "variance_of_sum")
    closed = ev.value(derivation("variance_of_sum").statement.rhs)
    # Var(X + Y) by brute force over the joint pmf of (X, Z).
    law = [
        (vx + (a * vx + vz), px * pz)
        for (vx, px), (vz, pz) in itertools.product(x.pmf().items(), z.pmf().items())
    ]
    mean = sum(p * s for s, p in law)
    assert sum(p * (s - mean) ** 2 for s, p in law) == closed


@given(catalogue_distributions(), rationals(-2, 2), catalogue_distributions())
@example(POINT_MASSES[0], Fraction(1, 3), POINT_MASSES[1])
def test_variance_of_sum_holds_by_monte_carlo_for_dependent_pairs(
    x: Distribution, a: Fraction, z: Distribution
) -> None:
    ev = pair_model(x, a, z, "variance_of_sum")
    closed = ev.value(derivation("variance_of_sum").statement.rhs)
    rng = np.random.default_rng(seed_of(x.spec, a, z.spec))
    n = samples_for(2)
    xs = x.sample(rng, n)
    s = (1 + float(a)) * xs + z.sample(rng, n)
    c = linear_cumulants([(1 + a, cumulants(x)), (Fraction(1), cumulants(z))])
    assert check_variance(s, closed, c).agrees


@given(catalogue_distributions(), catalogue_distributions())
@example(*POINT_MASSES)
def test_variances_of_independent_variables_add(x: Distribution, y: Distribution) -> None:
    ev = pair_model(x, Fraction(0), y, "variance_of_sum_of_indep")
    closed = ev.value(derivation("variance_of_sum_of_indep").statement.rhs)
    rng = np.random.default_rng(seed_of(x.spec, y.spec))
    n = samples_for(2)
    s = x.sample(rng, n) + y.sample(rng, n)
    c = linear_cumulants([(Fraction(1), cumulants(x)), (Fraction(1), cumulants(y))])
    assert check_variance(s, closed, c).agrees


# -------------------------------------------------------- dot_product_variance


def closed_dot(q: Distribution, k: Distribution, d: int) -> sympy.Expr:
    return evaluate_closed_form(rhs("dot_product_variance_with_means"), moment_values(q, k, d))


@bounded
@given(catalogue_distributions(), catalogue_distributions(), dims(4096))
@example(*POINT_MASSES, 33)
def test_dot_product_variance_with_means_holds_by_monte_carlo(
    q: Distribution, k: Distribution, d: int
) -> None:
    rng = np.random.default_rng(seed_of(q.spec, k.spec, d))
    scores = sample_scores(q, k, d, rng, samples_for(2 * d))
    c = [d * x for x in product_cumulants(q, k)]
    assert check_variance(scores, closed_dot(q, k, d), c).agrees


@bounded
@given(catalogue_distributions(), catalogue_distributions(), dims(4096))
def test_the_score_of_centred_vectors_has_mean_zero(
    q: Distribution, k: Distribution, d: int
) -> None:
    q, k = centred(q), centred(k)
    rng = np.random.default_rng(seed_of(q.spec, k.spec, d))
    scores = sample_scores(q, k, d, rng, samples_for(2 * d))
    c = [d * x for x in product_cumulants(q, k)]
    assert rhs("dot_product_mean") == 0
    assert check_mean(scores, 0, c).agrees
    if q.finite and k.finite and d <= 256:
        assert score_law(q, k, d).mean() == 0


# ----------------------------------------------------------------- scaling


@bounded
@given(catalogue_distributions(), catalogue_distributions(), dims(4096))
def test_scaling_by_root_d_k_leaves_the_product_of_component_variances(
    q: Distribution, k: Distribution, d: int
) -> None:
    # Var(q·k/√d_k) = σ_q²σ_k²: dot_product_variance_general divided by c² = d_k.
    q, k = centred(q), centred(k)
    values = moment_values(q, k, d)
    expected = evaluate_closed_form(rhs("dot_product_variance_general"), values) / d
    assert sympy.simplify(expected - q.variance() * k.variance()) == 0
    rng = np.random.default_rng(seed_of(q.spec, k.spec, d))
    scores = sample_scores(q, k, d, rng, samples_for(2 * d)) / math.sqrt(d)
    # κₙ(S/√d) = d·κₙ(qk)/dⁿᐟ²; the check uses only κ₂ and κ₄ (κ₁ = 0 when centred).
    _, k2, _, k4 = product_cumulants(q, k)
    c = [Fraction(0), k2, Fraction(0), k4 / d]
    assert check_variance(scores, expected, c).agrees


@bounded
@given(finite_distributions(), finite_distributions(), dims(1024))
def test_scaling_by_root_d_k_holds_exactly_for_finite_laws(
    q: Distribution, k: Distribution, d: int
) -> None:
    q, k = centred(q), centred(k)
    d = min(d, 64)
    # within the exact law's own limit (score_law refuses a law that would take longer
    # than MAX_EXACT_SECONDS: many lattice points of big weights), halving d until it is
    single = lattice_law(product_pmf(q, k))
    while d > 1 and estimated_seconds(single, d) > MAX_EXACT_SECONDS:
        d //= 2
    exact = score_law(q, k, d).variance() / d
    assert sympy.Rational(exact.numerator, exact.denominator) == q.variance() * k.variance()


UNIT = st.sampled_from(
    [Coin(), Finite([-2, 0, 2], [Fraction(1, 8), Fraction(3, 4), Fraction(1, 8)])]
)


@given(UNIT, UNIT, dims(1024), st.fractions(Fraction(1, 8), 40, max_denominator=8))
def test_variance_one_holds_exactly_when_c_is_root_d_k(
    q: Distribution, k: Distribution, d: int, c: Fraction
) -> None:
    # unique_scale on unit-variance, zero-mean finite laws: Var(q·k/c) = 1 ⇔ c = √d_k.
    root = math.isqrt(d)
    if root * root == d and c.denominator == 1 and c % 2:
        c = Fraction(root)
    variance = score_law(q, k, d).variance() / c**2
    assert (variance == 1) == (c * c == d)
