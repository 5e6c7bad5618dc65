"""The exact law of q·k for finite distributions, by convolution in rational arithmetic.

q·k = Σᵢ qᵢkᵢ is a sum of d_k independent copies of the product qk, so its law is
the d_k-fold convolution power of the law of qk. Nothing here uses the variance
theorem: the law is computed as a whole, and the mean and variance are read off it.

How the power is computed. Every finite law of rationals lives on a lattice
``origin + step·n``; with a common denominator W its pmf is a polynomial
P(x) = Σ aₙxⁿ with integer coefficients and P(1) = W. The law of the sum of d_k
copies is P(x)^d_k / W^d_k, and the coefficients of Q = P^d follow from J. C. P.
Miller's recurrence for powers of a power series (it comes from P·dQ/dx = d·Q·dP/dx):

    a₀·n·qₙ = Σⱼ₌₁ (j(d + 1) − n)·aⱼ·qₙ₋ⱼ,     q₀ = a₀ᵈ,

exact in Python integers, one pass over the d·r + 1 coefficients with one term per
non-zero aⱼ. For the coin (P = 1 + x after the lattice step) it is the binomial
recurrence, so d_k = 4096 takes milliseconds. :func:`power_by_squaring`, the
textbook route (repeated squaring of dictionaries of Fractions), is kept as the
reference the tests compare against.

A law on two lattice points (the coin's product qᵢkᵢ = ±1, a Bernoulli's 0 or 1) needs
no recurrence: the sum of d copies is origin·d + step·N with N ~ Binomial(d, p), whose
pmf is C(d, j)·pʲ·(1 − p)ᵈ⁻ʲ by the binomial theorem (:class:`BinomialLaw`). Its
moments are read off that pmf through its factorial moments E[N(N − 1)⋯(N − r + 1)] =
d(d − 1)⋯(d − r + 1)·pʳ (the r-th derivative of (1 − p + p·x)ᵈ at x = 1), exact
rationals, so the coin is exact at d_k = 2²⁰ in microseconds; the variance theorem is
not used.

The recurrence's cost grows with d² (d·r + 1 coefficients of up to d·log₂ W bits), so
a power that would take more than :data:`MAX_EXACT_SECONDS` is refused before it
starts, with the estimate (:func:`estimated_seconds`).

Examples
--------
>>> from scaledattn.numeric.distributions import Coin
>>> law = score_law(Coin(), Coin(), 2)
>>> law.pmf()
{Fraction(-2, 1): Fraction(1, 4), Fraction(0, 1): Fraction(1, 2), Fraction(2, 1): Fraction(1, 4)}
>>> law.mean(), law.variance()
(Fraction(0, 1), Fraction(2, 1))
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from scaledattn.errors import InvalidArgument
from scaledattn.numeric.distributions import Distribution
from scaledattn.progress import too_long

__all__ = [
    "BinomialLaw",
    "Combination",
    "Combinations",
    "ExactLaw",
    "LatticeLaw",
    "MAX_COMBINATIONS",
    "MAX_EXACT_SECONDS",
    "combinations",
    "estimated_seconds",
    "convolve",
    "lattice_law",
    "power",
    "power_by_squaring",
    "product_pmf",
    "score_law",
]

Pmf = Mapping[Fraction, Fraction]

#: Refuse an exact law whose computation is estimated to take longer than this.
MAX_EXACT_SECONDS = 3.0
#: Seconds per unit of work (coefficient × term × bit) of the recurrence: measured by
#: benchmarks/exact_convolution.py (1.0e-10 to 1.5e-10 on the project's machine; the
#: larger is kept, so that an estimate errs long).
SECONDS_PER_UNIT = 1.5e-10
#: The most combinations :func:`combinations` lists.
MAX_COMBINATIONS = 4096


@dataclass(frozen=True)
class LatticeLaw:
    """A law on ``origin + step·n`` (n = 0, 1, …) with P(n) = weights[n] / total."""

    origin: Fraction
    step: Fraction
    weights: tuple[int, ...]
    total: int

    def pmf(self) -> dict[Fraction, Fraction]:
        """{value: probability} over the values with non-zero probability."""
        return {
            self.origin + self.step * n: Fraction(w, self.total)
            for n, w in enumerate(self.weights)
            if w
        }

    @property
    def support_size(self) -> int:
        """How many values have non-zero probability."""
        return sum(1 for w in self.weights if w)

    def _power_sums(self, k: int) -> list[int]:
        sums = [0] * (k + 1)
        for n, w in enumerate(self.weights):
            if w:
                term = w
                for j in range(k + 1):
                    sums[j] += term
                    term *= n
        return sums

    def raw_moments(self, k: int) -> list[Fraction]:
        """[E[S⁰], …, E[Sᵏ]] exactly, from power sums Σ nʲ·weights[n]."""
        sums = self._power_sums(k)
        if sums[0] != self.total:  # pragma: no cover - guards the recurrence
            raise ArithmeticError("the weights do not sum to the total")
        return _on_lattice(self.origin, self.step, [Fraction(s, self.total) for s in sums])

    def mean(self) -> Fraction:
        """E[S], exactly."""
        return self.raw_moments(1)[1]

    def variance(self) -> Fraction:
        """Var S = E[S²] − E[S]², exactly."""
        _, m1, m2 = self.raw_moments(2)
        return m2 - m1**2


def _on_lattice(origin: Fraction, step: Fraction, lattice: list[Fraction]) -> list[Fraction]:
    """[E[Sᵐ]] for S = origin + step·n, from [E[nʲ]]: Σⱼ C(m, j)·originᵐ⁻ʲ·stepʲ·E[nʲ]."""
    return [
        sum(
            (math.comb(m, j) * origin ** (m - j) * step**j * lattice[j] for j in range(m + 1)),
            Fraction(0),
        )
        for m in range(len(lattice))
    ]


@dataclass(frozen=True)
class BinomialLaw:
    """The sum of ``d`` copies of a law on ``origin`` and ``origin + step`` (P = ``p``).

    S = d·origin + step·N with N ~ Binomial(d, p): P(S = d·origin + step·j) =
    C(d, j)·pʲ·(1 − p)ᵈ⁻ʲ, j = 0..d.

    >>> law = BinomialLaw(Fraction(-1), Fraction(2), Fraction(1, 2), 2**20)
    >>> law.mean(), law.variance(), law.support_size
    (Fraction(0, 1), Fraction(1048576, 1), 1048577)
    >>> print(law.closed_form("q·k"))
    P(q·k = -1048576 + 2j) = C(1048576, j)/2^1048576, j = 0..1048576
    """

    origin: Fraction
    step: Fraction
    p: Fraction
    d: int

    @property
    def support_size(self) -> int:
        """How many values have non-zero probability: d + 1."""
        return self.d + 1

    def closed_form(self, name: str = "S") -> str:
        """The pmf as a formula in j."""
        start, step, d, p = self.origin * self.d, self.step, self.d, self.p
        times_j = "j" if step == 1 else f"{step}j" if step.denominator == 1 else f"({step})j"
        value = f"{start} + {times_j}" if start else times_j
        if p == Fraction(1, 2):
            probability = f"C({d}, j)/2^{d}"
        else:
            probability = f"C({d}, j)·({p})^j·({1 - p})^({d} - j)"
        return f"P({name} = {value}) = {probability}, j = 0..{d}"

    def raw_moments(self, k: int) -> list[Fraction]:
        """[E[S⁰], …, E[Sᵏ]] exactly, from the factorial moments E[(N)ᵣ] = (d)ᵣ·pʳ.

        E[Nʲ] = Σᵣ S(j, r)·(d)ᵣ·pʳ, S(j, r) the Stirling numbers of the second kind.
        """
        falling = [Fraction(1)]  # (d)_r p^r
        for r in range(1, k + 1):
            falling.append(falling[-1] * (self.d - r + 1) * self.p)
        lattice = [
            sum((_stirling2(j, r) * falling[r] for r in range(j + 1)), Fraction(0))
            for j in range(k + 1)
        ]
        return _on_lattice(self.origin * self.d, self.step, lattice)

    def mean(self) -> Fraction:
        """E[S], exactly."""
        return self.raw_moments(1)[1]

    def variance(self) -> Fraction:
        """Var S = E[S²] − E[S]², exactly."""
        _, m1, m2 = self.raw_moments(2)
        return m2 - m1**2

    def lattice(self) -> LatticeLaw:
        """The same law with every weight written out (refused when it would take long)."""
        single = LatticeLaw(
            self.origin, self.step, (self.p.denominator - self.p.numerator, self.p.numerator),
            self.p.denominator,
        )  # fmt: skip
        _refuse_long(single, self.d)
        weights = [single.weights[0] ** self.d]
        a, b = single.weights
        for j in range(self.d):  # C(d, j+1)·bʲ⁺¹·aᵈ⁻ʲ⁻¹ from C(d, j)·bʲ·aᵈ⁻ʲ
            weights.append(weights[-1] * (self.d - j) * b // ((j + 1) * a))
        return LatticeLaw(self.origin * self.d, self.step, tuple(weights), single.total**self.d)

    def pmf(self) -> dict[Fraction, Fraction]:
        """{value: probability}, every value written out (refused when it would take long)."""
        return self.lattice().pmf()


def _stirling2(n: int, k: int) -> int:
    """S(n, k), the Stirling numbers of the second kind: S(n, k) = k·S(n−1, k) + S(n−1, k−1).

    >>> [_stirling2(4, k) for k in range(5)]
    [0, 1, 7, 6, 1]
    """
    row = [1] + [0] * k  # S(0, ·)
    for _ in range(n):
        row = [0] + [j * row[j] + row[j - 1] for j in range(1, k + 1)]
    return row[k]


#: An exact law of q·k: written out on its lattice, or a binomial in closed form.
ExactLaw = LatticeLaw | BinomialLaw


def lattice_law(pmf: Pmf) -> LatticeLaw:
    """The pmf written on its lattice: smallest value, common step, integer weights.

    >>> lattice_law({Fraction(-1): Fraction(1, 2), Fraction(1): Fraction(1, 2)})
    LatticeLaw(origin=Fraction(-1, 1), step=Fraction(2, 1), weights=(1, 1), total=2)
    """
    items = sorted((v, p) for v, p in pmf.items() if p)
    if not items:
        raise InvalidArgument("an empty pmf has no law")
    if sum((p for _, p in items), Fraction(0)) != 1:
        raise InvalidArgument("the probabilities do not sum to 1")
    origin = items[0][0]
    value_den = math.lcm(*(v.denominator for v, _ in items))
    offsets = [int((v - origin) * value_den) for v, _ in items]
    g = math.gcd(*offsets)
    step = Fraction(g, value_den) if g else Fraction(1)
    total = math.lcm(*(p.denominator for _, p in items))
    weights = [0] * ((offsets[-1] // g + 1) if g else 1)
    for off, (_, p) in zip(offsets, items, strict=True):
        weights[off // g if g else 0] = int(p * total)
    return LatticeLaw(origin, step, tuple(weights), total)


def estimated_seconds(law: LatticeLaw, d: int) -> float:
    """About how long :func:`power` takes: coefficients × terms × bits × SECONDS_PER_UNIT.

    Each of the d·r + 1 coefficients takes one pass over the non-zero aⱼ, each a
    product of integers of up to log₂(Wᵈ) bits by a small one.

    >>> from scaledattn.numeric.distributions import Coin
    >>> round(estimated_seconds(lattice_law(product_pmf(Coin(), Coin())), 2**18))
    41
    """
    terms = sum(1 for w in law.weights[1:] if w)
    bits = d * max(law.total.bit_length(), 1)
    return (d * (len(law.weights) - 1) + 1) * (terms + 1) * bits * SECONDS_PER_UNIT


def _refuse_long(law: LatticeLaw, d: int) -> None:
    seconds = estimated_seconds(law, d)
    if seconds > MAX_EXACT_SECONDS:
        points = d * (len(law.weights) - 1) + 1
        raise too_long(
            f"the exact law at d_k = {d} ({points} lattice points)",
            seconds,
            MAX_EXACT_SECONDS,
            "use --samples instead",
        )


def power(law: LatticeLaw, d: int) -> LatticeLaw:
    """The law of the sum of ``d`` independent copies, by Miller's recurrence.

    Refused up front (InvalidArgument) when it would take longer than MAX_EXACT_SECONDS.

    >>> power(lattice_law({Fraction(0): Fraction(1, 2), Fraction(1): Fraction(1, 2)}), 3).weights
    (1, 3, 3, 1)
    """
    if d < 1:
        raise InvalidArgument(f"d_k must be at least 1, got {d}")
    _refuse_long(law, d)
    a = law.weights
    r = len(a) - 1
    terms = [(j, a[j]) for j in range(1, r + 1) if a[j]]
    size = d * r + 1
    a0 = a[0]
    q = [0] * size
    q[0] = a0**d
    for n in range(1, size):
        s = 0
        for j, aj in terms:
            if j > n:
                break
            s += (j * (d + 1) - n) * aj * q[n - j]
        q[n], rest = divmod(s, n * a0)
        if rest:  # pragma: no cover - the recurrence is exact
            raise ArithmeticError("Miller's recurrence left a remainder")
    return LatticeLaw(law.origin * d, law.step, tuple(q), law.total**d)


def product_pmf(q: Distribution, k: Distribution) -> dict[Fraction, Fraction]:
    """The pmf of qᵢkᵢ for independent qᵢ ~ q and kᵢ ~ k (both finite).

    >>> from scaledattn.numeric.distributions import Coin
    >>> product_pmf(Coin(), Coin())
    {Fraction(1, 1): Fraction(1, 2), Fraction(-1, 1): Fraction(1, 2)}
    """
    out: dict[Fraction, Fraction] = {}
    for (a, pa), (b, pb) in itertools.product(_finite(q).items(), _finite(k).items()):
        out[a * b] = out.get(a * b, Fraction(0)) + pa * pb
    return out


def _finite(dist: Distribution) -> dict[Fraction, Fraction]:
    if not dist.finite:
        raise InvalidArgument(
            f"{dist.spec} is not a finite distribution: the exact law needs finite"
            " distributions (use --samples for a Monte Carlo estimate)"
        )
    return dist.pmf()


def score_law(q: Distribution, k: Distribution, d: int) -> ExactLaw:
    """The exact law of q·k = Σᵢ₌₁ᵈ qᵢkᵢ, all 2d components independent.

    A binomial in closed form when qᵢkᵢ takes two values, else written out by
    :func:`power` (refused up front when that would take long).
    """
    single = lattice_law(product_pmf(q, k))
    if d < 1:
        raise InvalidArgument(f"d_k must be at least 1, got {d}")
    if len(single.weights) == 2:
        return BinomialLaw(single.origin, single.step, Fraction(single.weights[1], single.total), d)
    return power(single, d)


# ------------------------------------------------------------- reference route


def convolve(a: Pmf, b: Pmf) -> dict[Fraction, Fraction]:
    """The pmf of X + Y for independent X ~ a, Y ~ b (dictionary convolution)."""
    out: dict[Fraction, Fraction] = {}
    for (x, px), (y, py) in itertools.product(a.items(), b.items()):
        out[x + y] = out.get(x + y, Fraction(0)) + px * py
    return out


def power_by_squaring(pmf: Pmf, d: int) -> dict[Fraction, Fraction]:
    """The d-fold convolution power by repeated squaring (the slow reference route)."""
    if d < 1:
        raise InvalidArgument(f"d_k must be at least 1, got {d}")
    result: dict[Fraction, Fraction] | None = None
    base = dict(pmf)
    while d:
        if d & 1:
            result = base if result is None else convolve(result, base)
        d >>= 1
        if d:
            base = convolve(base, base)
    assert result is not None
    return result


# ------------------------------------------------------------ exercise 1


@dataclass(frozen=True)
class Combination:
    """One joint outcome of the products (q₁k₁, …, q_dk_d), its score and probability."""

    products: tuple[Fraction, ...]
    score: Fraction
    probability: Fraction


@dataclass(frozen=True)
class Combinations:
    """Every joint outcome of the d products qᵢkᵢ, with the exact mean and variance."""

    rows: tuple[Combination, ...]
    mean: Fraction
    variance: Fraction


def combinations(q: Distribution, k: Distribution, d: int) -> Combinations:
    """List every combination of the products qᵢkᵢ (the lesson's exercise 1 for coins).

    The mean and variance are computed from the listing itself, by definition.

    >>> from scaledattn.numeric.distributions import Coin
    >>> listing = combinations(Coin(), Coin(), 2)
    >>> [(tuple(map(int, r.products)), int(r.score), str(r.probability)) for r in listing.rows]
    [((1, 1), 2, '1/4'), ((1, -1), 0, '1/4'), ((-1, 1), 0, '1/4'), ((-1, -1), -2, '1/4')]
    >>> listing.mean, listing.variance
    (Fraction(0, 1), Fraction(2, 1))
    """
    if d < 1:
        raise InvalidArgument(f"d_k must be at least 1, got {d}")
    single = sorted(product_pmf(q, k).items(), key=lambda vp: -vp[0])
    if d * math.log2(max(len(single), 1)) > math.log2(MAX_COMBINATIONS):
        raise InvalidArgument(
            f"{len(single)}^{d} combinations at d_k = {d} are too many to list (at most"
            f" {MAX_COMBINATIONS}); drop --list"
        )
    rows = []
    for outcome in itertools.product(single, repeat=d):
        products = tuple(v for v, _ in outcome)
        probability = math.prod((p for _, p in outcome), start=Fraction(1))
        rows.append(Combination(products, sum(products, Fraction(0)), probability))
    mean = sum((r.probability * r.score for r in rows), Fraction(0))
    variance = sum((r.probability * (r.score - mean) ** 2 for r in rows), Fraction(0))
    return Combinations(tuple(rows), mean, variance)
