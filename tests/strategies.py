"""Shared Hypothesis strategies (plural nouns, as attrs names them).

Dimensions, exact numbers, catalogue distributions, and the moments and correlations
the calculator's witnesses draw, and score vectors for the softmax.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from scaledattn.numeric.distributions import (
    Bernoulli,
    Coin,
    Die,
    Distribution,
    Finite,
    Gaussian,
    Laplace,
    StudentT,
    Uniform,
)


def dims(max_value: int = 4096) -> st.SearchStrategy[int]:
    """d_k from 1 to max_value, log-uniform so that small and large both appear."""
    top = max_value.bit_length() - 1
    return st.integers(0, top).flatmap(
        lambda e: st.integers(2**e, min(max_value, 2 ** (e + 1) - 1))
    )


def rationals(
    low: int = -3, high: int = 3, max_denominator: int = 8
) -> st.SearchStrategy[Fraction]:
    """Small exact rationals in [low, high]."""
    return st.fractions(low, high, max_denominator=max_denominator)


def numbers(low: float = -3, high: float = 3) -> st.SearchStrategy[Fraction]:
    """Parameters as a user gives them: exact rationals or (finite) floats, as Fractions."""
    floats = st.floats(low, high, allow_nan=False, allow_infinity=False, width=32)
    return st.one_of(rationals(int(low), int(high)), floats.map(Fraction))


def variances(low: float = 0.125, high: float = 4) -> st.SearchStrategy[Fraction]:
    """Positive variances, rational or float."""
    return numbers(low, high).filter(lambda v: v > 0)


def finite_distributions(max_values: int = 4) -> st.SearchStrategy[Distribution]:
    """Finite catalogue laws: coin, die, bernoulli, and finite laws on small rationals."""
    weights = st.lists(st.integers(1, 6), min_size=1, max_size=max_values)

    @st.composite
    def finite(draw: st.DrawFn) -> Distribution:
        w = draw(weights)
        values = draw(st.lists(rationals(-3, 3, 4), min_size=len(w), max_size=len(w), unique=True))
        total = sum(w)
        return Finite(values, [Fraction(x, total) for x in w])

    return st.one_of(
        st.just(Coin()),
        st.just(Die()),
        st.fractions(0, 1, max_denominator=6).map(Bernoulli),
        finite(),
    )


def continuous_distributions() -> st.SearchStrategy[Distribution]:
    """Non-finite catalogue laws with a finite fourth moment (Student's t with nu > 4)."""
    return st.one_of(
        st.builds(Gaussian, numbers(-2, 2), variances()),
        st.builds(lambda lo, width: Uniform(lo, lo + width), numbers(-2, 2), variances(0.25, 4)),
        st.builds(Laplace, numbers(-2, 2), variances(0.25, 2)),
        st.integers(5, 40).map(StudentT),
    )


def catalogue_distributions() -> st.SearchStrategy[Distribution]:
    """Any catalogue law with a finite fourth moment."""
    return st.one_of(finite_distributions(), continuous_distributions())


def centred(dist: Distribution) -> Distribution:
    """The same law shifted to mean 0 (finite laws exactly, Gaussian/Laplace by parameter)."""
    mean = Fraction(str(dist.mean())) if dist.mean() != 0 else Fraction(0)
    if isinstance(dist, (Coin, Die, StudentT)):
        return dist
    if isinstance(dist, Gaussian):
        return Gaussian(0, dist.var)
    if isinstance(dist, Laplace):
        return Laplace(0, dist.scale)
    if isinstance(dist, Uniform):
        half = (dist.high - dist.low) / 2
        return Uniform(-half, half)
    pmf = dist.pmf()
    return Finite([v - mean for v in pmf], list(pmf.values()))


def means() -> st.SearchStrategy[Fraction]:
    """Component means: small rationals of either sign, 0 included."""
    return st.fractions(min_value=-2, max_value=2, max_denominator=6)


def stds() -> st.SearchStrategy[Fraction]:
    """Component standard deviations: positive rationals (the variance is their square)."""
    return st.fractions(min_value=Fraction(1, 4), max_value=3, max_denominator=6).filter(
        lambda x: x > 0
    )


def pythagorean_correlations() -> st.SearchStrategy[tuple[Fraction, Fraction]]:
    """(ρ, √(1 − ρ²)) with both rational: ρ = ±(m² − n²)/(m² + n²), from −1 to 1."""

    def build(m: int, n: int, sign: int) -> tuple[Fraction, Fraction]:
        total = m * m + n * n
        return Fraction(sign * (m * m - n * n), total), Fraction(2 * m * n, total)

    return st.builds(
        build,
        st.integers(min_value=0, max_value=5),
        st.integers(min_value=1, max_value=5),
        st.sampled_from((1, -1)),
    )


def correlations() -> st.SearchStrategy[Fraction]:
    """Correlations in [−1, 1], as rationals."""
    return st.fractions(min_value=-1, max_value=1, max_denominator=10)


def skews() -> st.SearchStrategy[tuple[int, int]]:
    """(a, b): the standardised two-point law b/a w.p. a²/(a²+b²), −a/b w.p. b²/(a²+b²)."""
    return st.tuples(st.integers(min_value=1, max_value=4), st.integers(min_value=1, max_value=4))


# ------------------------------------------------------------- softmax scores

#: The largest score magnitude the softmax must handle in both precisions.
BOUND = 1e4
DTYPES = (np.float32, np.float64)


def dtypes() -> st.SearchStrategy[Any]:
    """float32 or float64."""
    return st.sampled_from(DTYPES)


def logit_vectors(
    dtype: Any = np.float64, bound: float = BOUND, max_len: int = 64
) -> st.SearchStrategy[np.ndarray]:
    """Score vectors of length 1..max_len with entries in [−bound, bound], ±bound included."""
    elements = st.one_of(
        st.floats(-bound, bound, width=np.dtype(dtype).itemsize * 8),
        st.sampled_from([-bound, bound, 0.0]),
    )
    return hnp.arrays(dtype, st.integers(1, max_len), elements=elements)


def integer_logit_vectors(
    dtype: Any = np.float32, bound: int = 2**20
) -> st.SearchStrategy[np.ndarray]:
    """Integer-valued score vectors, exactly representable in float32 and after shifts."""
    return hnp.arrays(dtype, st.integers(1, 64), elements=st.integers(-bound, bound))


def shifts(bound: float = 1e3) -> st.SearchStrategy[float]:
    """A constant added to every score."""
    return st.floats(-bound, bound)


def score_batches() -> st.SearchStrategy[np.ndarray]:
    """Moderate float64 score matrices (rows × keys) for gradient checks."""
    return hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 4), st.integers(2, 12)),
        elements=st.floats(-5, 5),
    )


