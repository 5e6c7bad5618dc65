"""Exact moments for the tests' tolerances: cumulants of sums and products of independent laws.

These set the median-of-batches tolerance (scaledattn.numeric.montecarlo.BatchCheck),
so they must be the true moments under the hypothesis being tested.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np
import sympy

from scaledattn.numeric.distributions import Distribution
from scaledattn.numeric.montecarlo import BatchCheck, BatchResult, batch_check


@cache  # laws are frozen values, drawn again and again: SymPy computes each moment once
def raw(dist: Distribution, n: int) -> Fraction:
    """E[Xⁿ] as a Fraction."""
    v = sympy.Rational(dist.raw_moment(n))
    return Fraction(int(v.p), int(v.q))


def cumulants_from_raw(m: list[Fraction]) -> list[Fraction]:
    """[κ₁, κ₂, κ₃, κ₄] from raw moments [1, m₁, m₂, m₃, m₄]."""
    k1 = m[1]
    k2 = m[2] - m[1] ** 2
    k3 = m[3] - 3 * m[2] * m[1] + 2 * m[1] ** 3
    k4 = m[4] - 4 * m[3] * m[1] - 3 * m[2] ** 2 + 12 * m[2] * m[1] ** 2 - 6 * m[1] ** 4
    return [k1, k2, k3, k4]


def cumulants(dist: Distribution) -> list[Fraction]:
    """The first four cumulants of a catalogue law."""
    return cumulants_from_raw([raw(dist, n) for n in range(5)])


def product_cumulants(q: Distribution, k: Distribution) -> list[Fraction]:
    """Cumulants of q·k for independent q, k (raw moments multiply)."""
    return cumulants_from_raw([raw(q, n) * raw(k, n) for n in range(5)])


def linear_cumulants(parts: list[tuple[Fraction, list[Fraction]]]) -> list[Fraction]:
    """Cumulants of Σ aⱼXⱼ for independent Xⱼ with cumulants κ(Xⱼ): κₙ = Σ aⱼⁿκₙ(Xⱼ)."""
    return [sum((a ** (n + 1) * c[n] for a, c in parts), Fraction(0)) for n in range(4)]


def variance_and_fourth(c: list[Fraction]) -> tuple[float, float]:
    """(σ², μ₄) from cumulants: μ₄ = κ₄ + 3κ₂²."""
    return float(c[1]), float(c[3] + 3 * c[1] ** 2)


CHECK = BatchCheck()
#: Monte Carlo checks per Hypothesis example, at most, in any statistical test family.
CHECKS_PER_EXAMPLE = 2
#: The statistical property-test families (see tests/numeric/test_properties.py).
FAMILIES = 6


def samples_for(width: int, budget: int = 1 << 20) -> int:
    """A sample count: about ``budget`` random numbers, between 8 and 600 per batch."""
    per_batch = max(8, min(600, budget // (width * CHECK.batches)))
    return per_batch * CHECK.batches


def check_variance(x: np.ndarray, expected: object, c: list[Fraction]) -> BatchResult:
    """Median-of-batches check of Var(x) against ``expected`` (a closed form's value).

    The tolerance comes from the law's true moments (its cumulants ``c``).
    """
    var, mu4 = variance_and_fourth(c)
    return batch_check(x, "variance", float(expected), var, mu4, CHECK)  # type: ignore[arg-type]


def check_mean(x: np.ndarray, expected: object, c: list[Fraction]) -> BatchResult:
    """Median-of-batches check of E(x) against ``expected``; tolerance from κ₂."""
    return batch_check(x, "mean", float(expected), float(c[1]), check=CHECK)  # type: ignore[arg-type]
