"""95% intervals from an estimator's own variance, and the measurement record.

- a mean: x̄ ± z·s/√N (central limit theorem);
- a standard deviation: the delta method on σ̂², whose variance is (μ₄ − σ⁴)/N, so
  se(σ̂) = √((μ̂₄ − σ̂⁴)/N) / (2σ̂);
- a ratio of two independent estimates: the delta method on log(a/b),
  se² = (se_a/a)² + (se_b/b)²;
- a proportion: Wilson's score interval;
- a median: the distribution-free interval between two order statistics.

z = Φ⁻¹(0.975) is computed, not typed in.

Examples
--------
>>> import numpy as np
>>> m = mean_measurement("x", np.array([1.0, 2.0, 3.0, 4.0]))
>>> m.value, [round(v, 3) for v in m.ci95]
(2.5, [1.235, 3.765])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scaledattn.errors import InvalidArgument
from scaledattn.numeric.montecarlo import Z95

__all__ = [
    "Measurement",
    "exact",
    "mean_measurement",
    "median_measurement",
    "proportion_measurement",
    "ratio_measurement",
    "std_measurement",
]


@dataclass(frozen=True)
class Measurement:
    """A measured value, its 95% interval, its standard error, and a published reference."""

    name: str
    value: float
    ci95: tuple[float, float]
    published: float | None = None
    se: float = math.nan

    def inside(self) -> bool | None:
        """Whether the published value lies in the 95% interval (None if none published)."""
        if self.published is None:
            return None
        lo, hi = self.ci95
        return lo <= self.published <= hi

    def z_published(self) -> float | None:
        """(published − value) / se: how far the reference is, in standard errors."""
        if self.published is None or not self.se > 0:
            return None
        return (self.published - self.value) / self.se

    def with_published(self, published: float | None) -> Measurement:
        """The same measurement compared against ``published``."""
        return Measurement(self.name, self.value, self.ci95, published, self.se)

    def as_json(self) -> dict[str, Any]:
        """``{name, value, ci95: [lo, hi], published}``: the JSON contract."""
        return {
            "name": self.name,
            "value": self.value,
            "ci95": [self.ci95[0], self.ci95[1]],
            "published": self.published,
        }


def _sample(x: NDArray[Any], need: int, what: str) -> NDArray[np.float64]:
    arr = np.asarray(x, dtype=np.float64).ravel()
    if arr.size < need:
        raise InvalidArgument(f"{what} needs at least {need} values, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        raise InvalidArgument(f"{what} needs finite values")
    return arr


def exact(name: str, value: float, published: float | None = None) -> Measurement:
    """A value with no sampling error (its interval is the point itself)."""
    return Measurement(name, float(value), (float(value), float(value)), published, 0.0)


def mean_measurement(name: str, x: NDArray[Any], published: float | None = None) -> Measurement:
    """The mean of ``x`` with x̄ ± z·s/√N."""
    arr = _sample(x, 2, "a mean")
    mean = float(arr.mean())
    se = float(arr.std(ddof=1) / math.sqrt(arr.size))
    return Measurement(name, mean, (mean - Z95 * se, mean + Z95 * se), published, se)


def std_measurement(name: str, x: NDArray[Any], published: float | None = None) -> Measurement:
    """The standard deviation of ``x``, interval by the delta method on σ̂².

    Var(σ̂²) ≈ (μ₄ − σ⁴)/N with μ₄ the fourth central moment; then
    se(σ̂) = se(σ̂²)/(2σ̂). The interval is symmetric in σ̂.
    """
    arr = _sample(x, 4, "a standard deviation")
    centred = arr - arr.mean()
    var = float(np.mean(centred**2)) * arr.size / (arr.size - 1)
    sigma = math.sqrt(var)
    mu4 = float(np.mean(centred**4))
    se = math.sqrt(max(mu4 - var**2, 0.0) / arr.size) / (2 * sigma) if sigma > 0 else 0.0
    return Measurement(name, sigma, (sigma - Z95 * se, sigma + Z95 * se), published, se)


def ratio_measurement(
    name: str, a: Measurement, b: Measurement, published: float | None = None
) -> Measurement:
    """a/b for independent estimates, interval exp(log(a/b) ± z·se), delta method on logs."""
    if not (a.value > 0 and b.value > 0):
        raise InvalidArgument("a ratio interval needs two positive estimates")
    ratio = a.value / b.value
    rel = math.hypot(a.se / a.value, b.se / b.value)
    lo, hi = ratio * math.exp(-Z95 * rel), ratio * math.exp(Z95 * rel)
    return Measurement(name, ratio, (lo, hi), published, ratio * rel)


def proportion_measurement(
    name: str, successes: int, n: int, published: float | None = None
) -> Measurement:
    """k/n with Wilson's score interval."""
    if n < 1 or not 0 <= successes <= n:
        raise InvalidArgument(f"a proportion needs 0 ≤ k ≤ n and n ≥ 1, got {successes}/{n}")
    phat, z2 = successes / n, Z95**2
    centre = (phat + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(phat * (1 - phat) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    se = math.sqrt(phat * (1 - phat) / n)
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return Measurement(name, phat, (lo, hi), published, se)


def median_measurement(name: str, x: NDArray[Any], published: float | None = None) -> Measurement:
    """The median with the order-statistic interval [x₍ₗ₎, x₍ᵤ₎] covering it with ≥ 95%.

    l and u are the widest symmetric pair with P(l ≤ Binomial(N, ½) < u) ≥ 0.95,
    from the exact binomial distribution; with N < 6 no such pair exists and the
    interval is the whole sample range.
    """
    arr = np.sort(_sample(x, 1, "a median"))
    size = arr.size
    median = float(np.median(arr))
    cdf = np.cumsum([math.comb(size, k) for k in range(size + 1)]) / 2.0**size
    lo_rank, hi_rank = 0, size - 1
    for k in range(size // 2, -1, -1):
        # [x₍ₖ₎, x₍ₙ₋₁₋ₖ₎] (0-based) covers the median when k < B ≤ N − 1 − k,
        # B ~ Binomial(N, ½) the number of observations below it.
        coverage = cdf[size - k - 1] - cdf[k] if size - k - 1 > k else 0.0
        if coverage >= 0.95:
            lo_rank, hi_rank = k, size - 1 - k
            break
    return Measurement(name, median, (float(arr[lo_rank]), float(arr[hi_rank])), published)
