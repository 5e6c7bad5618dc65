"""Chunked Monte Carlo: streaming moments, intervals from the fourth moment, seeded.

Samples are drawn in chunks of about :data:`CHUNK_NUMBERS` random numbers and
folded into :class:`RunningMoments` (count, mean and central sums up to the fourth
order, combined exactly by Chan's and Pébay's pairwise formulas), so memory does
not grow with the number of samples.

The sample variance s² of n draws has variance (μ₄ − (n − 3)/(n − 1)·σ⁴)/n. With
the estimated fourth central moment m₄ in place of μ₄ that gives a standard error
and the 95% interval s² ± 1.96·se. It is an asymptotic interval: it needs a finite
fourth moment (for a law without one, such as Student's t with nu ≤ 4, it cannot be
trusted and says so) and it is optimistic in the far tails of heavy-tailed laws.

"Agrees" means the symbolic value lies within s² ± z·se with z = :data:`Z_AGREE`
(4.89): if the symbolic value is right, the normal approximation puts the chance
of a false alarm at 1e-6 per check. The tests use :func:`batch_check` instead,
whose false-alarm bound needs no normal approximation (docs/statistics.md).

Examples
--------
>>> from scaledattn.numeric.distributions import Coin
>>> est = estimate_scores(Coin(), Coin(), d=16, samples=20_000, seed=1)
>>> est.agrees(16.0), est.trusted
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

from scaledattn.errors import InvalidArgument
from scaledattn.numeric.distributions import Distribution

__all__ = [
    "ALPHA_AGREE",
    "CHUNK_NUMBERS",
    "Z95",
    "Z_AGREE",
    "BatchCheck",
    "Estimate",
    "RunningMoments",
    "batch_check",
    "chunk_rows",
    "estimate",
    "estimate_scores",
    "sample_scores",
]

Array = NDArray[np.float64]

#: Random numbers drawn per chunk (per vector): 512 KiB of float64, so that a chunk
#: of q, one of k and their product stay in cache (benchmarks/monte_carlo.py).
CHUNK_NUMBERS = 1 << 16
#: Two-sided 95% normal quantile.
Z95 = NormalDist().inv_cdf(0.975)
#: The nominal false-alarm probability of one "agrees" verdict.
ALPHA_AGREE = 1e-6
#: Two-sided normal quantile for ALPHA_AGREE (≈ 4.89).
Z_AGREE = NormalDist().inv_cdf(1 - ALPHA_AGREE / 2)


@dataclass
class RunningMoments:
    """Count, mean and central sums M₂, M₃, M₄ of a stream, merged chunk by chunk.

    >>> rm = RunningMoments()
    >>> for part in ([1.0, 2.0], [3.0], [4.0, 10.0]):
    ...     rm.add(np.array(part))
    >>> rm.n, rm.mean, rm.variance
    (5, 4.0, 12.5)
    """

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0
    m3: float = 0.0
    m4: float = 0.0

    @classmethod
    def of(cls, x: Array) -> RunningMoments:
        """The moments of one array (two passes: mean, then central powers)."""
        n = int(x.size)
        if n == 0:
            return cls()
        mean = float(x.mean())
        d = x - mean
        d2 = d * d
        return cls(n, mean, float(d2.sum()), float((d2 * d).sum()), float((d2 * d2).sum()))

    def add(self, x: Array) -> None:
        """Fold an array of new samples in."""
        self.merge(RunningMoments.of(np.asarray(x, dtype=np.float64).ravel()))

    def merge(self, other: RunningMoments) -> None:
        """Fold another stream's moments in (Pébay 2008, eq. 3.1 and 2.1)."""
        na, nb = self.n, other.n
        if nb == 0:
            return
        if na == 0:
            self.n, self.mean, self.m2, self.m3, self.m4 = (
                other.n,
                other.mean,
                other.m2,
                other.m3,
                other.m4,
            )
            return
        n = na + nb
        delta = other.mean - self.mean
        d_n = delta / n
        m2 = self.m2 + other.m2 + delta * d_n * na * nb
        m3 = (
            self.m3
            + other.m3
            + delta * d_n * d_n * na * nb * (na - nb)
            + 3 * d_n * (na * other.m2 - nb * self.m2)
        )
        m4 = (
            self.m4
            + other.m4
            + delta * d_n**3 * na * nb * (na * na - na * nb + nb * nb)
            + 6 * d_n * d_n * (na * na * other.m2 + nb * nb * self.m2)
            + 4 * d_n * (na * other.m3 - nb * self.m3)
        )
        self.n, self.mean, self.m2, self.m3, self.m4 = n, self.mean + d_n * nb, m2, m3, m4

    @property
    def variance(self) -> float:
        """The unbiased sample variance s² = M₂/(n − 1)."""
        if self.n < 2:
            raise InvalidArgument("a sample variance needs at least 2 samples")
        return self.m2 / (self.n - 1)

    @property
    def fourth_central(self) -> float:
        """The sample fourth central moment m₄ = M₄/n."""
        return self.m4 / self.n

    @property
    def variance_se(self) -> float:
        """√((m₄ − (n − 3)/(n − 1)·s⁴)/n): the standard error of s² (0 if negative)."""
        n, s2 = self.n, self.variance
        v = (self.fourth_central - (n - 3) / (n - 1) * s2 * s2) / n
        return math.sqrt(max(v, 0.0))

    @property
    def mean_se(self) -> float:
        """s/√n: the standard error of the sample mean."""
        return math.sqrt(self.variance / self.n)


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate of a mean and a variance, with intervals and a verdict.

    ``trusted`` is False when the sampled law has no finite fourth moment: the
    interval for the variance then has no justification, and :meth:`agrees`
    answers False rather than pass silently.
    """

    n: int
    seed: int
    mean: float
    mean_se: float
    variance: float
    variance_se: float
    trusted: bool = True
    warning: str = ""
    extra: dict[str, float] = field(default_factory=dict)

    def interval(self, z: float = Z95) -> tuple[float, float]:
        """s² ± z·se."""
        return (self.variance - z * self.variance_se, self.variance + z * self.variance_se)

    def mean_interval(self, z: float = Z95) -> tuple[float, float]:
        """x̄ ± z·s/√n."""
        return (self.mean - z * self.mean_se, self.mean + z * self.mean_se)

    def agrees(self, expected: float, z: float = Z_AGREE) -> bool:
        """True when ``expected`` lies in s² ± z·se and the interval can be trusted."""
        lo, hi = self.interval(z)
        return self.trusted and lo <= expected <= hi

    def mean_agrees(self, expected: float, z: float = Z_AGREE) -> bool:
        """True when ``expected`` lies in x̄ ± z·s/√n and the interval can be trusted."""
        lo, hi = self.mean_interval(z)
        return self.trusted and lo <= expected <= hi


def chunk_rows(width: int) -> int:
    """Rows per chunk so that one chunk holds about CHUNK_NUMBERS numbers."""
    return max(1, CHUNK_NUMBERS // max(width, 1))


def _check_samples(samples: int) -> None:
    if samples < 2:
        raise InvalidArgument(f"--samples must be at least 2, got {samples}")


def estimate(
    draw: Callable[[np.random.Generator, int], Array],
    samples: int,
    seed: int,
    width: int = 1,
    trusted: bool = True,
    warning: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> Estimate:
    """Fold ``samples`` draws of ``draw(rng, rows)`` (chunked by ``width``) into an Estimate.

    ``progress(done, samples)`` is told after each chunk.
    """
    _check_samples(samples)
    rng = np.random.default_rng(seed)
    moments = RunningMoments()
    rows = chunk_rows(width)
    done = 0
    while done < samples:
        take = min(rows, samples - done)
        moments.add(draw(rng, take))
        done += take
        if progress is not None:
            progress(done, samples)
    return Estimate(
        n=moments.n,
        seed=seed,
        mean=moments.mean,
        mean_se=moments.mean_se,
        variance=moments.variance,
        variance_se=moments.variance_se,
        trusted=trusted,
        warning=warning,
    )


def sample_scores(
    q: Distribution,
    k: Distribution,
    d: int,
    rng: np.random.Generator,
    rows: int,
    buffers: tuple[Array, Array] | None = None,
) -> Array:
    """``rows`` draws of q·k: two (rows, d) blocks of components and a row-wise dot.

    ``buffers`` (two float64 arrays of at least ``rows`` rows and d columns) are
    reused for the components, so a long run allocates no new blocks.
    """
    qb = kb = None
    if buffers is not None:
        qb, kb = buffers[0][:rows], buffers[1][:rows]
    a = q.sample(rng, (rows, d), out=qb)
    b = k.sample(rng, (rows, d), out=kb)
    out: Array = np.einsum("ij,ij->i", a, b)
    return out


def fourth_moment_warning(*dists: Distribution) -> str:
    """Why an interval cannot be trusted, or '' when every law has a fourth moment."""
    lacking = [d.spec for d in dists if not d.has_fourth_moment]
    if not lacking:
        return ""
    names = ", ".join(dict.fromkeys(lacking))
    return (
        f"{names} has no finite fourth moment, so the sample variance has no finite"
        " variance: the interval cannot be trusted"
    )


def estimate_scores(
    q: Distribution,
    k: Distribution,
    d: int,
    samples: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
) -> Estimate:
    """Monte Carlo estimate of the mean and variance of q·k (components independent)."""
    if d < 1:
        raise InvalidArgument(f"--d-k must be at least 1, got {d}")
    for dist in (q, k):
        dist.require_variance()
    warning = fourth_moment_warning(q, k)
    rows = min(chunk_rows(d), samples)
    buffers = (np.empty((rows, d)), np.empty((rows, d)))

    def draw(rng: np.random.Generator, rows: int) -> Array:
        return sample_scores(q, k, d, rng, rows, buffers)

    return estimate(
        draw, samples, seed, width=d, trusted=not warning, warning=warning, progress=progress
    )


# ------------------------------------------------------------ tests' check


@dataclass(frozen=True)
class BatchCheck:
    """A median-of-batches check whose false-alarm bound needs no normal approximation.

    The samples are split into ``batches`` equal batches of m draws. Each batch
    gives an estimate (a sample mean or a sample variance) whose exact variance v
    is known from the law's moments: σ²/m for the mean, (μ₄ − (m − 3)/(m − 1)·σ⁴)/m
    for the variance. By Chebyshev a batch misses the true value by more than t·√v
    with probability at most 1/t². The median misses by that much only if at least
    half the independent batches do, so the false-alarm probability is at most the
    binomial tail P(Bin(batches, 1/t²) ≥ ⌈batches/2⌉) (:meth:`false_alarm`).
    """

    batches: int = 53
    t: int = 3

    def false_alarm(self) -> Fraction:
        """P(Bin(batches, 1/t²) ≥ ⌈batches/2⌉), exactly.

        >>> float(BatchCheck().false_alarm()) < 1e-12
        True
        """
        p = Fraction(1, self.t * self.t)
        first = (self.batches + 1) // 2
        return sum(
            (
                math.comb(self.batches, j) * p**j * (1 - p) ** (self.batches - j)
                for j in range(first, self.batches + 1)
            ),
            Fraction(0),
        )


@dataclass(frozen=True)
class BatchResult:
    """The median of the batch estimates, the tolerance t·√v, and the verdict."""

    median: float
    tolerance: float
    expected: float

    @property
    def agrees(self) -> bool:
        """|median − expected| ≤ tolerance."""
        return abs(self.median - self.expected) <= self.tolerance


def batch_check(
    samples: Array,
    statistic: str,
    expected: float,
    variance: float,
    fourth_central: float = math.nan,
    check: BatchCheck = BatchCheck(),  # a frozen dataclass: safe as a default
) -> BatchResult:
    """Check E or Var of ``samples`` against ``expected`` by the median of batches.

    ``variance`` (and, for ``statistic="variance"``, ``fourth_central``) are the
    true moments of one draw if ``expected`` is right; they set the tolerance.
    """
    m = samples.size // check.batches
    if m < 2:
        raise InvalidArgument(f"need at least {2 * check.batches} samples, got {samples.size}")
    parts = samples[: m * check.batches].reshape(check.batches, m)
    # A batch of identical draws has mean exactly that draw and variance exactly 0;
    # NumPy's summation leaves rounding noise (a constant 1.3 gives a variance of
    # 5e-32), which a degenerate law's tolerance of exactly 0 must not see.
    constant = np.all(parts == parts[:, :1], axis=1)
    if statistic == "mean":
        values = np.where(constant, parts[:, 0], parts.mean(axis=1))
        v = variance / m
    elif statistic == "variance":
        values = np.where(constant, 0.0, parts.var(axis=1, ddof=1))
        v = (fourth_central - (m - 3) / (m - 1) * variance * variance) / m
    else:
        raise InvalidArgument(f"statistic must be 'mean' or 'variance', got {statistic!r}")
    return BatchResult(float(np.median(values)), check.t * math.sqrt(max(v, 0.0)), expected)
