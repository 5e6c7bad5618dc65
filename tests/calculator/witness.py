"""Numeric witnesses for the calculator's closed forms: exact enumeration and Monte Carlo.

A deliberately small local helper (issue 3's ``scaledattn.numeric`` will provide the
general machinery); it uses nothing from the calculator or the kernel, so it is an
independent second witness.

- Exact: component laws are finite with rational values, so the law of q·k is
  computed by convolving the law of one product qᵢkᵢ d_k times (no variance rule
  is used), then its mean and variance are read off with Fractions.
- Monte Carlo: Gaussian pairs, a fixed seed per example, and a tolerance of
  Z standard errors of each estimator, the standard error computed from the
  sample's own fourth central moment.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import sqrt

import numpy as np

Pmf = dict[Fraction, Fraction]

#: The law of a standardised variable whose moments 1..4 are those of N(0, 1):
#: E[a] = 0, E[a²] = 1, E[a³] = 0, E[a⁴] = 3 (0 w.p. 1/2, ±1 w.p. 1/6, ±2 w.p. 1/12).
GAUSS_MATCHED: Pmf = {
    Fraction(0): Fraction(1, 2),
    Fraction(1): Fraction(1, 6),
    Fraction(-1): Fraction(1, 6),
    Fraction(2): Fraction(1, 12),
    Fraction(-2): Fraction(1, 12),
}

#: Z standard errors: a two-sided normal tail of 2.6e-12 per check, so even the
#: ``thorough`` profile (2 000 examples × 2 checks) stays below 1e-8 per run.
Z = 7.0


def two_point(mean: Fraction, std: Fraction, skew: tuple[int, int]) -> Pmf:
    """mean + std·Y with Y = b/a w.p. a²/(a²+b²), −a/b w.p. b²/(a²+b²) (E Y = 0, E Y² = 1)."""
    a, b = skew
    total = a * a + b * b
    up, down = mean + std * Fraction(b, a), mean - std * Fraction(a, b)
    if up == down:
        return {up: Fraction(1)}
    return {up: Fraction(a * a, total), down: Fraction(b * b, total)}


def product_law_independent(q: Pmf, k: Pmf) -> Pmf:
    """The law of qᵢkᵢ for independent qᵢ ~ q, kᵢ ~ k."""
    out: Pmf = {}
    for x, p in q.items():
        for y, r in k.items():
            out[x * y] = out.get(x * y, Fraction(0)) + p * r
    return out


def product_law_correlated(
    mean_q: Fraction, std_q: Fraction, mean_k: Fraction, std_k: Fraction,
    rho: Fraction, tau: Fraction, base: Pmf = GAUSS_MATCHED,
) -> Pmf:  # fmt: skip
    """The law of qᵢkᵢ with q = μ_q + σ_q a, k = μ_k + σ_k(ρa + τb), a, b independent ~ base."""
    out: Pmf = {}
    for a, p in base.items():
        for b, r in base.items():
            x = (mean_q + std_q * a) * (mean_k + std_k * (rho * a + tau * b))
            out[x] = out.get(x, Fraction(0)) + p * r
    return out


def sum_law(law: Pmf, d: int) -> Pmf:
    """The law of the sum of d independent copies of ``law``, by repeated convolution."""
    total: Pmf = {Fraction(0): Fraction(1)}
    for _ in range(d):
        nxt: Pmf = {}
        for x, p in total.items():
            for y, r in law.items():
                nxt[x + y] = nxt.get(x + y, Fraction(0)) + p * r
        total = nxt
    return total


def mean_and_variance(law: Mapping[Fraction, Fraction]) -> tuple[Fraction, Fraction]:
    """Exact mean and variance of a finite law."""
    assert sum(law.values()) == 1
    mean = sum((p * x for x, p in law.items()), Fraction(0))
    return mean, sum((p * (x - mean) ** 2 for x, p in law.items()), Fraction(0))


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate with the half-width Z·(standard error)."""

    value: float
    tolerance: float

    def agrees_with(self, exact: float) -> bool:
        """True when ``exact`` lies within the tolerance."""
        return abs(self.value - exact) <= self.tolerance


def seed_of(*parameters: object) -> int:
    """A reproducible seed for an example, from its parameters."""
    return zlib.crc32(repr(parameters).encode())


def gaussian_dot_products(
    d: int, mean_q: float, std_q: float, mean_k: float, std_k: float, rho: float,
    n: int, seed: int,
) -> np.ndarray:  # fmt: skip
    """n samples of q·k with (qᵢ, kᵢ) jointly Gaussian pairs, independent across i."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, d))
    b = rng.standard_normal((n, d))
    q = mean_q + std_q * a
    k = mean_k + std_k * (rho * a + sqrt(max(0.0, 1.0 - rho * rho)) * b)
    result: np.ndarray = np.einsum("nd,nd->n", q, k)
    return result


def estimate_mean(sample: np.ndarray) -> Estimate:
    """The sample mean; its standard error is s/√n."""
    n = sample.size
    return Estimate(float(sample.mean()), Z * float(sample.std(ddof=1)) / sqrt(n))


def estimate_variance(sample: np.ndarray) -> Estimate:
    """The unbiased sample variance; Var(s²) ≈ (μ₄ − σ⁴)/n from the sample's fourth moment."""
    n = sample.size
    centred = sample - sample.mean()
    var = float(centred @ centred) / (n - 1)
    mu4 = float(np.mean(centred**4))
    return Estimate(var, Z * sqrt(max(mu4 - var * var, 0.0) / n))
