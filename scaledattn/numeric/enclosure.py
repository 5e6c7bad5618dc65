"""Rigorous enclosures of real numbers, and of functions of λ sampled as λ → ∞.

The softmax witnesses evaluate e^x, log and √ of exact rationals. Their values are
irrational, so they are computed with mpmath's interval arithmetic at
:data:`PRECISION` bits (more for a sample at a large λ, see :func:`precision_for`,
and twice as many again, up to :data:`MAX_PRECISION`, when an enclosure straddles
the edge of a square root's, logarithm's or quotient's domain): each result is an
interval that provably contains the true value, whatever the rounding on the way.
Two numbers *agree* when every point of one interval lies within :data:`TOLERANCE`
(relative to max(1, |x|)) of every point of the other, and *differ* when no two
points are that close; the intervals here are about 10⁻¹⁰⁰ wide, so rounding can
never decide either way (and if they were too wide, the answer is
:class:`Undecided`, never a verdict). A real disagreement must be below 10⁻³⁰ of
the values to go unseen.

A limit as λ → ∞ is known by samples: :class:`Approx` holds the value at each λ
of :data:`LAMBDAS`. Two such values agree when they are equal at every sample, or
when their distance shrinks at least geometrically (halving or better from one
sample to the next, over the last :data:`RATIO_STEPS` steps) to below
:data:`LIMIT_TOLERANCE`; they differ when the distance stops shrinking while
larger than that. This is evidence, not proof: it cannot separate a limit from a
value that f still approaches more slowly than this (e.g. like 1/λ), and then says
"undecided" rather than either. Every limit in the softmax theorems converges like
e^{−λ/2} or faster: a ratio of polynomials in e^λ, or its square root.

Examples
--------
>>> third = exact(Fraction(1, 3))
>>> agreement(Approx((third,)), Approx((exact(Fraction(1, 3)),)))
True
>>> str(Approx((CTX.exp(third),)))
'1.39561242508609'
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from mpmath.ctx_iv import MPIntervalContext

from scaledattn.errors import Undecided

__all__ = [
    "CTX",
    "LAMBDAS",
    "LIMIT_TOLERANCE",
    "MAX_PRECISION",
    "PRECISION",
    "TOLERANCE",
    "Approx",
    "agreement",
    "exact",
    "precision_for",
    "working_precision",
]

#: Working precision of the interval arithmetic, in bits (about 115 digits).
PRECISION = 384
#: The most bits a computation is retried with when its enclosures are too wide.
MAX_PRECISION = 4096
#: Relative distance below which two enclosed numbers are equal.
TOLERANCE = mpmath.mpf(10) ** -30
#: The λ at which a function is sampled for its limit as λ → ∞.
LAMBDAS = (16, 32, 64, 128)
#: The distance to the limit that the last sample must reach.
LIMIT_TOLERANCE = mpmath.mpf(10) ** -12
#: Over the last RATIO_STEPS steps the distance must at least halve each time.
RATIO_STEPS = 2

#: The private interval context (mpmath's shared ``iv`` is left alone).
CTX = MPIntervalContext()
CTX.prec = PRECISION

#: An mpmath interval (``ivmpf``); untyped, so Any to mypy.
Interval = Any


def exact(x: int | Fraction) -> Interval:
    """The tightest enclosure of a rational at the working precision."""
    return _exact(Fraction(x), CTX.prec)


@functools.lru_cache(maxsize=4096)
def _exact(x: Fraction, bits: int) -> Interval:
    return CTX.mpf(x.numerator) / CTX.mpf(x.denominator)  # intervals are immutable: cached


def precision_for(lam: int) -> int:
    """The bits for a sample at λ: PRECISION + 3λ·log₂e.

    Quantities such as ‖diag(p) − ppᵀ‖² ≈ e^{−2λ} are found by cancelling terms of
    size 1, which costs 2λ·log₂e bits; the rest is margin.
    """
    return PRECISION + math.ceil(3 * lam * math.log2(math.e))


@contextlib.contextmanager
def working_precision(bits: int) -> Iterator[None]:
    """Compute with ``bits`` of precision inside the block."""
    saved = CTX.prec
    CTX.prec = bits
    try:
        yield
    finally:
        CTX.prec = saved


def _lo(x: Interval) -> Any:
    return mpmath.mp.make_mpf(x._mpi_[0])


def _hi(x: Interval) -> Any:
    return mpmath.mp.make_mpf(x._mpi_[1])


def _mid(x: Interval) -> Any:
    return (_lo(x) + _hi(x)) / 2


def _magnitude(x: Interval) -> Any:
    return max(abs(_lo(x)), abs(_hi(x)))


def _distance(a: Interval, b: Interval) -> tuple[Any, Any]:
    """(least, greatest) |x − y| for x in a, y in b."""
    d = a - b
    lo, hi = _lo(d), _hi(d)
    least = 0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
    return least, max(abs(lo), abs(hi))


@dataclass(frozen=True)
class Approx:
    """A real number by an enclosure, or a function of λ by its enclosures at LAMBDAS.

    ``values`` has one interval for a number and one per λ in ``lambdas`` for a
    function sampled as λ → ∞ (the value of an expression with a limit in it).
    """

    values: tuple[Interval, ...]
    lambdas: tuple[int, ...] = ()

    @property
    def last(self) -> Interval:
        """The enclosure at the largest λ (the number itself when there is no λ)."""
        return self.values[-1]

    def at(self, k: int) -> Interval:
        """The enclosure at the k-th λ (a number is the same at every λ)."""
        return self.values[k] if self.lambdas else self.values[0]

    def __float__(self) -> float:
        return float(_mid(self.last))

    def digits(self, n: int = 15) -> str:
        """The midpoint to ``n`` significant digits; an integer when it is one exactly."""
        lo, hi = _lo(self.last), _hi(self.last)
        if lo == hi and lo == int(lo):
            return str(int(lo))
        return str(mpmath.nstr(_mid(self.last), n, min_fixed=-5, max_fixed=6))

    def __str__(self) -> str:
        if not self.lambdas:
            return self.digits()
        return f"{self.digits()} at λ = {self.lambdas[-1]}"

    def distances(self, other: Approx) -> list[tuple[Any, Any, Any]]:
        """(least, greatest distance, scale) at each sample of the two."""
        n = max(len(self.values), len(other.values))
        out = []
        for k in range(n):
            a, b = self.at(k), other.at(k)
            least, greatest = _distance(a, b)
            out.append((least, greatest, max(mpmath.mpf(1), _magnitude(a), _magnitude(b))))
        return out


def _same_lambdas(a: Approx, b: Approx) -> tuple[int, ...]:
    if a.lambdas and b.lambdas and a.lambdas != b.lambdas:
        raise Undecided("two limits sampled at different λ")  # pragma: no cover - one LAMBDAS
    return a.lambdas or b.lambdas


def agreement(a: Approx, b: Approx) -> bool:
    """True when a and b are equal (within TOLERANCE), False when they differ.

    With a λ on either side, the comparison is of limits as λ → ∞ (see the module
    docstring). Raises :class:`Undecided` when the enclosures or the samples cannot
    decide.
    """
    lambdas = _same_lambdas(a, b)
    steps = a.distances(b)
    if all(greatest <= TOLERANCE * scale for _, greatest, scale in steps):
        return True
    if not lambdas:
        least, greatest, scale = steps[0]
        if least > TOLERANCE * scale:
            return False
        raise Undecided(f"enclosures too wide to decide (distance up to {mpmath.nstr(greatest)})")
    greatest = [g for _, g, _ in steps]
    least, last, scale = steps[-1]
    tail = greatest[-RATIO_STEPS - 1 :]
    shrinking = all(
        later <= earlier / 2 or later <= TOLERANCE * scale
        for earlier, later in itertools.pairwise(tail)
    )
    if shrinking and last <= LIMIT_TOLERANCE * scale:
        return True
    if not shrinking and least > LIMIT_TOLERANCE * scale:
        return False
    raise Undecided(
        f"the distance at λ = {', '.join(map(str, lambdas))} is "
        + ", ".join(mpmath.nstr(g, 3) for g in greatest)
        + ": it neither settles at 0 nor stops shrinking"
    )
