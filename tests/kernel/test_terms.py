"""The term language refuses what is not a term: dimensions and indices out of range."""

from __future__ import annotations

from typing import Any

import pytest
from sympy import Integer, Rational, Symbol

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import RandomVector, dimension, index


@pytest.mark.parametrize(
    "size",
    [0, -3, Rational(5, 2), Symbol("n"), Symbol("n", integer=True), Symbol("x", positive=True)],
    ids=["zero", "negative", "fraction", "plain symbol", "integer symbol", "real symbol"],
)
def test_a_dimension_is_a_positive_integer_or_a_positive_integer_symbol(size: Any) -> None:
    with pytest.raises(InvalidArgument, match="dimension must be a positive integer"):
        RandomVector("q", size)


@pytest.mark.parametrize("size", [1, 64, Integer(3), dimension("d_k")])
def test_a_dimension_may_be_a_number_or_a_dimension_symbol(size: Any) -> None:
    assert RandomVector("q", size).dim == size


@pytest.mark.parametrize(
    "at", [0, -1, Rational(1, 2), Symbol("x"), Symbol("x", real=True)], ids=str
)
def test_an_index_is_a_positive_integer_or_an_integer_symbol(at: Any) -> None:
    q = RandomVector("q", dimension("d_k"))
    with pytest.raises(InvalidArgument, match="an index must be a positive integer"):
        q[at]


@pytest.mark.parametrize("at", [1, 7, index("i")], ids=str)
def test_an_index_may_be_a_number_or_an_index_symbol(at: Any) -> None:
    q = RandomVector("q", dimension("d_k"))
    assert q[at].index == at


def test_a_sum_of_real_terms_is_real_and_of_unknown_terms_is_not_known_real() -> None:
    from scaledattn.kernel import IndexSum

    d, i = dimension("d_k"), index("i")
    q, k = RandomVector("q", d), RandomVector("k", d)
    assert IndexSum(q[i] * k[i], i, d).is_real is True
    assert IndexSum(Symbol("z") * q[i], i, d).is_real is None


def test_nested_sums_are_the_same_in_any_order_and_five_deep_still_normalise() -> None:
    from scaledattn.kernel import IndexSum, same

    d = dimension("d_k")
    a, b, c, e, f = (index(x) for x in "abcef")
    q = RandomVector("q", d)

    def nest(body: Any, order: str) -> Any:
        for name in reversed(order):
            body = IndexSum(body, index(name), d)
        return body

    body4 = q[a] * q[b] ** 2 * q[c] ** 3 * q[e] ** 4
    assert same(nest(body4, "abce"), nest(body4, "ecba")) is True
    body5 = body4 * q[f] ** 5
    assert same(nest(body5, "abcef"), nest(body5, "abcef")) is True


def test_a_point_where_the_difference_is_undefined_is_skipped_not_taken_as_a_verdict() -> None:
    from scaledattn.explain import _sample_points
    from scaledattn.kernel import E, RandomVariable, same

    x = RandomVariable("X")
    first = next(iter(_sample_points()))(0)  # E[X] takes this value at the first point
    assert same(1 / (E(x) - first), Integer(0)) is False  # the second point decides
    assert same(Integer(1) / 0 + E(x), E(x)) is None  # undefined everywhere: undecided
