"""The lesson's coin model, enumerated exactly: components ±1 with probability ½ each.

Every one of the 2^(2·d_k) sign patterns of (q, k) is listed with its probability
(exact fractions); grouping them by the products (q₁k₁, …, q_dk_d) gives the
lesson's "four combinations" for d_k = 2. Nothing here uses the variance rule being
checked: the mean and variance of q·k come from its enumerated distribution.

Examples
--------
>>> moments(COIN)
(Fraction(0, 1), Fraction(1, 1))
>>> [(c.products, c.value, str(c.probability)) for c in combinations(2)]
[((1, 1), 2, '1/4'), ((1, -1), 0, '1/4'), ((-1, 1), 0, '1/4'), ((-1, -1), -2, '1/4')]
>>> mean_and_variance(distribution(2))
(Fraction(0, 1), Fraction(2, 1))
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction

from scaledattn.errors import InvalidArgument

__all__ = [
    "COIN",
    "Combination",
    "Outcome",
    "combinations",
    "distribution",
    "mean_and_variance",
    "moments",
    "outcomes",
    "table_lines",
]

#: A fair ±1 coin.
COIN: Mapping[int, Fraction] = {1: Fraction(1, 2), -1: Fraction(1, 2)}
#: 2^(2·MAX_DIM) patterns at most (65 536).
MAX_DIM = 8


def moments(pmf: Mapping[int, Fraction]) -> tuple[Fraction, Fraction]:
    """(mean, variance) of one component, from its probability mass function."""
    mean = sum((p * x for x, p in pmf.items()), Fraction(0))
    square = sum((p * x * x for x, p in pmf.items()), Fraction(0))
    return mean, square - mean * mean


@dataclass(frozen=True)
class Outcome:
    """One sign pattern of (q, k) and its probability."""

    q: tuple[int, ...]
    k: tuple[int, ...]
    probability: Fraction

    @property
    def products(self) -> tuple[int, ...]:
        """(q₁k₁, …, q_dk_d)."""
        return tuple(a * b for a, b in zip(self.q, self.k, strict=True))

    @property
    def value(self) -> int:
        """q·k."""
        return sum(self.products)


def outcomes(d: int, pmf: Mapping[int, Fraction] = COIN) -> Iterator[Outcome]:
    """Every pattern of the 2·d independent components, with its probability."""
    if not 1 <= d <= MAX_DIM:
        raise InvalidArgument(f"the enumeration takes d_k in 1..{MAX_DIM}, got {d!r}")
    values = sorted(pmf, reverse=True)
    for pattern in itertools.product(values, repeat=2 * d):
        probability = Fraction(1)
        for x in pattern:
            probability *= pmf[x]
        yield Outcome(pattern[:d], pattern[d:], probability)


@dataclass(frozen=True)
class Combination:
    """The patterns with the same products (q₁k₁, …, q_dk_d): their q·k and total probability."""

    products: tuple[int, ...]
    value: int
    probability: Fraction
    patterns: int


def combinations(d: int, pmf: Mapping[int, Fraction] = COIN) -> list[Combination]:
    """The distinct product patterns, in enumeration order."""
    grouped: dict[tuple[int, ...], list[Outcome]] = {}
    for outcome in outcomes(d, pmf):
        grouped.setdefault(outcome.products, []).append(outcome)
    return [
        Combination(products, sum(products), sum((o.probability for o in group), Fraction(0)),
                    len(group))
        for products, group in grouped.items()
    ]  # fmt: skip


def distribution(d: int, pmf: Mapping[int, Fraction] = COIN) -> dict[int, Fraction]:
    """The exact distribution of q·k: value → probability."""
    dist: dict[int, Fraction] = {}
    for outcome in outcomes(d, pmf):
        dist[outcome.value] = dist.get(outcome.value, Fraction(0)) + outcome.probability
    return dict(sorted(dist.items()))


def mean_and_variance(dist: Mapping[int, Fraction]) -> tuple[Fraction, Fraction]:
    """(mean, variance) of a finite distribution, exactly."""
    total = sum(dist.values(), Fraction(0))
    if total != 1:
        raise InvalidArgument(f"probabilities sum to {total}, not 1")
    mean = sum((p * x for x, p in dist.items()), Fraction(0))
    return mean, sum((p * (x - mean) ** 2 for x, p in dist.items()), Fraction(0))


def table_lines(d: int, pmf: Mapping[int, Fraction] = COIN) -> list[str]:
    """The combinations as a small text table, with the enumerated mean and variance."""
    rows = combinations(d, pmf)
    total = 2 ** (2 * d) if len(pmf) == 2 else sum(r.patterns for r in rows)
    head = "(" + ", ".join(f"q{n}k{n}" for n in range(1, d + 1)) + ")"
    width = max(len(head), *(len(_signs(r.products)) for r in rows))
    lines = [f"{head:<{width}}  q·k  probability  (q, k) patterns"]
    for r in rows:
        lines.append(
            f"{_signs(r.products):<{width}}  {r.value:>3}  {r.probability!s:>11}"
            f"  {r.patterns} of {total}"
        )
    mean, var = mean_and_variance(distribution(d, pmf))
    lines.append(f"enumerated: E[q·k] = {mean}, Var(q·k) = {var}")
    return lines


def _signs(products: tuple[int, ...]) -> str:
    return "(" + ", ".join(f"{p:+d}" for p in products) + ")"
