"""Shared Hypothesis strategies (plural nouns, as attrs names them)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st


def dims(max_value: int = 4) -> st.SearchStrategy[int]:
    """Small key dimensions d_k (an exact enumeration stays cheap)."""
    return st.integers(min_value=1, max_value=max_value)


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
