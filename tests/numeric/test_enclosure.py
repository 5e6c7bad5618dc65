"""Enclosures and the agreement of numbers and of limits sampled along λ."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scaledattn.errors import Undecided
from scaledattn.numeric.enclosure import (
    CTX,
    LAMBDAS,
    Approx,
    agreement,
    exact,
)
from tests.strategies import rationals


def number(x: Fraction | int) -> Approx:
    return Approx((exact(x),))


def along(f: object) -> Approx:
    """A function of λ sampled at LAMBDAS, each value an enclosure."""
    return Approx(tuple(f(CTX.mpf(lam)) for lam in LAMBDAS), LAMBDAS)  # type: ignore[operator]


@given(rationals(-10, 10, 1000))
def test_an_exact_rational_is_enclosed_and_agrees_with_itself(x: Fraction) -> None:
    e = exact(x)
    lo, hi = mpmath.mpf(e.a), mpmath.mpf(e.b)
    assert lo <= mpmath.mpf(x.numerator) / x.denominator <= hi
    assert agreement(number(x), number(x))


@given(rationals(-10, 10, 1000), st.integers(1, 25))
def test_numbers_that_differ_by_more_than_the_tolerance_differ(x: Fraction, k: int) -> None:
    assert not agreement(number(x), number(x + Fraction(1, 10**k)))


def test_an_identity_of_irrational_numbers_agrees_despite_rounding() -> None:
    left = Approx((CTX.exp(exact(Fraction(1, 3))) ** 3,))
    right = Approx((CTX.e,))
    assert agreement(left, right)
    assert str(right) == "2.71828182845905"


def test_a_function_converging_like_e_to_the_minus_lambda_agrees_with_its_limit() -> None:
    assert agreement(along(lambda lam: 2 + CTX.exp(-lam)), number(2))
    assert agreement(along(lambda lam: CTX.sqrt(2 + CTX.exp(-lam))), Approx((CTX.sqrt(2),)))


def test_a_limit_of_the_wrong_value_differs() -> None:
    assert not agreement(along(lambda lam: CTX.sqrt(2 + CTX.exp(-lam))), number(2))


def test_two_functions_equal_at_every_sample_agree_pointwise() -> None:
    f = along(lambda lam: lam**2)  # no limit at all, but the same function
    assert agreement(f, along(lambda lam: lam * lam))


def test_a_slowly_converging_function_is_undecided_rather_than_refuted() -> None:
    with pytest.raises(Undecided, match="neither settles"):
        agreement(along(lambda lam: 1 / lam), number(0))


def test_enclosures_too_wide_to_decide_are_undecided() -> None:
    wide = Approx((CTX.mpf(["1", "1.00000000000000000001"]),))
    with pytest.raises(Undecided, match="too wide"):
        agreement(wide, number(1))


def test_a_sample_shows_its_lambda() -> None:
    assert str(along(lambda lam: 1 + CTX.exp(-lam))).endswith(f"at λ = {LAMBDAS[-1]}")
    assert float(number(Fraction(1, 4))) == 0.25
    assert str(number(3)) == "3"