def score_lists(
    min_len: int = 1, max_len: int = 6, bound: int = 4
) -> st.SearchStrategy[list[Fraction]]:
    """Exact score vectors: lists of min_len..max_len rationals in [−bound, bound]."""
    return st.lists(rationals(-bound, bound), min_size=min_len, max_size=max_len)


# ------------------------------------------------------------- claim language

CLAIM_NAMES = ("X", "Y", "Z", "q_i", "k_i", "q_1", "k_2", "d_k", "c", "sigma", "rho")
CLAIM_RELATIONS = ("=", "≈", "~=", "<", "<=", ">", ">=")
ONE_ARGUMENT = ("sqrt", "exp", "log", "E", "Var", "std")
LIST_FUNCTIONS = ("softmax", "entropy", "sum", "max", "min")


def written_numbers() -> st.SearchStrategy[str]:
    """Numbers as an author writes them: 3, 0.659, 1e-3, 65.9%."""
    integers = st.integers(0, 999).map(str)
    decimals = st.tuples(st.integers(0, 99), st.integers(0, 999)).map(lambda t: f"{t[0]}.{t[1]}")
    exponents = st.tuples(st.integers(1, 9), st.integers(-4, 4)).map(lambda t: f"{t[0]}e{t[1]}")
    percents = decimals.map(lambda s: s + "%")
    return st.one_of(integers, decimals, exponents, percents)


def number_lists(max_size: int = 5) -> st.SearchStrategy[str]:
    """Literal lists such as [2.0, 1.0, 0.1]."""
    items = st.one_of(written_numbers(), written_numbers().map(lambda s: "-" + s))
    return st.lists(items, min_size=1, max_size=max_size).map(lambda xs: "[" + ", ".join(xs) + "]")


@st.composite
def claim_expressions(draw: st.DrawFn, depth: int = 3) -> str:
    """Expressions of the claim language, drawn from its grammar (small, but of every kind)."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.one_of(written_numbers(), st.sampled_from(CLAIM_NAMES)))
    kind = draw(st.sampled_from(("binary", "power", "neg", "call", "cov", "dot", "list", "other")))
    inner = claim_expressions(depth - 1)
    if kind == "binary":
        op = draw(st.sampled_from(("+", "-", "*", "/")))
        return f"({draw(inner)}) {op} ({draw(inner)})"
    if kind == "power":
        return f"({draw(inner)})**{draw(st.integers(0, 3))}"
    if kind == "neg":
        return f"-({draw(inner)})"
    if kind == "call":
        return f"{draw(st.sampled_from(ONE_ARGUMENT))}({draw(inner)})"
    if kind == "cov":
        return f"Cov({draw(inner)}, {draw(inner)})"
    if kind == "dot":
        return draw(st.sampled_from(("dot(q, k)", "dot(q, k, 3)", "dot(q, k, 64)")))
    if kind == "list":
        return f"{draw(st.sampled_from(LIST_FUNCTIONS))}({draw(number_lists())})"
    return draw(
        st.sampled_from(
            ("lim(p_minus_y)", "lim(jacobian)", "rounded(2.95)", "uniform(4)", "√d_k", "2^3")
        )
    )


@st.composite
def claim_texts(draw: st.DrawFn) -> str:
    """Whole claims: a chain of expressions joined by relations, from the grammar."""
    parts = [draw(claim_expressions())]
    for _ in range(draw(st.integers(1, 2))):
        parts += [draw(st.sampled_from(CLAIM_RELATIONS)), draw(claim_expressions())]
    return " ".join(parts)
